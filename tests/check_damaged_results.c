/* SPDX-License-Identifier: MIT */
/* Damaged result files through the binary ($FUTEXSIM or bin/futexsim), as a user
 * meets them: every file of tests/fuzz/results-corpus/ and results-crashes/ (the
 * reader fuzz target's seeds, and inputs that crashed or hung a reader: two
 * make libhdf5 itself loop, two make it segfault, found by make fuzz-results and by byte flips), then a few hundred byte flips and truncations of a
 * fresh result file. `show` (and `compare`) must refuse or read each one: exit 0 or
 * 3, never a signal, a sanitizer's exit or a hang. Then files that lie (issue 38:
 * links out of the file, values out of their domain, text that is not UTF-8) and
 * paths that are no result files, refused by every reader. Under make sanitize the
 * binary is the ASan+UBSan build. */
#include <check.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/testutil.h"

/* a hang is cut at this many seconds (the reader's child is killed) */
#define LIMIT "FUTEXSIM_READ_TIMEOUT=3"

static char dir[64];

/* Under make sanitize a damaged file can make libhdf5 (not instrumented, but its
 * memcpy is) overrun a buffer: ASan reports it in the reader's child, which the
 * parent turns into a refusal. Such a report is fine when the first frame that is
 * not the sanitizer's own is in libhdf5; any other ASan report, and any UBSan one
 * (libhdf5 has none), is a bug of futexsim's. */
static void assert_no_own_bug(const char *what, const char *out)
{
	const char *p = strstr(out, "ERROR: AddressSanitizer");

	ck_assert_msg(!strstr(out, "runtime error:"), "%s: UBSan:\n%s", what, out);
	if (!p)
		return;
	for (int frame = 0; frame < 3; frame++) {
		char tag[16], line[1024];
		const char *at;
		size_t len;

		snprintf(tag, sizeof(tag), "#%d ", frame);
		at = strstr(p, tag);
		ck_assert_msg(at != NULL, "%s: an ASan report without frames:\n%s", what, out);
		len = strcspn(at, "\n");
		snprintf(line, sizeof(line), "%.*s", (int)(len < sizeof(line) - 1 ? len : sizeof(line) - 1), at);
		if (strstr(line, "interceptor") || strstr(line, "sanitizer_common"))
			continue;
		ck_assert_msg(strstr(line, "libhdf5") != NULL, "%s: ASan found a bug of futexsim's:\n%s", what, out);
		return;
	}
}

/* `futexsim show FILE` (and compare FILE FILE when `compare`): the exit statuses. */
static void show_refuses_or_reads(const char *file, int compare)
{
	char *out;
	int status = tu_shellf(&out, LIMIT " \"%s\" show '%s'", tu_bin(), file);

	ck_assert_msg(status == 0 || status == 3, "show %s: exit %d:\n%s", file, status, out);
	assert_no_own_bug(file, out);
	if (status == 3)
		ck_assert_msg(strstr(out, "futexsim: ") && strstr(out, file), "show %s: %s", file, out);
	free(out);
	if (!compare)
		return;
	status = tu_shellf(&out, LIMIT " \"%s\" compare '%s' '%s'", tu_bin(), file, file);
	ck_assert_msg(status == 0 || status == 3, "compare %s: exit %d:\n%s", file, status, out);
	assert_no_own_bug(file, out);
	free(out);
}

START_TEST(test_kept_inputs)
{
	static const char *const dirs[] = { "tests/fuzz/results-corpus", "tests/fuzz/results-crashes" };
	unsigned n = 0;

	for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
		DIR *dh = opendir(dirs[d]);
		struct dirent *ent;

		ck_assert_msg(dh != NULL, "%s is missing", dirs[d]);
		while ((ent = readdir(dh))) {
			char path[512];

			if (ent->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", dirs[d], ent->d_name);
			show_refuses_or_reads(path, 1);
			n++;
		}
		closedir(dh);
	}
	ck_assert_uint_ge(n, 9);
}
END_TEST

/* A soft-link loop where the summary was: refused by the walk of the file's links,
 * before libhdf5 follows one. */
