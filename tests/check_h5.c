/* SPDX-License-Identifier: MIT */
/* Tests of the result file (docs/results-format.md), through bin/futexsim and
 * read back with the HDF5 C API: datasets, shapes and units; the time series
 * adds up to the summary; two runs of one scenario and seed give identical
 * datasets; h5dump and h5py read the file; `futexsim show` prints what the run
 * printed; SIGINT and SIGTERM leave a valid file marked incomplete; an
 * unwritable place or a full disk leave no file and exit 4. */
#include <check.h>
#include <dirent.h>
#include <hdf5.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "models/task.h"
#include "tests/testutil.h"

/* 200us in 30us intervals: 7 rows, the last 20us long. */
#define QUICK "scenarios/quickstart.yaml --set run.duration=200us --set run.warmup=20us --set output.interval=30us"
#define QUICK_ROWS 7
#define QUICK_THREADS 8

/* ---- helpers ------------------------------------------------------------------ */

/* Names in `dir` (one per line), for "nothing else was left behind". */
static char *list_dir(const char *dir)
{
	char cmd[512], *out;

	snprintf(cmd, sizeof(cmd), "ls -A '%s'", dir);
	ck_assert_int_eq(tu_shell(cmd, &out), 0);
	return out;
}

/* Runs the binary with `args`, output file `file` in `dir`; returns its stdout+stderr. */
static char *run_to(const char *dir, const char *file, const char *args, int expect_status)
{
	char cmd[2048], *out;

	snprintf(cmd, sizeof(cmd), "run %s -o '%s/%s'", args, dir, file);
	ck_assert_int_eq(tu_futexsim(cmd, &out), expect_status);
	return out;
}

static hid_t open_h5(const char *dir, const char *file)
{
	char path[512];
	hid_t f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	ck_assert_msg(f >= 0, "cannot open %s", path);
	return f;
}

/* A dataset of integers as uint64; its shape in dims (rank returned). */
static uint64_t *read_u64(hid_t f, const char *name, int *rank, hsize_t dims[2])
{
	hid_t d = H5Dopen2(f, name, H5P_DEFAULT), space;
	hsize_t n = 1;
	uint64_t *v;

	ck_assert_msg(d >= 0, "no dataset %s", name);
	space = H5Dget_space(d);
	*rank = H5Sget_simple_extent_ndims(space);
	dims[0] = dims[1] = 1;
	H5Sget_simple_extent_dims(space, dims, NULL);
	for (int i = 0; i < *rank; i++)
		n *= dims[i];
	v = calloc(n ? n : 1, sizeof(*v));
	ck_assert_ptr_nonnull(v);
	if (n)
		ck_assert_int_ge(H5Dread(d, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v), 0);
	H5Sclose(space);
	H5Dclose(d);
	return v;
}

static uint64_t scalar_u64(hid_t f, const char *name)
{
	int rank;
	hsize_t dims[2];
	uint64_t *v = read_u64(f, name, &rank, dims), x;

	ck_assert_int_eq(rank, 0);
	x = v[0];
	free(v);
	return x;
}

/* A variable-length string attribute (malloc'd). */
static char *attr_text(hid_t f, const char *obj, const char *name)
{
	hid_t a = H5Aopen_by_name(f, obj, name, H5P_DEFAULT, H5P_DEFAULT), t = H5Tcopy(H5T_C_S1);
	char *v = NULL, *copy;

	ck_assert_msg(a >= 0, "no attribute %s on %s", name, obj);
	H5Tset_size(t, H5T_VARIABLE);
	H5Tset_cset(t, H5T_CSET_UTF8);
	ck_assert_int_ge(H5Aread(a, t, &v), 0);
	copy = strdup(v);
	H5free_memory(v);
	H5Tclose(t);
	H5Aclose(a);
	return copy;
}

static long long attr_int(hid_t f, const char *obj, const char *name)
{
	hid_t a = H5Aopen_by_name(f, obj, name, H5P_DEFAULT, H5P_DEFAULT);
	long long v = 0;

	ck_assert_msg(a >= 0, "no attribute %s on %s", name, obj);
	ck_assert_int_ge(H5Aread(a, H5T_NATIVE_LLONG, &v), 0);
	H5Aclose(a);
	return v;
}

/* A fixed-length string dataset element as a malloc'd string. */
static char *text_at(hid_t f, const char *name, hsize_t i)
{
	hid_t d = H5Dopen2(f, name, H5P_DEFAULT), t = H5Dget_type(d), space = H5Dget_space(d);
	size_t len = H5Tget_size(t);
	hsize_t dims[1] = { 1 };
	int rank = H5Sget_simple_extent_ndims(space);
	char *buf, *out;

	if (rank)
		H5Sget_simple_extent_dims(space, dims, NULL);
	ck_assert_uint_lt(i, dims[0]);
	buf = calloc(dims[0], len);
	ck_assert_ptr_nonnull(buf);
	ck_assert_int_ge(H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf), 0);
	out = strndup(buf + i * len, len);
	free(buf);
	H5Sclose(space);
	H5Tclose(t);
	H5Dclose(d);
	return out;
}

/* ---- contents ------------------------------------------------------------------ */

