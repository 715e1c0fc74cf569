/* SPDX-License-Identifier: MIT */
/* Tests of analysis/collect and analysis/plot on a few small result files made here:
 * the table's columns, order and figures (against `futexsim show --csv` of each file),
 * its HDF5 twin, files it leaves out, the images of one run and of a sweep (size,
 * pixels, colours: tests/image_info.py), the formats, and bad input. Runs from the
 * checkout; FUTEXSIM names the binary. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/testutil.h"

#define PY "/usr/bin/python3 "
#define SHORT "--set run.duration=200us --set run.warmup=20us"

static char tmp[64];

static void assert_has(const char *out, const char *what)
{
	ck_assert_msg(strstr(out, what) != NULL, "expected '%s' in:\n%s", what, out);
}

/* Four runs, buckets 2 and 16 x seeds 1 and 2, two of them in a subdirectory, and
 * their table (runs/sweep.csv, .h5); made once for every test. */
static void make_runs(void)
{
	char cmd[4096];

	tu_mkdtemp(tmp, "futexsim-plot");
	/* system(), not tu_shell: Check's asserts work only inside a test */
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p %s/runs/sub && for b in 16 2; do for s in 2 1; do d=%s/runs; [ $s = 2 ] && d=$d/sub; "
		 "\"$FUTEXSIM\" run scenarios/quickstart.yaml --set kernel.private_hash.buckets=$b --seed $s " SHORT
		 " -o $d/b$b-s$s.h5 >/dev/null 2>&1 || exit 1; done; done && "
		 "/usr/bin/python3 analysis/collect %s/runs >/dev/null && cd %s && mkfifo fifo.h5 fifo.csv && "
		 /* tables that are no tables: a field over the csv module's limit, Latin-1, NaN only */
		 "/usr/bin/python3 -c 'import csv\nr = list(csv.reader(open(\"runs/sweep.csv\")))\n"
		 "w = lambda n, rows: csv.writer(open(n, \"w\", newline=\"\")).writerows(rows)\n"
		 "i = r[0].index(\"ops_per_sec\")\nw(\"allnan.csv\", [r[0]] + [x[:i] + [\"nan\"] + x[i + 1:] for x in r[1:]])\n"
		 "w(\"bigfield.csv\", [r[0]] + [[\"x\" * 200000] + r[1][1:]])\n"
		 "open(\"latin1.csv\", \"wb\").write(open(\"runs/sweep.csv\", \"rb\").read().replace(b\"quickstart\", "
		 "b\"quick\\xe9\"))'",
		 tmp, tmp, tmp, tmp);
	if (system(cmd) != 0) {
		fprintf(stderr, "check_plot: cannot make the result files with %s\n", cmd);
		exit(1);
	}
}

/* Damaged files: libhdf5 loops on one (tests/fuzz/results-crashes/), another is cut
 * short, a third has a soft-link loop where its summary was (refused as a soft link
 * before it is followed). collect leaves them out with a warning each and tabulates
 * the good one; plot refuses the looping one; neither dies or hangs (the reads run in a
 * child with a time limit, here 2 s). */
START_TEST(test_damaged_inputs)
{
	char *out;

	ck_assert_int_eq(tu_shellf(&out, "mkdir -p %s/damaged && cp %s/runs/b2-s1.h5 %s/damaged/good.h5 && "
				  "cp tests/fuzz/results-crashes/hang-in-libhdf5-attribute.h5 %s/damaged/loops.h5 && "
				  "head -c 4000 %s/runs/b16-s1.h5 > %s/damaged/cut.h5 && cp %s/runs/b2-s1.h5 %s/damaged/links.h5 && "
				  "/usr/bin/python3 -c \"import h5py; f = h5py.File('%s/damaged/links.h5', 'r+'); del f['summary']; "
				  "f['summary'] = h5py.SoftLink('/loop'); f['loop'] = h5py.SoftLink('/summary')\" && "
				  "FUTEXSIM_READ_TIMEOUT=2 /usr/bin/python3 analysis/collect %s/damaged",
			    tmp, tmp, tmp, tmp, tmp, tmp, tmp, tmp, tmp, tmp),
			 0);
	assert_has(out, "damaged/links.h5: /loop is a soft link to /summary: a result file holds all its objects itself");
	assert_has(out, "damaged/cut.h5 is not a futexsim result file: left out");
	assert_has(out, "damaged/loops.h5: reading it took more than 2 s: a damaged file");
	assert_has(out, "analysis/collect: 1 runs");
	free(out);
	ck_assert_int_eq(tu_shellf(&out, "FUTEXSIM_READ_TIMEOUT=2 /usr/bin/python3 analysis/plot run %s/damaged/loops.h5",
				   tmp),
			 1);
	assert_has(out, "analysis/plot: ");
	assert_has(out, "loops.h5: reading and plotting it took more than 12 s: a damaged file");
	free(out);
	ck_assert_int_eq(tu_shellf(&out, "ls %s/damaged | grep -c png", tmp), 1);
	free(out);
}
END_TEST