START_TEST(test_link_loop_refused)
{
	char *out, path[128];

	snprintf(path, sizeof(path), "%s/links.h5", dir);
	ck_assert_int_eq(tu_shellf(&out, "cp tests/fuzz/results-corpus/quickstart.h5 %s && /usr/bin/python3 -c \"import "
				  "h5py; f = h5py.File('%s', 'r+'); del f['summary']; f['summary'] = h5py.SoftLink('/loop'); "
				  "f['loop'] = h5py.SoftLink('/summary')\" && \"%s\" show %s",
			    path, path, tu_bin(), path),
			 3);
	ck_assert_msg(strstr(out, "is a soft link to /"), "%s", out);
	ck_assert_msg(strstr(out, "a result file holds all its objects itself (hard links only)"), "%s", out);
	free(out);
}
END_TEST

/* Result files that lie (issue 38): each made from a sound file of the corpus by
 * h5py (f, the copy; other, another run's file) and refused by every reader, status
 * 3 with the message, never shown as measured: links and storage that resolve
 * outside the file, values out of their figure's domain, text that is not UTF-8,
 * figures that contradict each other. */
static const struct {
	const char *base;   /* in tests/fuzz/results-corpus */
	const char *python;
	const char *message;
} lies[] = {
	{ "quickstart.h5", "del f['threads']; f['threads'] = h5py.ExternalLink(other, '/threads')",
	  "/threads is an external link to " },
	{ "quickstart.h5", "del f['threads']; f['threads'] = h5py.SoftLink('/lines')", "/threads is a soft link to /lines" },
	{ "quickstart.h5", "f['extra'] = h5py.ExternalLink(other, '/')", "/extra is an external link to " },
	{ "quickstart.h5",
	  "d = f['threads/perf_line']; t = d.dtype; n = d.shape[0]; del f['threads/perf_line']\n"
	  "open(raw, 'wb').write(b'root:x:0:0:root:/root:/bin/bash'.ljust(t.itemsize * n))\n"
	  "f.create_dataset('threads/perf_line', shape=(n,), dtype=t, external=[(raw, 0, t.itemsize * n)])",
	  "dataset threads/perf_line keeps its data in 1 external file" },
	{ "quickstart.h5",
	  "n = f['threads/ops'].shape[0]; lay = h5py.VirtualLayout(shape=(n,), dtype='u8')\n"
	  "lay[:] = h5py.VirtualSource(other, 'threads/ops', shape=(n,)); del f['threads/ops']\n"
	  "f.create_virtual_dataset('threads/ops', lay)",
	  "dataset threads/ops is a virtual dataset" },
	{ "quickstart.h5", "del f['summary/total_ops']; f['summary/total_ops'] = np.float64('nan')",
	  "dataset summary/total_ops holds a value that is not a whole number (a fraction or NaN)" },
	{ "quickstart.h5", "del f['summary/total_ops']; f['summary/total_ops'] = np.float64('inf')",
	  "dataset summary/total_ops holds a value too large for it (or +infinity)" },
	{ "quickstart.h5", "del f['summary/ops_per_sec']; f['summary/ops_per_sec'] = np.int64(-5)",
	  "dataset summary/ops_per_sec holds a negative value" },
	{ "quickstart.h5", "d = f['threads/ops']; v = d[:].astype('i8'); v[0] = -1; del f['threads/ops']; f['threads/ops'] = v",
	  "dataset threads/ops holds a negative value" },
	{ "quickstart.h5", "del f['provenance'].attrs['seed']; f['provenance'].attrs['seed'] = np.int64(-3)",
	  "attribute seed of provenance holds a negative value" },
	{ "quickstart.h5", "f['summary/ops_per_sec_stderr'][()] = np.nan", "summary/ops_per_sec_stderr is nan" },
	{ "quickstart.h5", "f['provenance'].attrs['wall_seconds'] = -np.inf", "attribute wall_seconds of provenance is -inf" },
	{ "mutex.h5", "f['workload/lock_acquisitions'][()] = -5", "workload/lock_acquisitions is -5, not a finite figure" },
	{ "mutex.h5", "f['workload/latency_p50'][()] = np.inf", "workload/latency_p50 is inf, not a finite figure" },
	{ "mutex.h5", "v = f['workload/latency_counts'][:]; v[0] = np.nan; f['workload/latency_counts'][:] = v",
	  "workload/latency_counts is nan" },
	{ "mutex.h5", "v = f['workload/figure_names'][:]; v[0] = b'../summary/x'; f['workload/figure_names'][:] = v",
	  "dataset workload/figure_names holds '../summary/x', not a name" },
	{ "quickstart.h5", "f['summary'].attrs.create('machine', data=b'small\\xff\\xfe', dtype=h5py.string_dtype('utf-8'))",
	  "attribute machine of summary is not UTF-8 text (byte 0xff at offset 5)" },
	{ "quickstart.h5", "f['summary'].attrs['machine'] = 'small\\x1b[2J'", "attribute machine of summary holds a control character" },
	{ "quickstart.h5", "d = f['lines/description']; v = d[:]; v[0] = b'bucket \\xc3\\x28'; d[:] = v",
	  "dataset lines/description (row 0) is not UTF-8 text" },
	{ "quickstart.h5", "f['summary'].attrs['machine'] = 'x' * (1 << 20)",
	  "attribute machine of summary (expected one string) is 1048576 bytes long" },
	{ "quickstart.h5", "f['summary/total_ops'][()] = 12345", "summary/total_ops is 12345, but the 8 threads' ops" },
	{ "quickstart.h5", "del f['threads']; g = h5py.File(other, 'r'); g.copy('threads', f)",
	  "the file contradicts itself" },
	{ "quickstart.h5", "v = f['threads/ops_per_sec'][:]; v[1] += 1000; f['threads/ops_per_sec'][:] = v",
	  "thread 1's ops_per_sec is " },
	{ "quickstart.h5", "f.attrs['incomplete'] = np.int32(7)", "attribute incomplete of / is 7, not 0 or 1" },
};