static const struct {
	const char *name, *units;
	int rank;
	hsize_t dim0, dim1; /* 0: checked elsewhere */
} expected_datasets[] = {
	{ "provenance/scenario_given", "text", 0, 0, 0 },
	{ "provenance/scenario_resolved", "text", 0, 0, 0 },
	{ "provenance/overrides", "text", 1, 4, 0 },
	{ "provenance/command_line", "text", 1, 13, 0 },
	/* the --set values typed: numbers as numbers, the rest as text */
	{ "provenance/parameters/run.duration", "text", 0, 0, 0 },
	{ "provenance/parameters/run.warmup", "text", 0, 0, 0 },
	{ "provenance/parameters/output.interval", "text", 0, 0, 0 },
	{ "provenance/parameters/workload.futexes", "as set", 0, 0, 0 },
	{ "summary/ops_per_sec", "ops/s", 0, 0, 0 },
	{ "summary/ops_per_sec_stderr", "percent", 0, 0, 0 },
	{ "summary/total_ops", "count", 0, 0, 0 },
	{ "summary/simulated_ops", "count", 0, 0, 0 },
	{ "summary/dram_fills", "count", 0, 0, 0 },
	{ "summary/directory_reads", "count", 0, 0, 0 },
	{ "summary/warmup", "ps", 0, 0, 0 },
	{ "summary/window", "ps", 0, 0, 0 },
	{ "summary/perf_header", "text", 0, 0, 0 },
	{ "summary/kernel_work_steps", "ps", 1, STEP_NSTEPS, 0 },
	{ "summary/transfers", "count", 1, 3, 0 },
	{ "summary/node_transfers", "count", 2, 1, 1 },
	{ "threads/id", "id", 1, QUICK_THREADS, 0 },
	{ "threads/cpu", "id", 1, QUICK_THREADS, 0 },
	{ "threads/node", "id", 1, QUICK_THREADS, 0 },
	{ "threads/ops", "count", 1, QUICK_THREADS, 0 },
	{ "threads/ops_per_sec", "ops/s", 1, QUICK_THREADS, 0 },
	{ "threads/perf_line", "text", 1, QUICK_THREADS, 0 },
	{ "threads/futex_calls", "count", 1, QUICK_THREADS, 0 },
	{ "threads/wakeups", "count", 1, QUICK_THREADS, 0 },
	{ "threads/chain_walked", "count", 1, QUICK_THREADS, 0 },
	{ "threads/requeued", "count", 1, QUICK_THREADS, 0 },
	{ "threads/context_switches", "count", 1, QUICK_THREADS, 0 },
	{ "threads/blocked", "ps", 1, QUICK_THREADS, 0 },
	{ "threads/time", "ps", 2, QUICK_THREADS, TC_NCLASSES },
	{ "timeseries/time", "ps", 1, QUICK_ROWS, 0 },
	{ "timeseries/ops", "count", 2, QUICK_ROWS, QUICK_THREADS },
	{ "timeseries/transfers", "count", 2, QUICK_ROWS, 3 },
	{ "lines/line", "id", 1, 0, 0 },
	{ "lines/address", "address", 1, 0, 0 },
	{ "lines/home_node", "id", 1, 0, 0 },
	{ "lines/description", "text", 1, 0, 0 },
	{ "lines/object", "text", 1, 0, 0 },
	{ "lines/element", "text", 1, 0, 0 },
	{ "lines/first", "id", 1, 0, 0 },
	{ "lines/last", "id", 1, 0, 0 },
	{ "lines/fields", "text", 1, 0, 0 },
	{ "lines/mixed", "bool", 1, 0, 0 },
	{ "lines/reads", "count", 1, 0, 0 },
	{ "lines/writes", "count", 1, 0, 0 },
	{ "lines/fills", "count", 1, 0, 0 },
	{ "lines/queued", "ps", 1, 0, 0 },
	{ "lines/transfers", "count", 2, 0, 3 },
	{ "tables/name", "text", 1, 0, 0 },
	{ "tables/hash", "text", 1, 0, 0 },
	{ "tables/size", "count", 1, 0, 0 },
	{ "tables/node", "id", 1, 0, 0 },
	{ "tables/first_bucket", "id", 1, 0, 0 },
	{ "tables/futexes", "count", 1, 0, 0 },
	{ "tables/collisions", "count", 1, 0, 0 },
	{ "buckets/table", "id", 1, 0, 0 },
	{ "buckets/bucket", "id", 1, 0, 0 },
	{ "buckets/hashed", "count", 1, 0, 0 },
	{ "buckets/acquisitions", "count", 1, 0, 0 },
	{ "buckets/contended", "count", 1, 0, 0 },
	{ "buckets/wait", "ps", 1, 0, 0 },
};

/* Counts the datasets of the file, to see that the list above is complete. */
static herr_t count_dataset(hid_t obj, const char *name, const H5O_info_t *info, void *data)
{
	(void)obj;
	(void)name;
	if (info->type == H5O_TYPE_DATASET)
		++*(size_t *)data;
	return 0;
}

START_TEST(test_datasets_shapes_units)
{
	char dir[64], *out;
	hid_t f;
	size_t ndatasets = 0;

	tu_mkdtemp(dir, "futexsim-h5");
	out = run_to(dir, "a.h5", QUICK " --set workload.futexes=64", 0);
	free(out);
	f = open_h5(dir, "a.h5");
	for (size_t i = 0; i < sizeof(expected_datasets) / sizeof(expected_datasets[0]); i++) {
		const char *name = expected_datasets[i].name;
		hid_t d = H5Dopen2(f, name, H5P_DEFAULT), space;
		hsize_t dims[2] = { 0, 0 };
		char *units;

		ck_assert_msg(d >= 0, "no dataset %s", name);
		space = H5Dget_space(d);
		ck_assert_msg(H5Sget_simple_extent_ndims(space) == expected_datasets[i].rank, "%s rank", name);
		H5Sget_simple_extent_dims(space, dims, NULL);
		if (expected_datasets[i].dim0)
			ck_assert_msg(dims[0] == expected_datasets[i].dim0, "%s: %llu rows", name,
				      (unsigned long long)dims[0]);
		if (expected_datasets[i].dim1)
			ck_assert_msg(dims[1] == expected_datasets[i].dim1, "%s: %llu columns", name,
				      (unsigned long long)dims[1]);
		units = attr_text(f, name, "units");
		ck_assert_msg(strcmp(units, expected_datasets[i].units) == 0, "%s: units %s", name, units);
		free(units);
		H5Sclose(space);
		H5Dclose(d);
	}
	H5Ovisit(f, H5_INDEX_NAME, H5_ITER_INC, count_dataset, &ndatasets);
	ck_assert_uint_eq(ndatasets, sizeof(expected_datasets) / sizeof(expected_datasets[0]));
	{
		char *format = attr_text(f, "/", "format");

		ck_assert_str_eq(format, "futexsim-results");
		free(format);
	}
	ck_assert_int_eq(attr_int(f, "/", "format_version"), 1);
	ck_assert_int_eq(attr_int(f, "/", "incomplete"), 0);
	ck_assert_int_eq(attr_int(f, "timeseries", "interval_ps"), 30000000);
	ck_assert_int_eq(attr_int(f, "timeseries", "start_ps"), 20000000);
	ck_assert_int_eq(attr_int(f, "provenance", "seed"), 1);
	{
		hid_t d = H5Dopen2(f, "provenance/parameters/workload.futexes", H5P_DEFAULT), t = H5Dget_type(d);
		long long v = 0;

		ck_assert_int_eq(H5Tget_class(t), H5T_INTEGER);
		ck_assert_int_ge(H5Dread(d, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, &v), 0);
		ck_assert_int_eq(v, 64);
		H5Tclose(t);
		H5Dclose(d);
	}
	/* the time series is chunked, compressed and can grow */
	{
		hid_t d = H5Dopen2(f, "timeseries/ops", H5P_DEFAULT), dcpl = H5Dget_create_plist(d);
		hid_t space = H5Dget_space(d);
		hsize_t maxdims[2];
		unsigned flags, cd[8];
		size_t ncd = 8;

		ck_assert_int_eq(H5Pget_layout(dcpl), H5D_CHUNKED);
		H5Sget_simple_extent_dims(space, NULL, maxdims);
		ck_assert(maxdims[0] == H5S_UNLIMITED);
		ck_assert_int_eq(H5Pget_nfilters(dcpl), 2);
		ck_assert_int_eq(H5Pget_filter2(dcpl, 0, &flags, &ncd, cd, 0, NULL, NULL), H5Z_FILTER_SHUFFLE);
		ncd = 8;
		ck_assert_int_eq(H5Pget_filter2(dcpl, 1, &flags, &ncd, cd, 0, NULL, NULL), H5Z_FILTER_DEFLATE);
		H5Sclose(space);
		H5Pclose(dcpl);
		H5Dclose(d);
	}
	H5Fclose(f);
	tu_rmtree(dir);
}
END_TEST