START_TEST(test_collect_table)
{
	char *out, *line, *save = NULL;
	/* sorted by buckets as numbers (2 before 16), then seed */
	const char *files[] = { "b2-s1.h5", "sub/b2-s2.h5", "b16-s1.h5", "sub/b16-s2.h5" };
	int row = 0;

	ck_assert_int_eq(tu_shellf(&out, PY "analysis/collect %s/runs", tmp), 0);
	assert_has(out, "4 runs, parameters: kernel.private_hash.buckets, run.duration, run.warmup; wrote");
	free(out);
	ck_assert_int_eq(tu_shellf(&out, "cat %s/runs/sweep.csv", tmp), 0);
	ck_assert_msg(strstr(out, "file,scenario,machine,kernel,workload,kernel.private_hash.buckets,run.duration,"
				  "run.warmup,seed,threads,warmup_s,window_s,ops_per_sec,stderr_pct,total_ops,"
				  "transfers_smt,transfers_node,transfers_remote,transfers_per_op,dram_fills\n") == out,
		      "%s", out);
	for (line = strtok_r(strchr(out, '\n') + 1, "\n", &save); line; line = strtok_r(NULL, "\n", &save), row++) {
		char *csv, prefix[256];
		char f[12][32], g[12][32];
		const char *scan = "%31[^,],%31[^,],%31[^,],%31[^,],%31[^,],%31[^,],%31[^,],%31[^,],%31[^,],%31[^,],"
				   "%31[^,],%31[^,\n]";

		ck_assert_int_lt(row, 4);
		snprintf(prefix, sizeof(prefix), "%s,quickstart,small-1node,linux-6.18,hash-bench,%s,200us,20us,", files[row],
			 row < 2 ? "2" : "16");
		ck_assert_msg(!strncmp(line, prefix, strlen(prefix)), "row %d: %s, expected it to start %s", row, line, prefix);
		/* the figures are the ones futexsim show --csv prints for the same file */
		ck_assert_int_eq(tu_shellf(&csv, "\"$FUTEXSIM\" show --csv %s/runs/%s | tail -n 1 | cut -d, -f6-17", tmp, files[row]),
				 0);
		ck_assert_int_eq(sscanf(csv, scan, f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9], f[10], f[11]),
				 12);
		ck_assert_int_eq(sscanf(line + strlen(prefix), scan, g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], g[8],
					g[9], g[10], g[11]),
				 12);
		for (int i = 0; i < 12; i++) {
			/* seconds, stderr_pct and transfers_per_op are decimals, printed
			 * differently (1.70 and 1.7); the counts must match to the digit */
			if (i == 2 || i == 3 || i == 5 || i == 10)
				ck_assert_msg(fabs(atof(f[i]) - atof(g[i])) <= 1e-9 * fabs(atof(f[i])), "row %d column %d: %s vs %s",
					      row, i, g[i], f[i]);
			else
				ck_assert_msg(!strcmp(f[i], g[i]), "row %d column %d: %s vs %s", row, i, g[i], f[i]);
		}
		free(csv);
	}
	ck_assert_int_eq(row, 4);
	free(out);
	/* the HDF5 table: same columns, typed, with units */
	ck_assert_int_eq(tu_shellf(&out, PY "-c 'import h5py, sys\n"
				     "f = h5py.File(sys.argv[1], \"r\"); t = f[\"table\"]\n"
				     "print(f.attrs[\"format\"], list(f.attrs[\"parameters\"]), len(f.attrs[\"columns\"]))\n"
				     "print(t[\"kernel.private_hash.buckets\"][:].tolist(), t[\"seed\"][:].tolist())\n"
				     "print(t[\"ops_per_sec\"].attrs[\"units\"], t[\"file\"].asstr()[0], t[\"warmup_s\"][0])' "
				     "%s/runs/sweep.h5",
			    tmp),
			 0);
	ck_assert_str_eq(out, "futexsim-sweep ['kernel.private_hash.buckets', 'run.duration', 'run.warmup'] 20\n"
			      "[2, 2, 16, 16] [1, 2, 1, 2]\n"
			      "ops/s b2-s1.h5 2e-05\n");
	free(out);
}
END_TEST