START_TEST(test_lies_refused)
{
	static const char *const readers[] = { "show", "show --json", "show --csv", "explain", "c2c" };
	char path[128], raw[128], script[128], *out;
	FILE *py;
	int status;

	snprintf(path, sizeof(path), "%s/lie%d.h5", dir, _i);
	snprintf(raw, sizeof(raw), "%s/lie%d.raw", dir, _i);
	snprintf(script, sizeof(script), "%s/lie%d.py", dir, _i);
	py = fopen(script, "w");
	ck_assert_ptr_nonnull(py);
	fprintf(py, "import h5py, numpy as np, sys\nother, raw = sys.argv[2], sys.argv[3]\n"
		    "f = h5py.File(sys.argv[1], 'r+')\n%s\n", lies[_i].python);
	fclose(py);
	status = tu_shellf(&out, "cp tests/fuzz/results-corpus/%s %s && /usr/bin/python3 %s %s "
			   "$PWD/tests/fuzz/results-corpus/mutex.h5 %s", lies[_i].base, path, script, path, raw);
	ck_assert_msg(status == 0, "case %d: %s", _i, out);
	free(out);
	for (size_t k = 0; k < sizeof(readers) / sizeof(readers[0]); k++) {
		status = tu_shellf(&out, "\"%s\" %s %s", tu_bin(), readers[k], path);

		ck_assert_msg(status == 3, "case %d, %s: exit %d:\n%s", _i, readers[k], status, out);
		ck_assert_msg(strstr(out, lies[_i].message) && strstr(out, path), "case %d, %s:\n%s", _i, readers[k], out);
		ck_assert_msg(!strstr(out, "Averaged") && !strstr(out, "root:x"), "case %d, %s: shown:\n%s", _i, readers[k],
			      out);
		free(out);
	}
	ck_assert_int_eq(tu_shellf(&out, "\"%s\" compare tests/fuzz/results-corpus/%s %s", tu_bin(), lies[_i].base, path),
			 3);
	ck_assert_msg(strstr(out, lies[_i].message), "case %d, compare:\n%s", _i, out);
	free(out);
}
END_TEST

/* What is not a lie is read: a string attribute of fixed length or in ASCII (h5py's
 * numpy bytes), and show --json stays JSON for a file name that is not UTF-8. */