/* Per-interval sums equal the summary's totals; the per-thread rates, the
 * mean, the buckets and the provenance agree with what was asked for. */
START_TEST(test_sums_and_figures)
{
	char dir[64], *out, *text;
	hid_t f;
	int rank;
	hsize_t dims[2], tdims[2], ldims[2], bdims[2];
	uint64_t *ops, *thread_ops, *rate, *xfer, *total_xfer, *time, *lxfer, *hashed, *tfutex, *tcoll, *tsize, *tfirst;
	uint64_t sum_ops = 0, sum_rate = 0, window;
	struct stat st;

	tu_mkdtemp(dir, "futexsim-h5");
	out = run_to(dir, "a.h5", QUICK, 0);
	free(out);
	f = open_h5(dir, "a.h5");
	ops = read_u64(f, "timeseries/ops", &rank, dims);
	thread_ops = read_u64(f, "threads/ops", &rank, tdims);
	rate = read_u64(f, "threads/ops_per_sec", &rank, tdims);
	window = scalar_u64(f, "summary/window");
	ck_assert_uint_eq(window, 200000000);
	for (hsize_t t = 0; t < dims[1]; t++) {
		uint64_t sum = 0;

		for (hsize_t i = 0; i < dims[0]; i++)
			sum += ops[i * dims[1] + t];
		ck_assert_uint_eq(sum, thread_ops[t]);
		ck_assert_uint_gt(sum, 0);
		sum_ops += sum;
		/* perf: ops / seconds, truncated */
		ck_assert_uint_eq(rate[t], thread_ops[t] * 1000000000000ull / window);
		sum_rate += rate[t];
	}
	ck_assert_uint_eq(sum_ops, scalar_u64(f, "summary/total_ops"));
	ck_assert_uint_eq(scalar_u64(f, "summary/ops_per_sec"), sum_rate / tdims[0]);

	xfer = read_u64(f, "timeseries/transfers", &rank, dims);
	total_xfer = read_u64(f, "summary/transfers", &rank, tdims);
	lxfer = read_u64(f, "lines/transfers", &rank, ldims);
	for (int c = 0; c < 3; c++) {
		uint64_t sum = 0, lines = 0;

		for (hsize_t i = 0; i < dims[0]; i++)
			sum += xfer[i * 3 + c];
		for (hsize_t l = 0; l < ldims[0]; l++)
			lines += lxfer[l * 3 + c];
		ck_assert_uint_eq(sum, total_xfer[c]);
		ck_assert_uint_eq(lines, total_xfer[c]);
	}
	ck_assert_uint_gt(total_xfer[1], 0);
	ck_assert_uint_eq(total_xfer[2], 0); /* one node */
	time = read_u64(f, "timeseries/time", &rank, dims);
	for (hsize_t i = 0; i < dims[0]; i++)
		ck_assert_uint_eq(time[i], 20000000 + i * 30000000);

	/* 8 threads x 1024 futexes hashed, each into one bucket of one table */
	hashed = read_u64(f, "buckets/hashed", &rank, bdims);
	tfutex = read_u64(f, "tables/futexes", &rank, dims);
	tcoll = read_u64(f, "tables/collisions", &rank, dims);
	tsize = read_u64(f, "tables/size", &rank, dims);
	tfirst = read_u64(f, "tables/first_bucket", &rank, dims);
	{
		uint64_t all = 0, rows = 0;

		for (hsize_t t = 0; t < dims[0]; t++) {
			uint64_t used = 0, n = 0;

			ck_assert_uint_eq(tfirst[t], rows);
			for (uint64_t b = 0; b < tsize[t]; b++) {
				n += hashed[tfirst[t] + b];
				used += hashed[tfirst[t] + b] != 0;
			}
			ck_assert_uint_eq(n, tfutex[t]);
			ck_assert_uint_eq(tcoll[t], n - used);
			rows += tsize[t];
			all += n;
		}
		ck_assert_uint_eq(rows, bdims[0]);
		ck_assert_uint_eq(all, 8 * 1024);
	}

	/* provenance: the file as given, byte for byte */
	text = text_at(f, "provenance/scenario_given", 0);
	ck_assert_int_eq(stat("scenarios/quickstart.yaml", &st), 0);
	ck_assert_uint_eq(strlen(text), (size_t)st.st_size);
	ck_assert_ptr_nonnull(strstr(text, "name: quickstart"));
	free(text);
	text = text_at(f, "provenance/scenario_resolved", 0);
	ck_assert_ptr_nonnull(strstr(text, "interval: 30us"));
	ck_assert_ptr_nonnull(strstr(text, "aslr: true")); /* a default, recorded */
	free(text);
	text = text_at(f, "provenance/overrides", 2);
	ck_assert_str_eq(text, "output.interval=30us");
	free(text);
	text = text_at(f, "provenance/command_line", 1);
	ck_assert_str_eq(text, "run");
	free(text);
	{
		regex_t re;
		char *when = attr_text(f, "provenance", "start_time_utc"), *v = attr_text(f, "provenance", "hdf5_version");
		char built[32];

		ck_assert_int_eq(regcomp(&re, "^20[0-9]{2}-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-6][0-9]Z$",
					 REG_EXTENDED | REG_NOSUB),
				 0);
		ck_assert_msg(regexec(&re, when, 0, NULL, 0) == 0, "%s", when);
		snprintf(built, sizeof(built), "%d.%d.%d", H5_VERS_MAJOR, H5_VERS_MINOR, H5_VERS_RELEASE);
		ck_assert_str_eq(v, built);
		regfree(&re);
		free(when);
		free(v);
	}
	free(ops);
	free(thread_ops);
	free(rate);
	free(xfer);
	free(total_xfer);
	free(time);
	free(lxfer);
	free(hashed);
	free(tfutex);
	free(tcoll);
	free(tsize);
	free(tfirst);
	H5Fclose(f);
	tu_rmtree(dir);
}
END_TEST

/* ---- determinism ------------------------------------------------------------------ */

/* Values that may differ between two runs of one scenario and seed. */
static int varies(const char *obj, const char *attr)
{
	return (!strcmp(obj, "provenance") || !strcmp(obj, "/provenance")) &&
	       (!strcmp(attr, "wall_seconds") || !strcmp(attr, "start_time_utc"));
}

struct compare {
	hid_t other;
	size_t objects, attrs, differ;
	char last[600];
};

/* The raw bytes of an attribute or dataset, in its file type. */
static void *raw(hid_t obj, int is_attr, size_t *size, hid_t *type)
{
	hid_t space = is_attr ? H5Aget_space(obj) : H5Dget_space(obj);
	hssize_t n = H5Sget_simple_extent_npoints(space);
	void *buf;

	*type = is_attr ? H5Aget_type(obj) : H5Dget_type(obj);
	*size = (size_t)n * H5Tget_size(*type);
	buf = calloc(*size ? *size : 1, 1);
	ck_assert_ptr_nonnull(buf);
	if (n)
		ck_assert_int_ge(is_attr ? H5Aread(obj, *type, buf) : H5Dread(obj, *type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf), 0);
	H5Sclose(space);
	return buf;
}