START_TEST(test_collect_leaves_out)
{
	char *out;

	/* an interrupted run and a file that is not a result: warnings, not rows */
	ck_assert_int_eq(tu_shellf(&out, "mkdir -p %s/mixed && cp %s/runs/b2-s1.h5 %s/runs/b16-s1.h5 %s/mixed/ && "
				  "echo junk >%s/mixed/junk.h5 && " TU_MARK_INCOMPLETE
				  "%s/mixed/b16-s1.h5 && " PY "analysis/collect %s/mixed -o %s/mixed/t && wc -l <%s/mixed/t.csv",
			    tmp, tmp, tmp, tmp, tmp, tmp, tmp, tmp, tmp),
			 0);
	assert_has(out, "b16-s1.h5 is marked incomplete (an interrupted run): left out");
	assert_has(out, "junk.h5 is not a futexsim result file: left out");
	assert_has(out, "1 runs, parameters: kernel.private_hash.buckets");
	assert_has(out, "\n2\n"); /* header and one row */
	free(out);
	ck_assert_int_eq(tu_shellf(&out, "mkdir -p %s/empty && " PY "analysis/collect %s/empty", tmp, tmp), 1);
	assert_has(out, "no complete futexsim result files under");
	free(out);
	ck_assert_int_eq(tu_shellf(&out, PY "analysis/collect %s/nonexistent", tmp), 2);
	assert_has(out, "nonexistent: not a directory");
	free(out);
}
END_TEST

/* Files that lie or are no files (issue 38), beside a sound one: each left out with
 * why, as futexsim's reader refuses it; the table is written for the sound one; no
 * traceback (a non-UTF-8 attribute once lost the whole table, an infinite total_ops
 * traced back), no block on a FIFO named *.h5 (timeout(1) turns one into a failure). */
static const struct {
	const char *name, *python, *why;
} lies[] = {
	{ "ext", "del f['threads']; f['threads'] = h5py.ExternalLink(good, '/threads')", "/threads is an external link to " },
	{ "soft", "del f['threads']; f['threads'] = h5py.SoftLink('/lines')", "/threads is a soft link to /lines" },
	{ "nan", "del f['summary/total_ops']; f['summary/total_ops'] = np.float64('nan')",
	  "dataset summary/total_ops holds nan" },
	{ "inf", "del f['summary/total_ops']; f['summary/total_ops'] = np.float64('inf')",
	  "dataset summary/total_ops holds inf" },
	{ "neg", "del f['summary/ops_per_sec']; f['summary/ops_per_sec'] = np.int64(-5)",
	  "dataset summary/ops_per_sec holds -5" },
	{ "utf8", "f['summary'].attrs.create('machine', data=b'small\\xff', dtype=h5py.string_dtype('utf-8'))",
	  "attribute machine of summary is not UTF-8 text" },
	{ "esc", "f['summary'].attrs['kernel'] = 'linux\\x1b[2J'", "attribute kernel of summary holds a control character" },
	{ "huge", "f['summary'].attrs['kernel'] = 'x' * (1 << 20)", "attribute kernel of summary is 1048576 characters long" },
	{ "total", "f['summary/total_ops'][()] = 12345", "summary/total_ops is 12345, but the " },
	{ "incomplete7", "f.attrs['incomplete'] = np.int32(7)", "attribute incomplete of / is 7, not 0 or 1" },
};