START_TEST(test_other_encodings_read)
{
	char *out;

	ck_assert_int_eq(tu_shellf(&out, "cp tests/fuzz/results-corpus/quickstart.h5 %s/fixed.h5 && /usr/bin/python3 -c "
				  "'import h5py, numpy as np, sys\nf = h5py.File(sys.argv[1], \"r+\")\n"
				  "f[\"summary\"].attrs[\"machine\"] = np.bytes_(b\"small-1node\")\n"
				  "f[\"summary\"].attrs.create(\"kernel\", b\"linux-6.18\", dtype=h5py.string_dtype(\"ascii\"))\n"
				  /* a text column in ASCII was refused with a message about its rank */
				  "v = np.array(list(f[\"lines/description\"][:])); del f[\"lines/description\"]\n"
				  "f.create_dataset(\"lines/description\", data=v, dtype=h5py.string_dtype(\"ascii\", "
				  "length=v.dtype.itemsize))' %s/fixed.h5 && \"%s\" show %s/fixed.h5", dir, dir, tu_bin(), dir),
			 0);
	ck_assert_msg(strstr(out, "machine small-1node, kernel linux-6.18") &&
			      strstr(out, "private hash of process 0 bucket "), "%s", out);
	free(out);
	ck_assert_int_eq(tu_shellf(&out, "cp tests/fuzz/results-corpus/quickstart.h5 \"%s/bad$(printf '\\377\\303')name.h5\" && "
				  "\"%s\" show --json %s/bad*name.h5 | /usr/bin/python3 -c 'import json, sys\n"
				  "d = json.loads(sys.stdin.buffer.read())\nprint(len(d), d[0][\"file\"].encode(\"utf-8\"))'",
				  dir, tu_bin(), dir),
			 0);
	ck_assert_msg(strstr(out, "1 b'") && strstr(out, "bad\\xef\\xbf\\xbd\\xef\\xbf\\xbdname.h5"), "%s", out);
	free(out);
}
END_TEST

/* Paths that are not regular files, given where a result file belongs: refused at
 * once by every reader (a FIFO's open would block; a timeout(1) of 60 s turns a
 * block into a failure of the test, status 124, not a timing assertion). */
START_TEST(test_paths_refused)
{
	static const char *const readers[] = { "show", "show --json", "show --csv", "show --scenario", "explain", "c2c",
					       "compare tests/fuzz/results-corpus/quickstart.h5" };
	static const struct {
		const char *make, *name, *message;
	} paths[] = {
		{ "mkfifo %s/fifo.h5", "%s/fifo.h5", "a FIFO, not a result file" },
		{ "true", "/dev/null", "a character device, not a result file" },
		{ "mkdir -p %s/adir.h5", "%s/adir.h5", "a directory, not a result file" },
		{ "ln -sf loop2 %s/loop1.h5 && ln -sf loop1.h5 %s/loop2", "%s/loop1.h5", "Too many levels of symbolic links" },
		{ ": > %s/empty.h5", "%s/empty.h5", "not an HDF5 file" },
	};

	for (size_t p = 0; p < sizeof(paths) / sizeof(paths[0]); p++) {
		char make[512], name[256], *out;

		snprintf(make, sizeof(make), paths[p].make, dir, dir);
		snprintf(name, sizeof(name), paths[p].name, dir);
		ck_assert_int_eq(tu_shell(make, &out), 0);
		free(out);
		for (size_t k = 0; k < sizeof(readers) / sizeof(readers[0]); k++) {
			int status = tu_shellf(&out, "timeout 60 \"%s\" %s %s", tu_bin(), readers[k], name);

			ck_assert_msg(status == 3 && strstr(out, paths[p].message) && strstr(out, name), "%s %s: exit %d:\n%s",
				      readers[k], name, status, out);
			free(out);
		}
	}
}
END_TEST

/* compare DIR DIR: a FIFO named *.h5 in a directory is refused, never opened for
 * a blocking read. */
START_TEST(test_compare_dirs_fifo)
{
	char *out;
	int status = tu_shellf(&out, "mkdir -p %s/da %s/db && cp tests/fuzz/results-corpus/quickstart.h5 %s/da/ && "
				     "cp tests/fuzz/results-corpus/quickstart.h5 %s/db/a.h5 && mkfifo %s/db/b.h5 && "
				     "timeout 60 \"%s\" compare %s/da %s/db",
				     dir, dir, dir, dir, dir, tu_bin(), dir, dir);

	ck_assert_msg(status == 3 && strstr(out, "db/b.h5: a FIFO, not a result file"), "exit %d:\n%s", status, out);
	free(out);
}
END_TEST

/* The reader's child crashed or hung in libhdf5: the parent says so, naming the file
 * and what the reader was doing, for show and for show --csv (which reads a file
 * twice, but one refused once is not read again). */