/* Equal contents, variable-length strings by their text. */
static int same_values(void *a, void *b, size_t size, hid_t type)
{
	if (H5Tget_class(type) == H5T_STRING && H5Tis_variable_str(type) > 0) {
		char **x = a, **y = b;

		for (size_t i = 0; i < size / sizeof(char *); i++)
			if (strcmp(x[i], y[i]) != 0)
				return 0;
		return 1;
	}
	return memcmp(a, b, size) == 0;
}

static void free_values(void *buf, size_t size, hid_t type)
{
	if (H5Tget_class(type) == H5T_STRING && H5Tis_variable_str(type) > 0)
		for (size_t i = 0; i < size / sizeof(char *); i++)
			H5free_memory(((char **)buf)[i]);
	free(buf);
}

/* Whether two attributes (or datasets) hold different values. */
static int differ(hid_t a, hid_t b, int is_attr)
{
	hid_t ta, tb;
	size_t sa, sb;
	void *va = raw(a, is_attr, &sa, &ta), *vb = raw(b, is_attr, &sb, &tb);
	int d = sa != sb || !same_values(va, vb, sa, ta);

	free_values(va, sa, ta);
	free_values(vb, sb, tb);
	H5Tclose(ta);
	H5Tclose(tb);
	return d;
}

static herr_t compare_attr(hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
	struct compare *c = data;
	char objname[256];
	hid_t a = H5Aopen(loc, name, H5P_DEFAULT), b;

	(void)info;
	H5Iget_name(loc, objname, sizeof(objname));
	c->attrs++;
	b = H5Aopen_by_name(c->other, objname, name, H5P_DEFAULT, H5P_DEFAULT);
	ck_assert_msg(b >= 0, "attribute %s of %s missing in the second file", name, objname);
	if (differ(a, b, 1) && !varies(objname, name)) {
		snprintf(c->last, sizeof(c->last), "attribute %s of %s", name, objname);
		c->differ++;
	}
	H5Aclose(a);
	H5Aclose(b);
	return 0;
}

static herr_t compare_object(hid_t loc, const char *name, const H5O_info_t *info, void *data)
{
	struct compare *c = data;
	hid_t o = H5Oopen(loc, name, H5P_DEFAULT);

	c->objects++;
	H5Aiterate2(o, H5_INDEX_NAME, H5_ITER_INC, NULL, compare_attr, c);
	if (info->type == H5O_TYPE_DATASET && strcmp(name, "provenance/command_line") != 0) {
		hid_t d = H5Dopen2(c->other, name, H5P_DEFAULT);

		ck_assert_msg(d >= 0, "dataset %s missing in the second file", name);
		if (differ(o, d, 0)) {
			snprintf(c->last, sizeof(c->last), "dataset %s", name);
			c->differ++;
		}
		H5Dclose(d);
	}
	H5Oclose(o);
	return 0;
}

/* Everything of `a` found in `b` with the same value (but the wall clock). */
static struct compare compare_files(const char *dir, const char *a, const char *b)
{
	struct compare c = { 0 };
	hid_t fa = open_h5(dir, a);

	c.other = open_h5(dir, b);
	H5Ovisit(fa, H5_INDEX_NAME, H5_ITER_INC, compare_object, &c);
	H5Fclose(c.other);
	H5Fclose(fa);
	return c;
}

START_TEST(test_same_seed_same_datasets)
{
	char dir[64], *out;
	struct compare ab, ba, ac;

	tu_mkdtemp(dir, "futexsim-h5");
	free(run_to(dir, "a.h5", QUICK " --seed 5 --set kernel.private_hash.buckets=2", 0));
	free(run_to(dir, "b.h5", QUICK " --seed 5 --set kernel.private_hash.buckets=2", 0));
	free(run_to(dir, "c.h5", QUICK " --seed 6 --set kernel.private_hash.buckets=2", 0));
	ab = compare_files(dir, "a.h5", "b.h5");
	ba = compare_files(dir, "b.h5", "a.h5");
	ck_assert_msg(ab.differ == 0, "%zu differ, e.g. %s", ab.differ, ab.last);
	ck_assert_uint_eq(ba.differ, 0);
	ck_assert_uint_eq(ab.objects, ba.objects);
	ck_assert_uint_gt(ab.objects, 50);
	ck_assert_uint_gt(ab.attrs, 50);
	/* the comparison can tell runs apart: another seed is another run */
	ac = compare_files(dir, "a.h5", "c.h5");
	ck_assert_uint_gt(ac.differ, 5);
	out = list_dir(dir);
	ck_assert_str_eq(out, "a.h5\nb.h5\nc.h5\n");
	free(out);
	tu_rmtree(dir);
}
END_TEST

/* ---- other readers ---------------------------------------------------------------- */

START_TEST(test_h5dump_and_h5py_read_it)
{
	char dir[64], *out, cmd[2048];
	hid_t f;
	uint64_t total;

	tu_mkdtemp(dir, "futexsim-h5");
	free(run_to(dir, "a.h5", QUICK, 0));
	f = open_h5(dir, "a.h5");
	total = scalar_u64(f, "summary/total_ops");
	H5Fclose(f);

	snprintf(cmd, sizeof(cmd), "h5dump -d /summary/total_ops '%s/a.h5'", dir);
	ck_assert_int_eq(tu_shell(cmd, &out), 0);
	{
		char want[64];

		snprintf(want, sizeof(want), "(0): %llu", (unsigned long long)total);
		ck_assert_msg(strstr(out, want), "%s", out);
	}
	free(out);
	snprintf(cmd, sizeof(cmd), "h5dump '%s/a.h5' > /dev/null", dir);
	ck_assert_int_eq(tu_shell(cmd, &out), 0);
	free(out);

	snprintf(cmd, sizeof(cmd),
		 "/usr/bin/python3 -c 'import sys, h5py\n"
		 "f = h5py.File(sys.argv[1], \"r\")\n"
		 "print(int(f[\"timeseries/ops\"][:].sum()), int(f[\"summary/total_ops\"][()]),\n"
		 "      f[\"summary/ops_per_sec\"].attrs[\"units\"], f.attrs[\"incomplete\"],\n"
		 "      f[\"lines/description\"].asstr()[0].split()[0],\n"
		 "      f[\"provenance/scenario_given\"].asstr()[()].splitlines()[0][:1])' '%s/a.h5'",
		 dir);
	ck_assert_int_eq(tu_shell(cmd, &out), 0);
	{
		char want[128];

		snprintf(want, sizeof(want), "%llu %llu ops/s 0 ", (unsigned long long)total, (unsigned long long)total);
		ck_assert_msg(strncmp(out, want, strlen(want)) == 0, "%s", out);
		ck_assert_msg(strstr(out, " #\n"), "%s", out); /* quickstart.yaml starts with a comment */
	}
	free(out);
	tu_rmtree(dir);
}
END_TEST