START_TEST(test_collect_lies)
{
	char *out, path[256];
	FILE *py;

	snprintf(path, sizeof(path), "%s/lies.py", tmp);
	py = fopen(path, "w");
	ck_assert_ptr_nonnull(py);
	fprintf(py, "import h5py, numpy as np, shutil, sys\nd, good = sys.argv[1], sys.argv[2]\n");
	for (size_t i = 0; i < sizeof(lies) / sizeof(lies[0]); i++)
		fprintf(py, "shutil.copy(good, d + '/%s.h5')\nf = h5py.File(d + '/%s.h5', 'r+')\n%s\nf.close()\n",
			lies[i].name, lies[i].name, lies[i].python);
	fclose(py);
	ck_assert_int_eq(tu_shellf(&out, "mkdir -p %s/lies && cp %s/runs/b2-s1.h5 %s/lies/good.h5 && " PY "%s %s/lies "
				  "%s/lies/good.h5 && cd %s/lies && mkfifo fifo.h5 && ln -s nowhere dangling.h5 && "
				  "ln -s loop.h5 loop.h5 && timeout 60 " PY "%s/analysis/collect . -o t; echo \"rc=$?\"; wc -l <t.csv",
				  tmp, tmp, tmp, path, tmp, tmp, tmp, getenv("PWD")),
			 0);
	for (size_t i = 0; i < sizeof(lies) / sizeof(lies[0]); i++) {
		char what[512];

		snprintf(what, sizeof(what), "./%s.h5: %s", lies[i].name, lies[i].why);
		assert_has(out, what);
	}
	assert_has(out, "./fifo.h5: a FIFO, not a result file: left out");
	assert_has(out, "./dangling.h5: no such file: left out");
	assert_has(out, "cannot read ./loop.h5: Too many levels of symbolic links: left out");
	assert_has(out, "analysis/collect: 1 runs");
	assert_has(out, "rc=0\n2\n"); /* header and the sound run */
	ck_assert_ptr_null(strstr(out, "Traceback"));
	free(out);
	/* the table never over one of the result files it read (-o DIR/RUN wrote DIR/RUN.h5) */
	ck_assert_int_eq(tu_shellf(&out, "cd %s/lies && cp good.h5 keep.h5 && " PY "%s/analysis/collect . -o good; "
				  "echo \"rc=$?\"; cmp good.h5 keep.h5 && ! test -e good.csv", tmp, getenv("PWD")),
			 0);
	assert_has(out, "analysis/collect: -o good: good.h5 is one of the files read (./good.h5); choose another PREFIX\nrc=1");
	free(out);
	/* a read limit of inf is none given (select(2) takes no infinite timeout) */
	ck_assert_int_eq(tu_shellf(&out, "FUTEXSIM_READ_TIMEOUT=inf " PY "analysis/plot run %s/lies/good.h5 -o %s/lies/inf",
				   tmp, tmp),
			 0);
	assert_has(out, "wrote ");
	free(out);
}
END_TEST

/* A full disk (here: the file size limit, with SIGXFSZ ignored, so writes fail with
 * EFBIG as they would with ENOSPC): libhdf5 crashes on the failed write, in a child;
 * collect says so, exits 1, and leaves the earlier table, both files, as it was and
 * no temporary behind. */
START_TEST(test_collect_full_disk)
{
	char *out;

	ck_assert_int_eq(tu_shellf(&out, "mkdir -p %s/full && cp %s/runs/b2-s1.h5 %s/runs/b16-s1.h5 %s/full/ && "
				  "echo old >%s/full/t.csv && echo old >%s/full/t.h5 && "
				  "(trap '' XFSZ; ulimit -f 8; " PY "analysis/collect %s/full -o %s/full/t); echo rc=$?; "
				  "cat %s/full/t.csv %s/full/t.h5; ls -A %s/full | grep -c tmp",
			    tmp, tmp, tmp, tmp, tmp, tmp, tmp, tmp, tmp, tmp, tmp),
			 1); /* grep -c finds no temporary: exit 1 */
	assert_has(out, "analysis/collect: cannot write ");
	assert_has(out, "rc=1\nold\nold\n0\n");
	ck_assert_ptr_null(strstr(out, "Traceback"));
	free(out);
}
END_TEST

/* "FILE W H COLOURS": at least min_w x min_h pixels and more than a handful of colours */
static void assert_image(const char *info, const char *file, int min_w, int min_h)
{
	char key[128];
	const char *at;
	int w = 0, h = 0, colours = 0;

	snprintf(key, sizeof(key), "%s ", file); /* the info line, not "wrote FILE" */
	at = strstr(info, key);

	ck_assert_msg(at != NULL, "no %s in:\n%s", file, info);
	ck_assert_msg(sscanf(at + strlen(file), " %d %d %d", &w, &h, &colours) == 3, "%s: not a PNG:\n%s", file, info);
	ck_assert_msg(w >= min_w && h >= min_h, "%s: %d x %d pixels", file, w, h);
	ck_assert_msg(colours >= 50, "%s: %d colours: blank or nearly", file, colours);
}