START_TEST(test_child_failure_named)
{
	char *out;
	int status = tu_shellf(&out, LIMIT " \"%s\" show tests/fuzz/results-crashes/segv-in-libhdf5.h5", tu_bin());

	ck_assert_int_eq(status, 3);
	/* a signal, or under make sanitize ASan's report and exit */
	ck_assert_msg((strstr(out, "the HDF5 library crashed (signal ") || strstr(out, "the HDF5 library failed (exit ")) &&
		      strstr(out, " reading attribute format of /: a damaged file"), "%s", out);
	free(out);
	status = tu_shellf(&out, "FUTEXSIM_READ_TIMEOUT=2 \"%s\" show --csv tests/fuzz/results-crashes/"
			   "hang-in-libhdf5-attribute.h5 2>&1 >/dev/null", tu_bin());
	ck_assert_int_eq(status, 3);
	ck_assert_str_eq(out, "futexsim: tests/fuzz/results-crashes/hang-in-libhdf5-attribute.h5: the HDF5 library took "
			      "more than 2 s reading attribute format of /: a damaged file (FUTEXSIM_READ_TIMEOUT sets the "
			      "limit)\n");
	free(out);
}
END_TEST

/* A file that makes libhdf5 loop: refused once the child runs out of time. */
START_TEST(test_hang_is_cut)
{
	char *out;

	ck_assert_int_eq(tu_shellf(&out, "FUTEXSIM_READ_TIMEOUT=2 \"%s\" show "
				   "tests/fuzz/results-crashes/hang-in-libhdf5-attribute.h5", tu_bin()),
			 3);
	ck_assert_str_eq(out, "futexsim: tests/fuzz/results-crashes/hang-in-libhdf5-attribute.h5: the HDF5 library took "
			      "more than 2 s reading attribute format of /: a damaged file (FUTEXSIM_READ_TIMEOUT sets the "
			      "limit)\n");
	free(out);
}
END_TEST

/* Deterministic mutations (a 64-bit LCG): 1, 2, 4 or 16 random bytes set to random
 * values, and one in five also truncated at a random length. */
START_TEST(test_mutations)
{
	char valid[128], path[128], *out;
	unsigned char *src, *buf;
	long len;
	uint64_t x = 0x9e3779b97f4a7c15ull;
	FILE *f;

	snprintf(valid, sizeof(valid), "%s/valid.h5", dir);
	ck_assert_int_eq(tu_shellf(&out, "\"%s\" run scenarios/quickstart.yaml --set run.duration=100us "
				   "--set run.warmup=20us --set output.hottest_lines=2 -o %s", tu_bin(), valid),
			 0);
	free(out);
	f = fopen(valid, "rb");
	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	src = malloc((size_t)len);
	buf = malloc((size_t)len);
	ck_assert(src && buf && fread(src, 1, (size_t)len, f) == (size_t)len);
	fclose(f);
	snprintf(path, sizeof(path), "%s/m.h5", dir);
	for (int i = 0; i < 300; i++) {
		static const int flips[] = { 1, 2, 4, 16 };
		long n = len;

		memcpy(buf, src, (size_t)len);
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		for (int k = flips[(x >> 33) % 4]; k > 0; k--) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			buf[(x >> 24) % (uint64_t)len] = (unsigned char)(x >> 56);
		}
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		if ((x >> 40) % 5 == 0)
			n = (long)((x >> 8) % (uint64_t)len);
		f = fopen(path, "wb");
		ck_assert(f && fwrite(buf, 1, (size_t)n, f) == (size_t)n);
		fclose(f);
		show_refuses_or_reads(path, i % 10 == 0);
	}
	free(src);
	free(buf);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("damaged results");
	TCase *tc = tcase_create("damaged");
	int status;

	tu_mkdtemp(dir, "futexsim-damaged");
	tcase_add_test(tc, test_kept_inputs);
	tcase_add_test(tc, test_hang_is_cut);
	tcase_add_test(tc, test_link_loop_refused);
	tcase_add_loop_test(tc, test_lies_refused, 0, sizeof(lies) / sizeof(lies[0]));
	tcase_add_test(tc, test_other_encodings_read);
	tcase_add_test(tc, test_paths_refused);
	tcase_add_test(tc, test_compare_dirs_fifo);
	tcase_add_test(tc, test_child_failure_named);
	tcase_add_test(tc, test_mutations);
	/* guards against a hang of the test itself, not a timing assertion */
	tcase_set_timeout(tc, 600);
	suite_add_tcase(s, tc);
	status = tu_run_suite(s);
	tu_rmtree(dir);
	return status;
}