/* ---- show ------------------------------------------------------------------------- */

START_TEST(test_show_prints_the_run_summary)
{
	char dir[64], *run, *show, *csv, cmd[1024];
	char *averaged, *line2;

	tu_mkdtemp(dir, "futexsim-h5");
	run = run_to(dir, "a.h5", QUICK " --per-thread", 0);
	snprintf(cmd, sizeof(cmd), "show '%s/a.h5'", dir);
	ck_assert_int_eq(tu_futexsim(cmd, &show), 0);
	/* the run's output is its summary, then the note where the file went */
	{
		char *note = strstr(run, "futexsim: results in ");

		ck_assert_ptr_nonnull(note);
		*note = '\0';
		ck_assert_msg(strncmp(show, run, strlen(run)) == 0, "run:\n%s\nshow:\n%s", run, show);
		ck_assert_ptr_nonnull(strstr(show + strlen(run), "hottest buckets"));
		ck_assert_ptr_nonnull(strstr(show + strlen(run), " 1. "));
	}
	snprintf(cmd, sizeof(cmd), "show --csv '%s/a.h5'", dir);
	ck_assert_int_eq(tu_futexsim(cmd, &csv), 0);
	ck_assert_msg(!strncmp(csv, "scenario,machine,kernel,workload,overrides,seed,threads,warmup_s,window_s,"
				    "ops_per_sec,",
			       80),
		      "%s", csv);
	/* one header line, one data line */
	line2 = strchr(csv, '\n') + 1;
	ck_assert_ptr_eq(strchr(line2, '\n'), line2 + strlen(line2) - 1);
	averaged = strstr(run, "Averaged ") + strlen("Averaged ");
	{
		char want[256];

		snprintf(want, sizeof(want),
			 "quickstart,small-1node,linux-6.18,hash-bench,run.duration=200us run.warmup=20us "
			 "output.interval=30us,1,8,2e-05,0.0002,%.*s,",
			 (int)strcspn(averaged, " "), averaged);
		ck_assert_msg(!strncmp(line2, want, strlen(want)), "%s\nwanted %s", line2, want);
		ck_assert(!strcmp(line2 + strlen(line2) - 3, ",1\n"));
	}
	free(run);
	free(show);
	free(csv);
	/* a run that listed no lines: show lists no buckets either, unless asked */
	free(run_to(dir, "b.h5", QUICK " --set output.hottest_lines=0", 0));
	snprintf(cmd, sizeof(cmd), "show '%s/b.h5'", dir);
	ck_assert_int_eq(tu_futexsim(cmd, &show), 0);
	ck_assert_msg(!strstr(show, "hottest"), "%s", show);
	free(show);
	snprintf(cmd, sizeof(cmd), "show --top 2 '%s/b.h5'", dir);
	ck_assert_int_eq(tu_futexsim(cmd, &show), 0);
	ck_assert_msg(strstr(show, "hottest lines") && strstr(show, "hottest buckets") && strstr(show, " 2. "), "%s",
		      show);
	free(show);
	tu_rmtree(dir);
}
END_TEST

/* show --json and --csv over several files (hash-bench; a mutex with its workload
 * figures; churn with resizes): tests/show_json.py parses them and checks every
 * figure against show's text for the same file. A file that cannot be read is
 * reported, left out, and fails the command with 3. */
START_TEST(test_show_json_csv_several_files)
{
	char dir[64], *out, cmd[2048];

	if (access("/usr/bin/python3", X_OK) != 0) {
		fprintf(stderr, "SKIPPED test_show_json_csv_several_files: no /usr/bin/python3 to parse the JSON\n");
		return;
	}
	tu_mkdtemp(dir, "futexsim-h5");
	free(run_to(dir, "a.h5", QUICK " --per-thread", 0));
	free(run_to(dir, "b.h5", "scenarios/workloads/mutex.yaml --set run.duration=1ms --set run.warmup=200us", 0));
	free(run_to(dir, "c.h5", "scenarios/workloads/churn.yaml --set run.duration=3ms --seed 7", 0));
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 tests/show_json.py '%s' '%s/a.h5' '%s/b.h5' '%s/c.h5'", tu_bin(),
		 dir, dir, dir);
	ck_assert_msg(tu_shell(cmd, &out) == 0 && !strcmp(out, "OK 3 files\n"), "%s", out);
	free(out);
	/* a file that is not a result file: the others still printed, a valid array */
	snprintf(cmd, sizeof(cmd),
		 "'%s' show --json '%s/a.h5' /nonexistent.h5 '%s/c.h5' 2>'%s/err' | /usr/bin/python3 -c "
		 "'import json, sys; print(len(json.load(sys.stdin)))'; cat '%s/err'",
		 tu_bin(), dir, dir, dir, dir);
	ck_assert_int_eq(tu_shell(cmd, &out), 0);
	ck_assert_msg(!strncmp(out, "2\nfutexsim: cannot read /nonexistent.h5:", 40), "%s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "show --csv '%s/a.h5' /nonexistent.h5", dir);
	ck_assert_int_eq(tu_futexsim(cmd, &out), 3);
	free(out);
	/* the text summary is of one file */
	snprintf(cmd, sizeof(cmd), "show '%s/a.h5' '%s/c.h5'", dir, dir);
	ck_assert_int_eq(tu_futexsim(cmd, &out), 2);
	ck_assert_ptr_nonnull(strstr(out, "several files only with --csv or --json"));
	free(out);
	snprintf(cmd, sizeof(cmd), "show --json --csv '%s/a.h5'", dir);
	ck_assert_int_eq(tu_futexsim(cmd, &out), 2);
	free(out);
	tu_rmtree(dir);
}
END_TEST