START_TEST(test_plot_run)
{
	char *out;

	ck_assert_int_eq(tu_shellf(&out, PY "analysis/plot run %s/runs/b16-s1.h5 -o %s/run && "
				     "tests/image_info.py %s/run-throughput.png %s/run-lines.png %s/run-nodes.png "
				     "%s/run-transfers.png",
			    tmp, tmp, tmp, tmp, tmp, tmp),
			 0);
	assert_image(out, "run-throughput.png", 800, 400);
	assert_image(out, "run-transfers.png", 800, 400);
	assert_image(out, "run-lines.png", 800, 800);
	assert_image(out, "run-nodes.png", 400, 400);
	free(out);
	/* default prefix: beside the file; SVG on request */
	ck_assert_int_eq(tu_shellf(&out, PY "analysis/plot run %s/runs/b2-s1.h5 --format svg && tests/image_info.py "
				     "%s/runs/b2-s1-throughput.svg %s/runs/b2-s1-lines.svg %s/runs/b2-s1-nodes.svg",
			    tmp, tmp, tmp, tmp),
			 0);
	assert_has(out, "b2-s1-throughput.svg svg\n");
	assert_has(out, "b2-s1-lines.svg svg\n");
	assert_has(out, "b2-s1-nodes.svg svg\n");
	free(out);
	/* two designs side by side; a file that is not a result is refused by name */
	ck_assert_int_eq(tu_shellf(&out, PY "analysis/plot compare %s/runs/b2-s1.h5 %s/runs/b16-s1.h5 -o %s/cmp.png && "
				     "tests/image_info.py %s/cmp.png",
			    tmp, tmp, tmp, tmp),
			 0);
	assert_image(out, "cmp.png", 1000, 400);
	free(out);
	/* -o without an extension: PNG, as OUT.png (issue 36: it was refused) */
	ck_assert_int_eq(tu_shellf(&out, "rm %s/cmp.png && " PY "analysis/plot compare %s/runs/b2-s1.h5 %s/runs/b16-s1.h5 -o %s/cmp && "
				     "tests/image_info.py %s/cmp.png && ! ls %s/cmp",
			    tmp, tmp, tmp, tmp, tmp, tmp),
			 0);
	assert_image(out, "cmp.png", 1000, 400);
	free(out);
	ck_assert_int_eq(tu_shellf(&out, PY "analysis/plot compare %s/runs/b2-s1.h5 %s/runs/sweep.csv -o %s/cmp2.png",
				   tmp, tmp, tmp),
			 1);
	assert_has(out, "sweep.csv: not an HDF5 file");
	free(out);
	/* hash-bench has no latency histogram: no latency figure */
	ck_assert_int_eq(tu_shellf(&out, "ls %s/run-latency.png", tmp), 2);
	free(out);
	/* a blocking workload: its latency distribution too */
	ck_assert_int_eq(tu_shellf(&out, "\"$FUTEXSIM\" run scenarios/workloads/mutex.yaml " SHORT " -q -o %s/mutex.h5 && "
				     PY "analysis/plot run %s/mutex.h5 && tests/image_info.py %s/mutex-latency.png",
			    tmp, tmp, tmp),
			 0);
	assert_has(out, "wrote ");
	assert_image(out, "mutex-latency.png", 800, 400);
	free(out);
}
END_TEST

START_TEST(test_plot_sweep)
{
	char *out;

	ck_assert_int_eq(tu_shellf(&out, PY "analysis/collect %s/runs -o %s/table && "
				     "printf '# published\\nbuckets,a,b\\n0,1.5e6,1e6\\n2,1e6,2e6\\n16,2e6,1e6\\n' >%s/pub.csv && " PY
				     "analysis/plot sweep %s/table.h5 --published %s/pub.csv:a -o %s/sweep.png && " PY
				     "analysis/plot sweep %s/table.csv --published %s/pub.csv -o %s/sweep.pdf && "
				     "tests/image_info.py %s/sweep.png %s/sweep.pdf",
			    tmp, tmp, tmp, tmp, tmp, tmp, tmp, tmp, tmp, tmp, tmp),
			 0);
	assert_image(out, "sweep.png", 800, 500);
	assert_has(out, "sweep.pdf pdf\n");
	free(out);
}
END_TEST

