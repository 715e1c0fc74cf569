/* SPDX-License-Identifier: MIT */
/* Damaged result files through the binary ($FUTEXSIM or bin/futexsim), as a user
 * meets them: every file of tests/fuzz/results-corpus/ and results-crashes/ (the
 * reader fuzz target's seeds, and inputs that crashed or hung a reader: one
 * makes libhdf5 itself loop, two make it segfault, found by make fuzz-results), then a few hundred byte flips and truncations of a
 * fresh result file. `show` (and `compare`) must refuse or read each one: exit 0 or
 * 3, never a signal, a sanitizer's exit or a hang. Under make sanitize the binary
 * is the ASan+UBSan build. */
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

/* A soft-link loop where the summary was: refused with libhdf5's own reason (taken
 * before any other library call clears it). */
START_TEST(test_link_loop_reason)
{
	char *out, path[128];

	snprintf(path, sizeof(path), "%s/links.h5", dir);
	ck_assert_int_eq(tu_shellf(&out, "cp tests/fuzz/results-corpus/quickstart.h5 %s && /usr/bin/python3 -c \"import "
				  "h5py; f = h5py.File('%s', 'r+'); del f['summary']; f['summary'] = h5py.SoftLink('/loop'); "
				  "f['loop'] = h5py.SoftLink('/summary')\" && \"%s\" show %s",
			    path, path, tu_bin(), path),
			 3);
	ck_assert_msg(strstr(out, "attribute scenario of summary (expected one string): special link traversal failed"),
		      "%s", out);
	free(out);
}
END_TEST

/* The file that makes libhdf5 loop: refused once the child runs out of time. */
START_TEST(test_hang_is_cut)
{
	char *out;

	ck_assert_int_eq(tu_shellf(&out, "FUTEXSIM_READ_TIMEOUT=2 \"%s\" show tests/fuzz/results-crashes/hang-in-libhdf5.h5",
				   tu_bin()),
			 3);
	ck_assert_str_eq(out, "futexsim: tests/fuzz/results-crashes/hang-in-libhdf5.h5: reading it took more than 2 s: "
			      "a damaged file (FUTEXSIM_READ_TIMEOUT sets the limit)\n");
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
	tcase_add_test(tc, test_link_loop_reason);
	tcase_add_test(tc, test_mutations);
	/* guards against a hang of the test itself, not a timing assertion */
	tcase_set_timeout(tc, 600);
	suite_add_tcase(s, tc);
	status = tu_run_suite(s);
	tu_rmtree(dir);
	return status;
}