/* The resolved scenario from a file runs again to the same figures. */
START_TEST(test_show_scenario_reruns)
{
	char dir[64], *a, *b, *yaml, cmd[1024], path[512];
	FILE *f;

	tu_mkdtemp(dir, "futexsim-h5");
	a = run_to(dir, "a.h5", QUICK " --seed 9 --set workload.threads=3", 0);
	snprintf(cmd, sizeof(cmd), "show --scenario '%s/a.h5'", dir);
	ck_assert_int_eq(tu_futexsim(cmd, &yaml), 0);
	snprintf(path, sizeof(path), "%s/resolved.yaml", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(yaml, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "'%s' --no-output", path);
	b = run_to(dir, "unused.h5", cmd, 0);
	*strstr(a, "  wall time") = '\0';
	*strstr(b, "  wall time") = '\0';
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
	free(yaml);
	tu_rmtree(dir);
}
END_TEST

/* A file written before the blocking workloads' thread columns existed shows
 * the same summary; a table whose columns differ in length is refused. */
START_TEST(test_show_reads_older_and_refuses_broken_tables)
{
	char dir[64], *run, *show, cmd[2048];

	tu_mkdtemp(dir, "futexsim-h5");
	run = run_to(dir, "a.h5", QUICK " --set run.duration=50us", 0);
	*strstr(run, "futexsim: results in ") = '\0';
	ck_assert_int_eq(tu_shellf(&show,
				   "/usr/bin/python3 -c 'import h5py, sys\n"
				   "f = h5py.File(sys.argv[1], \"r+\")\n"
				   "for c in (\"futex_calls\", \"wakeups\", \"chain_walked\", \"requeued\", "
				   "\"context_switches\", \"blocked\"): del f[\"threads/\" + c]' '%s/a.h5' && "
				   "'%s' show '%s/a.h5'",
				   dir, tu_bin(), dir),
			 0);
	ck_assert_msg(strncmp(show, run, strlen(run)) == 0, "run:\n%s\nshow:\n%s", run, show);
	free(show);
	snprintf(cmd, sizeof(cmd),
		 "/usr/bin/python3 -c 'import h5py, sys\n"
		 "f = h5py.File(sys.argv[1], \"r+\")\n"
		 "ops = f[\"threads/ops\"][:-1]\n"
		 "del f[\"threads/ops\"]\n"
		 "f[\"threads/ops\"] = ops' '%s/a.h5' && '%s' show '%s/a.h5'",
		 dir, tu_bin(), dir);
	ck_assert_int_eq(tu_shell(cmd, &show), 3);
	ck_assert_msg(strstr(show, "the datasets in threads/ differ in length"), "%s", show);
	free(show);
	free(run);
	tu_rmtree(dir);
}
END_TEST

/* Damaged or hostile shapes (issue 18's cases 1, 2 and 10), each refused with
 * exit status 3 and the object named, never a crash: an attribute that should
 * hold one value holding many (4096 numbers, 100 strings); a dataset declaring 2^61 rows (a chunked, empty
 * one: it costs nothing on disk); an empty (H5S_NULL) scalar. */
static const struct {
	const char *python; /* the change, on the file f */
	const char *message;
} hostile[] = {
	{ "del f.attrs[\"format_version\"]; f.attrs[\"format_version\"] = np.ones(4096, \"i4\")",
	  "attribute format_version of / (expected one integer)" },
	{ "del f[\"provenance\"].attrs[\"seed\"]; f[\"provenance\"].attrs[\"seed\"] = np.ones(4096, \"u8\")",
	  "attribute seed of provenance (expected one integer)" },
	{ "del f.attrs[\"incomplete\"]; f.attrs[\"incomplete\"] = np.ones(4096, \"i4\")",
	  "attribute incomplete of / (expected one integer)" },
	{ "del f[\"provenance\"].attrs[\"futexsim_version\"]; "
	  "f[\"provenance\"].attrs[\"futexsim_version\"] = [\"x\"] * 100",
	  "attribute futexsim_version of provenance (expected one string)" },
	{ "del f[\"lines/reads\"]; f.create_dataset(\"lines/reads\", shape=(2**61,), maxshape=(None,), "
	  "chunks=(1024,), dtype=\"u8\")",
	  "dataset lines/reads declares 2305843009213693952 x 1 elements" },
	{ "del f[\"lines/line\"]; f.create_dataset(\"lines/line\", shape=(2**61,), maxshape=(None,), "
	  "chunks=(1024,), dtype=\"u4\")",
	  "dataset lines/line declares 2305843009213693952 rows" },
	{ "del f[\"summary/ops_per_sec\"]; f.create_dataset(\"summary/ops_per_sec\", "
	  "data=h5py.Empty(\"u8\"))",
	  "dataset summary/ops_per_sec (expected rank 0, one value)" },
};

START_TEST(test_show_refuses_hostile_shapes)
{
	char dir[64], *out, cmd[4096];

	tu_mkdtemp(dir, "futexsim-h5");
	free(run_to(dir, "a.h5", QUICK " --set run.duration=50us", 0));
	snprintf(cmd, sizeof(cmd),
		 "cp '%s/a.h5' '%s/b.h5' && /usr/bin/python3 -c 'import h5py, numpy as np, sys\n"
		 "f = h5py.File(sys.argv[1], \"r+\")\n%s' '%s/b.h5' && '%s' show '%s/b.h5'",
		 dir, dir, hostile[_i].python, dir, tu_bin(), dir);
	ck_assert_int_eq(tu_shell(cmd, &out), 3);
	ck_assert_msg(strstr(out, hostile[_i].message), "case %d: %s", _i, out);
	ck_assert_msg(strstr(out, "b.h5"), "case %d: the file is not named: %s", _i, out);
	free(out);
	tu_rmtree(dir);
}
END_TEST

START_TEST(test_show_refuses_other_files)
{
	char dir[64], *out, cmd[1024], path[512];
	hid_t f;

	tu_mkdtemp(dir, "futexsim-h5");
	snprintf(cmd, sizeof(cmd), "show '%s/missing.h5'", dir);
	ck_assert_int_eq(tu_futexsim(cmd, &out), 3);
	ck_assert_ptr_nonnull(strstr(out, "missing.h5: No such file or directory"));
	free(out);
	snprintf(cmd, sizeof(cmd), "show '%s'", dir);
	ck_assert_int_eq(tu_futexsim(cmd, &out), 3);
	ck_assert_ptr_nonnull(strstr(out, ": a directory, not a result file"));
	free(out);
	snprintf(cmd, sizeof(cmd), "show scenarios/quickstart.yaml");
	ck_assert_int_eq(tu_futexsim(cmd, &out), 3);
	ck_assert_ptr_nonnull(strstr(out, "not an HDF5 file"));
	free(out);
	snprintf(path, sizeof(path), "%s/other.h5", dir);
	f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	ck_assert_int_ge(f, 0);
	H5Fclose(f);
	snprintf(cmd, sizeof(cmd), "show '%s'", path);
	ck_assert_int_eq(tu_futexsim(cmd, &out), 3);
	ck_assert_ptr_nonnull(strstr(out, "not a futexsim result file"));
	free(out);
	ck_assert_int_eq(tu_futexsim("show", &out), 2);
	free(out);
	tu_rmtree(dir);
}
END_TEST

/* ---- where files go ----------------------------------------------------------------- */

START_TEST(test_default_name_and_no_output)
{
	char dir[64], *out, cmd[2048], *scenario = realpath("scenarios/quickstart.yaml", NULL);
	regex_t re;

	tu_mkdtemp(dir, "futexsim-h5");
	ck_assert_ptr_nonnull(scenario);
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && '%s' run '%s' --no-output --set run.duration=50us && "
		 "'%s' run '%s' -o - --set run.duration=50us && ls -A",
		 dir, tu_bin(), scenario, tu_bin(), scenario);
	ck_assert_int_eq(tu_shell(cmd, &out), 0);
	ck_assert_ptr_null(strstr(out, "results"));
	free(out);
	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' run '%s' --seed 42 --set run.duration=50us > /dev/null 2>&1 && ls results",
		 dir, tu_bin(), scenario);
	ck_assert_int_eq(tu_shell(cmd, &out), 0);
	ck_assert_int_eq(regcomp(&re, "^quickstart-42-20[0-9]{6}T[0-9]{6}Z-[0-9]+\\.h5\n$", REG_EXTENDED | REG_NOSUB), 0);
	ck_assert_msg(regexec(&re, out, 0, NULL, 0) == 0, "%s", out);
	regfree(&re);
	free(out);
	free(scenario);
	tu_rmtree(dir);
}
END_TEST