/* Bad input: exit 1 (input) or 2 (command line) and a message naming the problem. */
static const struct {
	const char *args, *message;
	int status;
} bad[] = {
	{ "sweep @/runs/b2-s1.h5", "not a sweep table", 1 },
	{ "sweep @/nonexistent.csv", "nonexistent.csv: no such file", 1 },
	{ "sweep @/runs/sweep.csv --x run.seed", "--x run.seed: not a parameter of the table", 1 },
	{ "sweep @/runs/sweep.csv --y nosuch", "--y nosuch: no such column", 1 },
	{ "sweep @/runs/sweep.csv --published @/nonexistent.csv", "nonexistent.csv: no such file", 1 },
	/* paths that are no files: refused at once, said what they are (issue 38: "no
	 * such file"), a FIFO never opened for a blocking read */
	{ "run @/fifo.h5", "fifo.h5: a FIFO, not a result file", 1 },
	{ "run /dev/null", "/dev/null: a character device, not a result file", 1 },
	{ "run @/runs", "runs: a directory, not a result file", 1 },
	{ "compare @/runs/b2-s1.h5 @/fifo.h5", "fifo.h5: a FIFO, not a result file", 1 },
	{ "sweep @/fifo.h5", "fifo.h5: a FIFO, not a sweep table", 1 },
	{ "sweep @/fifo.csv", "fifo.csv: a FIFO, not a sweep table", 1 },
	{ "sweep @/runs/sweep.csv --published @/fifo.csv", "--published @/fifo.csv: a FIFO, not a CSV file", 1 },
	/* tables that are not (issue 38: tracebacks): a field over the csv module's limit,
	 * bytes that are not UTF-8, a column of NaN only */
	{ "sweep @/bigfield.csv", "bigfield.csv: not a table from analysis/collect (field larger than field limit", 1 },
	{ "sweep @/latin1.csv", "latin1.csv: not a table from analysis/collect (not UTF-8 text", 1 },
	{ "sweep @/allnan.csv --y ops_per_sec", "--y ops_per_sec: no run has a number in that column", 1 },
	{ "sweep @/runs/sweep.csv --published README.md:x", "README.md: no column x", 1 },
	{ "sweep @/runs/sweep.csv -o @/x.txt", "the extension names no format", 2 },
	{ "run @/runs/sweep.csv", "sweep.csv: not an HDF5 file", 1 },
	{ "run @/runs/sweep.h5", "not a futexsim result file", 1 },
	{ "frob", "invalid choice", 2 },
	/* an output that cannot be written is named as the output, not the input */
	{ "run @/runs/b2-s1.h5 -o @/nonexistent/x", "nonexistent/x-throughput.png: No such file", 1 },
};

START_TEST(test_plot_bad_input)
{
	char args[512], *out, *p = args;

	/* @ stands for the temporary directory */
	for (const char *a = bad[_i].args; *a && p < args + sizeof(args) - sizeof(tmp) - 1; a++)
		p = *a == '@' ? stpcpy(p, tmp) : (*p = *a, p + 1);
	*p = '\0';
	ck_assert_int_eq(tu_shellf(&out, "timeout 30 " PY "analysis/plot %s", args), bad[_i].status);
	{
		char message[512], *m = message;

		for (const char *a = bad[_i].message; *a && m < message + sizeof(message) - sizeof(tmp) - 1; a++)
			m = *a == '@' ? stpcpy(m, tmp) : (*m = *a, m + 1);
		*m = '\0';
		ck_assert_msg(strstr(out, message) != NULL, "%s: expected '%s' in:\n%s", args, message, out);
	}
	ck_assert_ptr_null(strstr(out, "Traceback"));
	free(out);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("plot");
	TCase *tc = tcase_create("collect");
	TCase *plot = tcase_create("plot");
	int status;

	make_runs(); /* before the forks: every test reads the same files */
	tcase_add_test(tc, test_collect_table);
	tcase_add_test(tc, test_collect_leaves_out);
	tcase_add_test(tc, test_collect_lies);
	tcase_add_test(tc, test_collect_full_disk);
	/* guards against a hang, not timing assertions */
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	tcase_add_test(plot, test_plot_run);
	tcase_add_test(plot, test_plot_sweep);
	tcase_add_loop_test(plot, test_plot_bad_input, 0, sizeof(bad) / sizeof(bad[0]));
	tcase_add_test(plot, test_damaged_inputs);
	tcase_set_timeout(plot, 60);
	suite_add_tcase(s, plot);
	status = tu_run_suite(s);
	tu_rmtree(tmp);
	return status;
}