/* -o writes only to a new name or a regular file (issue 18, cases 4, 5, 11): a
 * device, a FIFO, a directory, the scenario itself and (without --force) a
 * symbolic link are refused with exit 4, the thing at the path left as it was;
 * an option where the name belongs is a usage error and creates nothing; two
 * runs started together with the same scenario and seed get two default names. */
START_TEST(test_output_paths_refused)
{
	char dir[64], *out, cmd[4096], path[512], *scenario = realpath("scenarios/quickstart.yaml", NULL);
	struct stat st;

	ck_assert_ptr_nonnull(scenario);
	tu_mkdtemp(dir, "futexsim-h5");
	snprintf(cmd, sizeof(cmd), "run '%s' --set run.duration=20us -o /dev/null", scenario);
	ck_assert_int_eq(tu_futexsim(cmd, &out), 4);
	ck_assert_msg(strstr(out, "/dev/null: it is not a regular file"), "%s", out);
	free(out);
	ck_assert_int_eq(stat("/dev/null", &st), 0);
	ck_assert(S_ISCHR(st.st_mode));

	snprintf(path, sizeof(path), "%s/fifo", dir);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	snprintf(cmd, sizeof(cmd), "run '%s' --set run.duration=20us -o '%s'", scenario, path);
	ck_assert_int_eq(tu_futexsim(cmd, &out), 4);
	ck_assert_msg(strstr(out, "it is not a regular file"), "%s", out);
	free(out);
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert(S_ISFIFO(st.st_mode));

	snprintf(cmd, sizeof(cmd), "cp '%s' '%s/s.yaml' && cd '%s' && '%s' run s.yaml --set run.duration=20us -o ./s.yaml",
		 scenario, dir, dir, tu_bin());
	ck_assert_int_eq(tu_shell(cmd, &out), 4);
	ck_assert_msg(strstr(out, "it is an input of the run"), "%s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "cmp '%s' '%s/s.yaml'", scenario, dir);
	ck_assert_int_eq(tu_shell(cmd, &out), 0); /* the scenario untouched */
	free(out);
	/* nor any other file the run reads (issue 38): a machine or kernel file, a
	 * preset by name, one it inherits from */
	snprintf(cmd, sizeof(cmd), "cp configs/machines/small-1node.yaml configs/kernels/linux-6.18.yaml '%s/' && "
		 "printf 'inherit: small-1node.yaml\n' > '%s/child.yaml' && cd '%s' && cp small-1node.yaml keep-m.yaml && "
		 "cp linux-6.18.yaml keep-k.yaml && cp child.yaml keep-c.yaml && "
		 "for o in small-1node.yaml linux-6.18.yaml child.yaml; do "
		 "'%s' run '%s' --set machine=child.yaml --set kernel=linux-6.18.yaml --set run.duration=20us -o \"$o\"; "
		 "echo \"rc=$?\"; done; cmp small-1node.yaml keep-m.yaml && cmp linux-6.18.yaml keep-k.yaml && "
		 "cmp child.yaml keep-c.yaml",
		 dir, dir, dir, tu_bin(), scenario);
	ck_assert_int_eq(tu_shell(cmd, &out), 0);
	ck_assert_msg(strstr(out, "cannot write small-1node.yaml: it is an input of the run") &&
			      strstr(out, "cannot write linux-6.18.yaml: it is an input of the run") &&
			      strstr(out, "cannot write child.yaml: it is an input of the run") && !strstr(out, "rc=0"),
		      "%s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "run '%s' --set run.duration=20us -o configs/machines/small-1node.yaml", scenario);
	ck_assert_int_eq(tu_futexsim(cmd, &out), 4);
	ck_assert_msg(strstr(out, "it is an input of the run"), "%s", out);
	free(out);
	/* nor the trace a replay reads: a result written over it, the next replay fails */
	snprintf(cmd, sizeof(cmd), "cp tests/traces/basic.trace '%s/t.trace' && cd '%s' && cp t.trace keep.trace && "
		 "printf 'machine: small-1node\\nkernel: linux-6.18\\nworkload: {type: trace, trace: t.trace}\\n' > r.yaml && "
		 "'%s' run r.yaml -o t.trace; echo \"rc=$?\"; cmp t.trace keep.trace",
		 dir, dir, tu_bin());
	ck_assert_int_eq(tu_shell(cmd, &out), 0);
	ck_assert_msg(strstr(out, "cannot write t.trace: it is an input of the run") && strstr(out, "rc=4"), "%s", out);
	free(out);

	snprintf(cmd, sizeof(cmd), "echo keep > '%s/target' && ln -s '%s/target' '%s/link.h5' && "
		 "'%s' run '%s' --set run.duration=20us -o '%s/link.h5'",
		 dir, dir, dir, tu_bin(), scenario, dir);
	ck_assert_int_eq(tu_shell(cmd, &out), 4);
	ck_assert_msg(strstr(out, "it is a symbolic link"), "%s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "'%s' run '%s' --set run.duration=20us -o '%s/link.h5' --force > /dev/null && "
		 "test -f '%s/link.h5' && ! test -L '%s/link.h5' && test \"$(cat '%s/target')\" = keep",
		 tu_bin(), scenario, dir, dir, dir, dir);
	ck_assert_int_eq(tu_shell(cmd, &out), 0); /* --force: the link replaced, its target untouched */
	free(out);
	/* a link to an input stays refused, --force or not */
	snprintf(cmd, sizeof(cmd), "ln -s '%s' '%s/in.h5' && '%s' run '%s' --set run.duration=20us -o '%s/in.h5' --force",
		 scenario, dir, tu_bin(), scenario, dir);
	ck_assert_int_eq(tu_shell(cmd, &out), 4);
	ck_assert_msg(strstr(out, "it is an input of the run"), "%s", out);
	free(out);

	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' run '%s' --set run.duration=20us -o --per-thread; echo \"rc=$?\"; ls",
		 dir, tu_bin(), scenario);
	ck_assert_int_eq(tu_shell(cmd, &out), 0);
	ck_assert_msg(strstr(out, "rc=2") && strstr(out, "got the option --per-thread") && !strstr(out, "\n--per-thread"),
		      "%s", out);
	free(out);

	snprintf(cmd, sizeof(cmd), "cd '%s' && rm -rf results && ('%s' run '%s' --set run.duration=20us > /dev/null 2>&1 & "
		 "'%s' run '%s' --set run.duration=20us > /dev/null 2>&1; wait) && ls results | wc -l",
		 dir, tu_bin(), scenario, tu_bin(), scenario);
	ck_assert_int_eq(tu_shell(cmd, &out), 0);
	ck_assert_msg(atoi(out) == 2, "two runs, %s result files", out);
	free(out);
	free(scenario);
	tu_rmtree(dir);
}
END_TEST

START_TEST(test_unwritable_place)
{
	char *out;

	/* fails before simulating 10 s (which would take minutes) */
	ck_assert_int_eq(tu_futexsim("run scenarios/quickstart.yaml --set run.duration=10s -o /nonexistent/dir/x.h5", &out),
			 4);
	ck_assert_msg(strstr(out, "/nonexistent/dir/x.h5") && strstr(out, "No such file or directory"), "%s", out);
	ck_assert_ptr_null(strstr(out, "Averaged"));
	free(out);
	ck_assert_int_eq(tu_futexsim("run scenarios/quickstart.yaml --set run.duration=10s -o /dev/null/x.h5", &out), 4);
	ck_assert_msg(strstr(out, "Not a directory"), "%s", out);
	free(out);
	ck_assert_int_eq(tu_futexsim("run scenarios/quickstart.yaml --set run.duration=10s -o /tmp", &out), 4);
	ck_assert_msg(strstr(out, "/tmp: it is a directory"), "%s", out);
	free(out);
	/* a file named results where the default name's directory belongs (issue 38) */
	{
		char dir[64], cmd[1024], *scenario = realpath("scenarios/quickstart.yaml", NULL);

		ck_assert_ptr_nonnull(scenario);
		tu_mkdtemp(dir, "futexsim-h5");
		snprintf(cmd, sizeof(cmd), "cd '%s' && echo keep > results && '%s' run '%s' --set run.duration=10s; "
			 "echo \"rc=$?\"; cat results", dir, tu_bin(), scenario);
		ck_assert_int_eq(tu_shell(cmd, &out), 0);
		ck_assert_msg(strstr(out, "futexsim: cannot write into results/: results is not a directory (-o FILE.h5 "
					  "writes elsewhere)\nrc=4\nkeep\n"), "%s", out);
		free(out);
		free(scenario);
		tu_rmtree(dir);
	}
}
END_TEST

/* A file size limit (ulimit -f) stands in for a full disk: the write fails,
 * the summary still prints, the exit status is 4, and no file is left. */
START_TEST(test_full_disk)
{
	char dir[64], *out, cmd[2048];

	tu_mkdtemp(dir, "futexsim-h5");
	/* 64 blocks (32 KiB in dash, 64 KiB in bash): the provenance fits, the rest does not */
	snprintf(cmd, sizeof(cmd), "ulimit -f 64 && '%s' run " QUICK " -o '%s/a.h5'", tu_bin(), dir);
	ck_assert_int_eq(tu_shell(cmd, &out), 4);
	ck_assert_msg(strstr(out, "Averaged ") && strstr(out, "cannot write") && strstr(out, "a.h5") &&
			      strstr(out, "File too large"),
		      "%s", out);
	free(out);
	out = list_dir(dir);
	ck_assert_str_eq(out, "");
	free(out);
	tu_rmtree(dir);
}
END_TEST

/* ---- interrupted runs ---------------------------------------------------------------- */

/* Starts a 10 s (simulated) run, waits until its temporary file exists (the
 * run is then under way or about to start), and sends `sig`. */
static int interrupt_run(const char *dir, int sig)
{
	char out[512], tmp_prefix[64];
	pid_t pid;
	int status, found = 0;

	snprintf(out, sizeof(out), "%s/x.h5", dir);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
			_exit(127);
		execl(tu_bin(), tu_bin(), "run", "scenarios/quickstart.yaml", "--set", "run.duration=10s", "--set",
		      "run.warmup=0", "-o", out, (char *)NULL);
		_exit(127);
	}
	snprintf(tmp_prefix, sizeof(tmp_prefix), ".x.h5.%ld.tmp", (long)pid);
	/* a bounded wait for the file, not a timing assertion: 60 s at most */
	for (int i = 0; i < 6000 && !found; i++) {
		char path[600];

		snprintf(path, sizeof(path), "%s/%s", dir, tmp_prefix);
		found = tu_exists(path);
		if (!found)
			usleep(10000);
	}
	ck_assert_msg(found, "no temporary file appeared");
	kill(pid, sig);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	return WEXITSTATUS(status);
}

START_TEST(test_interrupt_leaves_incomplete_file)
{
	const int sigs[] = { SIGINT, SIGTERM };
	char dir[64], *out;
	hid_t f;
	int rank;
	hsize_t dims[2], tdims[2];
	uint64_t *ops, *thread_ops, window;

	tu_mkdtemp(dir, "futexsim-h5");
	ck_assert_int_eq(interrupt_run(dir, sigs[_i]), 130);
	out = list_dir(dir);
	ck_assert_str_eq(out, "x.h5\n");
	free(out);
	f = open_h5(dir, "x.h5");
	ck_assert_int_eq(attr_int(f, "/", "incomplete"), 1);
	window = scalar_u64(f, "summary/window");
	ck_assert_uint_lt(window, 10000000000000ull);
	ops = read_u64(f, "timeseries/ops", &rank, dims);
	thread_ops = read_u64(f, "threads/ops", &rank, tdims);
	/* rows up to the interval (100us) where the run stopped: not all 100000 of
	 * the 10 s, and at least every one the window reached */
	ck_assert_uint_lt(dims[0], 100000);
	ck_assert_uint_ge(dims[0], window / 100000000 + 1);
	for (hsize_t t = 0; t < dims[1]; t++) {
		uint64_t sum = 0;

		for (hsize_t i = 0; i < dims[0]; i++)
			sum += ops[i * dims[1] + t];
		ck_assert_uint_eq(sum, thread_ops[t]);
	}
	free(ops);
	free(thread_ops);
	H5Fclose(f);
	/* show says so */
	{
		char cmd[1024];

		snprintf(cmd, sizeof(cmd), "show '%s/x.h5'", dir);
		ck_assert_int_eq(tu_futexsim(cmd, &out), 0);
		ck_assert_ptr_nonnull(strstr(out, "the run was interrupted"));
		free(out);
	}
	tu_rmtree(dir);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("h5");
	TCase *tc = tcase_create("file");

	tcase_add_test(tc, test_datasets_shapes_units);
	tcase_add_test(tc, test_sums_and_figures);
	tcase_add_test(tc, test_same_seed_same_datasets);
	tcase_add_test(tc, test_h5dump_and_h5py_read_it);
	tcase_add_test(tc, test_output_paths_refused);
	tcase_add_loop_test(tc, test_show_refuses_hostile_shapes, 0, sizeof(hostile) / sizeof(hostile[0]));
	tcase_add_test(tc, test_show_prints_the_run_summary);
	tcase_add_test(tc, test_show_scenario_reruns);
	tcase_add_test(tc, test_show_json_csv_several_files);
	tcase_add_test(tc, test_show_reads_older_and_refuses_broken_tables);
	tcase_add_test(tc, test_show_refuses_other_files);
	tcase_add_test(tc, test_default_name_and_no_output);
	tcase_add_test(tc, test_unwritable_place);
	tcase_add_test(tc, test_full_disk);
	tcase_add_loop_test(tc, test_interrupt_leaves_incomplete_file, 0, 2);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	return tu_run_suite(suite());
}
