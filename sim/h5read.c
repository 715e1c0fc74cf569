/* SPDX-License-Identifier: MIT */
#include "sim/h5read.h"

#include <errno.h>
#include <hdf5.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sim/h5common.h"
#include "sim/h5out.h"

/* An open file and where errors go. */
struct reader {
	const char *path;
	hid_t file;
	struct fs_error *e;
	uint64_t max_bytes;     /* no dataset may read into more than this (from the file's size) */
};

/* A dataset's data may be compressed (deflate, up to ~1000:1 on runs of zeros), so
 * a sound file holds at most about this many bytes of data per byte of file; and
 * never less than this floor, for small files. */
#define EXPANSION 1024u
#define MIN_READ_BYTES (64ull << 20)

static int fail(struct reader *rd, const char *what)
{
	char why[512];

	return fs_fail(rd->e, FS_ERR_INPUT, "cannot read %s: %s: %s", rd->path, what, h5_error_text(why, sizeof(why)));
}

static int oom(struct reader *rd)
{
	return fs_fail(rd->e, FS_ERR_LIMIT, "out of memory reading %s", rd->path);
}

static void close_id(hid_t id, herr_t (*closer)(hid_t))
{
	if (id >= 0)
		closer(id);
}

/* ---- attributes ------------------------------------------------------------ */

/* Whether attribute `a` holds exactly one value of type class `cls` (an array
 * where one value belongs would overflow the caller's buffer). */
static bool attr_is_one(hid_t a, H5T_class_t cls)
{
	hid_t space = H5Aget_space(a), ftype = H5Aget_type(a);
	bool one = space >= 0 && ftype >= 0 && H5Sget_simple_extent_npoints(space) == 1 && H5Tget_class(ftype) == cls;

	close_id(space, H5Sclose);
	close_id(ftype, H5Tclose);
	return one;
}

/* Every libhdf5 call clears its error stack: a failure's reason is taken (fail)
 * before any other call, and what the message needs is computed first. */
static int attr_num(struct reader *rd, const char *obj, const char *name, hid_t type, void *out)
{
	H5T_class_t cls = H5Tget_class(type);
	char what[256];
	hid_t a;
	bool one;
	int rc;

	snprintf(what, sizeof(what), "attribute %s of %s (expected one %s)", name, obj,
		 cls == H5T_FLOAT ? "number" : "integer");
	a = H5Aopen_by_name(rd->file, obj, name, H5P_DEFAULT, H5P_DEFAULT);
	if (a < 0)
		return fail(rd, what);
	one = attr_is_one(a, cls);
	rc = one && H5Aread(a, type, out) >= 0 ? 0 : -1;
	if (rc < 0 && one)
		fail(rd, what);
	close_id(a, H5Aclose);
	if (rc < 0 && !one) /* there, but of the wrong shape or type: no library error to add */
		return fs_fail(rd->e, FS_ERR_INPUT, "cannot read %s: %s", rd->path, what);
	return rc;
}

/* A variable-length string attribute, as a malloc'd copy. */
static char *attr_str(struct reader *rd, const char *obj, const char *name)
{
	char *v = NULL, *out = NULL, what[256];
	hid_t a, type;
	bool one;

	snprintf(what, sizeof(what), "attribute %s of %s (expected one string)", name, obj);
	a = H5Aopen_by_name(rd->file, obj, name, H5P_DEFAULT, H5P_DEFAULT);
	if (a < 0) {
		fail(rd, what);
		return NULL;
	}
	one = attr_is_one(a, H5T_STRING);
	type = h5_str_type(0);
	if (one && type >= 0 && H5Aread(a, type, &v) >= 0) {
		out = strdup(v ? v : "");
		H5free_memory(v);
		if (!out)
			oom(rd);
	} else if (!one) {
		fs_fail(rd->e, FS_ERR_INPUT, "cannot read %s: %s", rd->path, what);
	} else {
		fail(rd, what);
	}
	close_id(type, H5Tclose);
	close_id(a, H5Aclose);
	return out;
}

/* ---- datasets --------------------------------------------------------------- */

/* Dataset `name` read as `type` (elements of `size` bytes) into a malloc'd
 * buffer; its element count in *n. `rank` is the rank it must have (0: scalar)
 * and `cols` its second dimension when rank 2. */
static void *read_all(struct reader *rd, const char *name, hid_t type, size_t size, int rank, hsize_t cols,
		      hsize_t *n)
{
	hid_t d = H5Dopen2(rd->file, name, H5P_DEFAULT), space = d >= 0 ? H5Dget_space(d) : -1;
	hsize_t dims[2] = { 1, 1 };
	void *buf = NULL;
	int ok = 0;

	*n = 0;
	/* a scalar is H5S_SCALAR, never H5S_NULL (no value to read); a table is simple */
	if (space >= 0 && H5Sget_simple_extent_type(space) == (rank ? H5S_SIMPLE : H5S_SCALAR) &&
	    H5Sget_simple_extent_ndims(space) == rank &&
	    (rank == 0 || H5Sget_simple_extent_dims(space, dims, NULL) == rank) && (rank < 2 || dims[1] == cols)) {
		/* sizes a damaged file declares are checked before anything is allocated */
		if (dims[0] > rd->max_bytes || dims[1] > rd->max_bytes ||
		    (rank ? dims[0] * (rank == 2 ? dims[1] : 1) : 1) > rd->max_bytes / size) {
			char what[256];

			close_id(space, H5Sclose);
			close_id(d, H5Dclose);
			snprintf(what, sizeof(what), "%s: dataset %s declares %llu x %llu elements, more than a file of "
				 "this size can hold", rd->path, name, (unsigned long long)dims[0],
				 (unsigned long long)(rank == 2 ? dims[1] : 1));
			fs_fail(rd->e, FS_ERR_INPUT, "%s", what);
			return NULL;
		}
		*n = rank ? dims[0] * (rank == 2 ? dims[1] : 1) : 1;
		buf = malloc(*n ? *n * size : 1);
		if (!buf)
			oom(rd);
		else if (*n == 0 || H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0)
			ok = 1;
	}
	close_id(space, H5Sclose);
	close_id(d, H5Dclose);
	if (!ok) {
		if (buf || rd->e->status == 0) {
			char what[256];

			snprintf(what, sizeof(what), "dataset %s (expected rank %d%s)", name, rank,
				 rank ? "" : ", one value");
			/* opened but of another shape: no library error to add */
			if (space >= 0 && !buf)
				fs_fail(rd->e, FS_ERR_INPUT, "cannot read %s: %s", rd->path, what);
			else
				fail(rd, what);
		}
		free(buf);
		return NULL;
	}
	return buf;
}

static int read_u64(struct reader *rd, const char *name, uint64_t *out)
{
	hsize_t n;
	uint64_t *v = read_all(rd, name, H5T_NATIVE_UINT64, sizeof(*v), 0, 0, &n);

	if (!v)
		return -1;
	*out = *v;
	free(v);
	return 0;
}

/* A column of fixed-length strings (or one scalar string) as n malloc'd strings. */
static char **read_strs(struct reader *rd, const char *name, int rank, hsize_t *n)
{
	hid_t d = H5Dopen2(rd->file, name, H5P_DEFAULT), ftype = d >= 0 ? H5Dget_type(d) : -1, mtype = -1;
	size_t len = ftype >= 0 && H5Tget_class(ftype) == H5T_STRING && H5Tis_variable_str(ftype) == 0
			     ? H5Tget_size(ftype)
			     : 0;
	char *buf = NULL, **out = NULL;

	*n = 0;
	close_id(d, H5Dclose);
	if (len)
		mtype = h5_str_type(len);
	if (mtype >= 0)
		buf = read_all(rd, name, mtype, len, rank, 0, n);
	else {
		char what[256];

		snprintf(what, sizeof(what), "dataset %s (expected fixed-length strings)", name);
		fail(rd, what);
	}
	close_id(mtype, H5Tclose);
	close_id(ftype, H5Tclose);
	if (!buf)
		return NULL;
	out = calloc(*n ? *n : 1, sizeof(*out));
	for (hsize_t i = 0; out && i < *n; i++) {
		out[i] = strndup(buf + i * len, len);
		if (!out[i]) {
			while (i--)
				free(out[i]);
			free(out);
			out = NULL;
		}
	}
	free(buf);
	if (!out)
		oom(rd);
	return out;
}

static void free_strs(char **v, hsize_t n)
{
	for (hsize_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

static char *read_text(struct reader *rd, const char *name)
{
	hsize_t n;
	char **v = read_strs(rd, name, 0, &n), *text;

	if (!v)
		return NULL;
	text = v[0];
	free(v);
	return text;
}

/* ---- opening ------------------------------------------------------------------ */

static int open_file(struct reader *rd, const char *path, struct fs_error *e)
{
	char *format = NULL;
	int version = 0;
	htri_t is;

	rd->path = path;
	rd->e = e;
	rd->file = -1;
	h5_quiet();
	is = H5Fis_hdf5(path);
	if (is <= 0) {
		if (is == 0)
			return fs_fail(e, FS_ERR_INPUT, "%s: not an HDF5 file", path);
		return fail(rd, "opening");
	}
	rd->file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	if (rd->file < 0)
		return fail(rd, "opening");
	{
		hsize_t size = 0;

		rd->max_bytes = H5Fget_filesize(rd->file, &size) >= 0 && size <= UINT64_MAX / EXPANSION
					? size * EXPANSION
					: UINT64_MAX;
		if (rd->max_bytes < MIN_READ_BYTES)
			rd->max_bytes = MIN_READ_BYTES;
	}
	format = H5Aexists(rd->file, "format") > 0 ? attr_str(rd, "/", "format") : NULL;
	if (!format || strcmp(format, H5OUT_FORMAT) != 0) {
		free(format);
		return fs_fail(e, FS_ERR_INPUT, "%s: not a futexsim result file (no format attribute '%s')", path,
			       H5OUT_FORMAT);
	}
	free(format);
	if (attr_num(rd, "/", "format_version", H5T_NATIVE_INT, &version) < 0)
		return -1;
	if (version < 1 || version > H5OUT_FORMAT_VERSION)
		return fs_fail(e, FS_ERR_INPUT, "%s: format version %d (this futexsim reads versions 1 to %d)", path,
			       version, H5OUT_FORMAT_VERSION);
	return 0;
}

/* ---- the summary ------------------------------------------------------------- */

static bool exists(struct reader *rd, const char *path)
{
	return H5Lexists(rd->file, path, H5P_DEFAULT) > 0;
}

/* The length of the 1-D dataset `name`. */
static int rows_of(struct reader *rd, const char *name, hsize_t *n)
{
	hid_t d = H5Dopen2(rd->file, name, H5P_DEFAULT), space = d >= 0 ? H5Dget_space(d) : -1;
	int ok = space >= 0 && H5Sget_simple_extent_ndims(space) == 1 && H5Sget_simple_extent_dims(space, n, NULL) == 1;

	close_id(space, H5Sclose);
	close_id(d, H5Dclose);
	if (!ok) {
		char what[256];

		snprintf(what, sizeof(what), "dataset %s (expected rank 1)", name);
		return fail(rd, what);
	}
	/* the caller allocates a row struct per row before reading a column */
	if (*n > rd->max_bytes / 8)
		return fs_fail(rd->e, FS_ERR_INPUT, "%s: dataset %s declares %llu rows, more than a file of this "
			       "size can hold", rd->path, name, (unsigned long long)*n);
	return 0;
}

/* Columns `cols` of `group` into the `n` structs at `rows`, `stride` bytes
 * apart. An absent column fails, or, when `optional`, leaves its field as it is. */
static int read_struct_cols(struct reader *rd, const char *group, const struct h5_col *cols, int ncols, void *rows,
			    size_t stride, hsize_t n, bool optional)
{
	for (int c = 0; c < ncols; c++) {
		char name[96];
		unsigned char *v;
		hsize_t m;

		snprintf(name, sizeof(name), "%s/%s", group, cols[c].name);
		if (optional && !exists(rd, name))
			continue;
		v = read_all(rd, name, h5_col_type(&cols[c]), cols[c].size, 1, 0, &m);
		if (!v)
			return -1;
		if (m != n) {
			free(v);
			return fs_fail(rd->e, FS_ERR_INPUT, "%s: the datasets in %s/ differ in length", rd->path, group);
		}
		for (hsize_t i = 0; i < n; i++)
			memcpy((unsigned char *)rows + i * stride + cols[c].offset, v + i * cols[c].size, cols[c].size);
		free(v);
	}
	return 0;
}

/* workload/: the figures in their order, with units, and the latency histogram. */
static int read_workload(struct reader *rd, struct results *r)
{
	hsize_t n = 0, ne = 0, nc = 0;
	char **names;

	if (!exists(rd, "workload"))
		return 0;
	names = exists(rd, "workload/figure_names") ? read_strs(rd, "workload/figure_names", 1, &n) : NULL;
	if (exists(rd, "workload/figure_names") && !names)
		return -1;
	for (hsize_t i = 0; i < n && r->nfigures < WORKLOAD_MAX_FIGURES; i++) {
		struct workload_figure *f = &r->figures[r->nfigures];
		char path[96], *units;
		hsize_t one;
		double *v;

		snprintf(path, sizeof(path), "workload/%s", names[i]);
		v = read_all(rd, path, H5T_NATIVE_DOUBLE, sizeof(double), 0, 0, &one);
		units = v ? attr_str(rd, path, H5_UNITS) : NULL;
		if (!units) {
			free(v);
			free_strs(names, n);
			return -1;
		}
		snprintf(f->name, sizeof(f->name), "%s", names[i]);
		snprintf(f->units, sizeof(f->units), "%s", units);
		f->value = *v;
		r->nfigures++;
		free(v);
		free(units);
	}
	free_strs(names, n);
	if (!exists(rd, "workload/latency_counts"))
		return 0;
	r->lat_edges = read_all(rd, "workload/latency_edges", H5T_NATIVE_DOUBLE, sizeof(double), 1, 0, &ne);
	r->lat_counts = r->lat_edges ? read_all(rd, "workload/latency_counts", H5T_NATIVE_DOUBLE, sizeof(double), 1, 0,
						&nc)
				     : NULL;
	if (!r->lat_counts)
		return -1;
	if (ne != nc + 1)
		return fs_fail(rd->e, FS_ERR_INPUT, "%s: workload/latency_edges needs one more value than latency_counts",
			       rd->path);
	r->nlat_bins = (uint32_t)nc;
	return 0;
}

/* resizes/: one row per private hash replacement. */
static int read_resizes(struct reader *rd, struct results *r)
{
	hsize_t n;

	if (!exists(rd, "resizes"))
		return 0;
	if (rows_of(rd, "resizes/process", &n) < 0)
		return -1;
	r->resizes = calloc(n ? n : 1, sizeof(*r->resizes));
	if (!r->resizes)
		return oom(rd);
	r->nresizes = (uint32_t)n;
	return read_struct_cols(rd, "resizes", h5_resize_cols, H5_RESIZE_COLS, r->resizes, sizeof(*r->resizes), n,
				false);
}

static int read_threads(struct reader *rd, struct results *r)
{
	hsize_t n;
	char **line = read_strs(rd, "threads/perf_line", 1, &n);

	if (!line)
		return -1;
	r->threads = calloc(n ? n : 1, sizeof(*r->threads));
	if (!r->threads) {
		free_strs(line, n);
		return oom(rd);
	}
	r->nthreads = (uint32_t)n;
	for (hsize_t i = 0; i < n; i++)
		r->threads[i].perf_line = line[i];
	free(line);
	if (read_struct_cols(rd, "threads", h5_thread_cols, H5_THREAD_COLS, r->threads, sizeof(*r->threads), n,
			     false) < 0)
		return -1;
	/* files written before the blocking workloads lack their columns: 0 */
	if (read_struct_cols(rd, "threads", h5_thread_blocking_cols, H5_THREAD_BLOCKING_COLS, r->threads,
			     sizeof(*r->threads), n, true) < 0)
		return -1;
	/* roles: only workloads whose threads differ write them */
	if (exists(rd, "threads/role")) {
		hsize_t nr;
		char **role = read_strs(rd, "threads/role", 1, &nr);
		int rc = 0;

		if (!role)
			return -1;
		if (nr != n)
			rc = fs_fail(rd->e, FS_ERR_INPUT, "%s: threads/role has %llu values for %llu threads", rd->path,
				     (unsigned long long)nr, (unsigned long long)n);
		for (hsize_t i = 0; rc == 0 && i < n; i++)
			if (!(r->threads[i].role = results_text(r, role[i])))
				rc = oom(rd);
		free_strs(role, nr);
		if (rc < 0)
			return -1;
	}
	/* and before the time breakdown its dataset (has_time stays false) */
	if (exists(rd, "threads/time")) {
		hsize_t nt;
		uint64_t *v = read_all(rd, "threads/time", H5T_NATIVE_UINT64, 8, 2, TC_NCLASSES, &nt);

		if (!v)
			return -1;
		if (nt != n * TC_NCLASSES) {
			free(v);
			return fs_fail(rd->e, FS_ERR_INPUT, "%s: threads/time has %llu values for %llu threads", rd->path,
				       (unsigned long long)nt, (unsigned long long)n);
		}
		for (hsize_t i = 0; i < n; i++) {
			memcpy(r->threads[i].time_ps, &v[i * TC_NCLASSES], sizeof(r->threads[i].time_ps));
			r->threads[i].has_time = true;
		}
		free(v);
	}
	return 0;
}

/* lines/: every line that saw traffic (the columns show needs: the numbers,
 * the description and the transfers). */
static int read_lines(struct reader *rd, struct results *r)
{
	hsize_t n, nx, nwhat;
	uint64_t *xfer = NULL;
	char **what = NULL;
	int rc = -1;

	if (rows_of(rd, "lines/line", &n) < 0)
		return -1;
	r->lines = calloc(n ? n : 1, sizeof(*r->lines));
	if (!r->lines)
		return oom(rd);
	r->nlines = (uint32_t)n;
	if (read_struct_cols(rd, "lines", h5_line_cols, H5_LINE_COLS, r->lines, sizeof(*r->lines), n, false) < 0)
		return -1;
	xfer = read_all(rd, "lines/transfers", H5T_NATIVE_UINT64, 8, 2, XFER_NCLASSES, &nx);
	what = xfer ? read_strs(rd, "lines/description", 1, &nwhat) : NULL;
	if (!what)
		goto out;
	if (nx != n * XFER_NCLASSES || nwhat != n) {
		fs_fail(rd->e, FS_ERR_INPUT, "%s: the datasets in lines/ differ in length", rd->path);
		goto out;
	}
	for (hsize_t i = 0; i < n; i++) {
		struct line_result *h = &r->lines[i];

		memcpy(h->transfers, &xfer[i * XFER_NCLASSES], sizeof(h->transfers));
		for (int k = 0; k < XFER_NCLASSES; k++)
			h->total_transfers += h->transfers[k];
		h->what = results_text(r, what[i]);
		if (!h->what) {
			oom(rd);
			goto out;
		}
	}
	rc = 0;
out:
	free(xfer);
	free_strs(what, what ? nwhat : 0);
	return rc;
}

/* tables/ (their names) and buckets/. */
static int read_buckets(struct reader *rd, struct results *r)
{
	hsize_t n, nt;
	char **names = read_strs(rd, "tables/name", 1, &nt);

	if (!names)
		return -1;
	r->tables = calloc(nt ? nt : 1, sizeof(*r->tables));
	if (!r->tables) {
		free_strs(names, nt);
		return oom(rd);
	}
	r->ntables = (uint32_t)nt;
	for (hsize_t i = 0; i < nt; i++)
		r->tables[i].name = names[i];
	free(names);
	if (rows_of(rd, "buckets/table", &n) < 0)
		return -1;
	r->buckets = calloc(n ? n : 1, sizeof(*r->buckets));
	if (!r->buckets)
		return oom(rd);
	r->nbuckets = n;
	if (read_struct_cols(rd, "buckets", h5_bucket_cols, H5_BUCKET_COLS, r->buckets, sizeof(*r->buckets), n,
			     false) < 0)
		return -1;
	for (hsize_t i = 0; i < n; i++)
		if (r->buckets[i].table >= nt)
			return fs_fail(rd->e, FS_ERR_INPUT, "%s: buckets/table refers to table %u of %llu", rd->path,
				       r->buckets[i].table, (unsigned long long)nt);
	return 0;
}

/* "a=1 b=2" from provenance/overrides. */
static char *read_overrides(struct reader *rd)
{
	hsize_t n;
	char **v = read_strs(rd, "provenance/overrides", 1, &n), *out;

	if (!v)
		return NULL;
	out = results_join((const char *const *)v, n);
	if (!out)
		oom(rd);
	free_strs(v, n);
	return out;
}

static int read_summary(struct reader *rd, struct results *r, uint32_t top, struct h5read_info *info)
{
	hsize_t n;
	uint64_t *xfer;
	uint64_t hottest = 0;

	r->version = attr_str(rd, "provenance", "futexsim_version");
	r->scenario = r->version ? attr_str(rd, "summary", "scenario") : NULL;
	r->machine = r->scenario ? attr_str(rd, "summary", "machine") : NULL;
	r->kernel = r->machine ? attr_str(rd, "summary", "kernel") : NULL;
	r->workload = r->kernel ? attr_str(rd, "summary", "workload") : NULL;
	r->overrides = r->workload ? read_overrides(rd) : NULL;
	r->perf_header = r->overrides ? read_text(rd, "summary/perf_header") : NULL;
	if (r->perf_header && exists(rd, "summary/kernel_work_steps")) {
		hsize_t nsteps;
		uint64_t *v = read_all(rd, "summary/kernel_work_steps", H5T_NATIVE_UINT64, 8, 1, 0, &nsteps);

		if (!v)
			return -1;
		/* another version's list of steps: no split rather than a wrong one */
		if (nsteps == STEP_NSTEPS) {
			memcpy(r->kernel_steps_ps, v, sizeof(r->kernel_steps_ps));
			r->has_steps = true;
		}
		free(v);
	}
	if (r->perf_header && exists(rd, "summary/perf_summary")) {
		r->perf_runs = read_text(rd, "summary/perf_runs");
		r->perf_summary = r->perf_runs ? read_text(rd, "summary/perf_summary") : NULL;
		if (!r->perf_summary)
			return -1;
	}
	if (!r->perf_header || attr_num(rd, "provenance", "seed", H5T_NATIVE_UINT64, &r->seed) < 0 ||
	    attr_num(rd, "provenance", "wall_seconds", H5T_NATIVE_DOUBLE, &r->wall_secs) < 0 ||
	    attr_num(rd, "provenance", "events", H5T_NATIVE_UINT64, &r->events) < 0 ||
	    attr_num(rd, "/", "incomplete", H5T_NATIVE_INT, &r->incomplete) < 0 ||
	    attr_num(rd, "summary", "per_thread", H5T_NATIVE_INT, &info->per_thread) < 0 ||
	    attr_num(rd, "summary", "hottest_lines", H5T_NATIVE_UINT64, &hottest) < 0 ||
	    read_u64(rd, "summary/ops_per_sec", &r->avg.mean) < 0 ||
	    read_u64(rd, "summary/total_ops", &r->total_ops) < 0 ||
	    read_u64(rd, "summary/simulated_ops", &r->ops_simulated) < 0 ||
	    read_u64(rd, "summary/dram_fills", &r->fills) < 0 || read_u64(rd, "summary/warmup", &r->warmup_ps) < 0 ||
	    read_u64(rd, "summary/window", &r->window_ps) < 0 ||
	    /* written since futexsim 0.1.0 of 2026-12: absent means none */
	    (exists(rd, "summary/directory_reads") && read_u64(rd, "summary/directory_reads", &r->directory_reads) < 0))
		return -1;
	if (exists(rd, "summary/ops_per_sec_band")) {
		double *band = read_all(rd, "summary/ops_per_sec_band", H5T_NATIVE_DOUBLE, sizeof(double), 1, 0, &n);
		uint64_t runs;

		if (!band)
			return -1;
		if (n != 2 || attr_num(rd, "summary/ops_per_sec_band", "runs", H5T_NATIVE_UINT64, &runs) < 0 ||
		    runs == 0 || runs > UINT32_MAX) {
			free(band);
			if (!rd->e->status)
				fs_fail(rd->e, FS_ERR_INPUT, "%s: summary/ops_per_sec_band: 2 values and a runs attribute "
					"(1 or more) expected", rd->path);
			return -1;
		}
		r->band_lo = band[0];
		r->band_hi = band[1];
		r->band_runs = (uint32_t)runs;
		free(band);
		/* written since 2026-12-02: absent means a fitted machine's band */
		if (H5Aexists_by_name(rd->file, "summary/ops_per_sec_band", "basis", H5P_DEFAULT) > 0) {
			char *basis = attr_str(rd, "summary/ops_per_sec_band", "basis");

			if (!basis)
				return -1;
			r->band_basis = band_basis_from_name(basis);
			free(basis);
		}
	}
	{
		double *sd = read_all(rd, "summary/ops_per_sec_stderr", H5T_NATIVE_DOUBLE, sizeof(double), 0, 0, &n);

		if (!sd)
			return -1;
		r->avg.stderr_pct = *sd;
		free(sd);
	}
	xfer = read_all(rd, "summary/transfers", H5T_NATIVE_UINT64, 8, 1, 0, &n);
	if (!xfer)
		return -1;
	if (n != XFER_NCLASSES) {
		free(xfer);
		return fs_fail(rd->e, FS_ERR_INPUT, "%s: summary/transfers has %llu classes, expected %d", rd->path,
			       (unsigned long long)n, XFER_NCLASSES);
	}
	memcpy(r->transfers, xfer, sizeof(r->transfers));
	free(xfer);
	info->hottest_lines = hottest > 1000 ? 1000 : (uint32_t)hottest;
	if (read_threads(rd, r) < 0 || read_workload(rd, r) < 0 || read_resizes(rd, r) < 0 || read_lines(rd, r) < 0 ||
	    read_buckets(rd, r) < 0)
		return -1;
	/* rows are in line order, so ties fall as in the run (lower line first) */
	if (results_rank(r, top ? top : info->hottest_lines, top ? top : info->hottest_lines) < 0)
		return oom(rd);
	return 0;
}

int h5read_results_direct(const char *path, uint32_t top, struct results *r, struct h5read_info *info,
			  struct fs_error *e)
{
	struct reader rd;
	int rc;

	memset(r, 0, sizeof(*r));
	memset(info, 0, sizeof(*info));
	rc = open_file(&rd, path, e) < 0 ? -1 : read_summary(&rd, r, top, info);
	close_id(rd.file, H5Fclose);
	return rc;
}

static char *read_text_of(const char *path, const char *dataset, struct fs_error *e)
{
	struct reader rd;
	char *text = open_file(&rd, path, e) < 0 ? NULL : read_text(&rd, dataset);

	close_id(rd.file, H5Fclose);
	return text;
}

/* ---- reading an untrusted file in a child first ----------------------------------- */

/* Seconds a file of `bytes` may take to read: FUTEXSIM_READ_TIMEOUT when set, else
 * 20 s plus 1 s per 10 MB (a sound file reads at well over 10 MB/s). */
static double read_limit_secs(uint64_t bytes)
{
	const char *env = getenv("FUTEXSIM_READ_TIMEOUT");
	char *end;
	double v = env ? strtod(env, &end) : 0;

	if (env && end != env && !*end && v > 0)
		return v;
	return 20.0 + (double)bytes / 10e6;
}

/* libhdf5 can crash or loop on a damaged file, so the read is done first in a child
 * process with a time limit (read_limit_secs); only when the child read it cleanly
 * does the caller read it. A child that fails passes its message up a pipe; one that
 * crashes or runs out of time makes the file refused (FS_ERR_INPUT), never this
 * process. `work` is the read: (path, arg, e) -> 0 or -1. */
static int read_in_child(const char *path, int (*work)(const char *, void *, struct fs_error *), void *arg,
			 struct fs_error *e)
{
	struct stat st;
	struct timespec start, now;
	int fds[2], status = 0;
	double limit;
	pid_t pid;
	char msg[sizeof(e->msg)];
	ssize_t got;
	size_t len = 0;
	FILE *probe;

	/* the reasons libhdf5 would hide behind "unable to determine if file is accessible" */
	if (stat(path, &st) < 0)
		return fs_fail(e, FS_ERR_INPUT, "cannot read %s: %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return fs_fail(e, FS_ERR_INPUT, "cannot read %s: a directory, not a result file", path);
	probe = fopen(path, "rb");
	if (!probe)
		return fs_fail(e, FS_ERR_INPUT, "cannot read %s: %s", path, strerror(errno));
	fclose(probe);
	limit = read_limit_secs((uint64_t)st.st_size);
	if (pipe(fds) < 0)
		return fs_fail(e, FS_ERR_RUNTIME, "cannot read %s: pipe: %s", path, strerror(errno));
	fflush(NULL); /* nothing buffered may be written twice */
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return fs_fail(e, FS_ERR_RUNTIME, "cannot read %s: fork: %s", path, strerror(errno));
	}
	if (pid == 0) {
		struct fs_error ce = { 0 };
		int rc;

		close(fds[0]);
		rc = work(path, arg, &ce);
		if (rc < 0 && write(fds[1], ce.msg, strlen(ce.msg)) < 0)
			rc = -1;
		_exit(rc < 0 ? (ce.status ? ce.status : FS_ERR_INPUT) : 0);
	}
	close(fds[1]);
	/* the child's message, if any, then end of file when it exits (its end of the
	 * pipe closes): no polling of its status, no sleeping */
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		struct pollfd pfd = { .fd = fds[0], .events = POLLIN };
		double left;
		int ready;

		clock_gettime(CLOCK_MONOTONIC, &now);
		left = limit - ((double)(now.tv_sec - start.tv_sec) + (double)(now.tv_nsec - start.tv_nsec) / 1e9);
		if (left <= 0) {
			kill(pid, SIGKILL);
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
			close(fds[0]);
			return fs_fail(e, FS_ERR_INPUT,
				       "%s: reading it took more than %.0f s: a damaged file (FUTEXSIM_READ_TIMEOUT sets "
				       "the limit)", path, limit);
		}
		ready = poll(&pfd, 1, left > 1e6 ? 1000000000 : (int)(left * 1000) + 1);
		if (ready <= 0)
			continue; /* time to look at the limit again, or EINTR */
		got = read(fds[0], msg + len, sizeof(msg) - 1 - len);
		if (got > 0 && len + (size_t)got < sizeof(msg) - 1) {
			len += (size_t)got;
			continue;
		}
		if (got < 0 && errno == EINTR)
			continue;
		if (got > 0)
			len += (size_t)got;
		break; /* end of file: the child is done */
	}
	close(fds[0]);
	msg[len] = '\0';
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFSIGNALED(status))
		return fs_fail(e, FS_ERR_INPUT, "%s: the HDF5 library crashed reading it (signal %d): a damaged file",
			       path, WTERMSIG(status));
	/* a child that fails says why; one that exits without a word was ended inside the
	 * library (a sanitizer's report under make sanitize, or libhdf5's own exit) */
	if (WIFEXITED(status) && WEXITSTATUS(status) != 0 && !msg[0])
		return fs_fail(e, FS_ERR_INPUT, "%s: the HDF5 library failed reading it (exit %d): a damaged file", path,
			       WEXITSTATUS(status));
	if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
		return fs_fail(e, WEXITSTATUS(status), "%s", msg);
	return 0;
}

struct results_read {
	uint32_t top;
	struct results r;
	struct h5read_info info;
};

static int child_results(const char *path, void *arg, struct fs_error *e)
{
	struct results_read *a = arg;
	int rc = h5read_results_direct(path, a->top, &a->r, &a->info, e);

	results_free(&a->r);
	return rc;
}

static int child_text(const char *path, void *dataset, struct fs_error *e)
{
	char *text = read_text_of(path, dataset, e);

	free(text);
	return text ? 0 : -1;
}

int h5read_results(const char *path, uint32_t top, struct results *r, struct h5read_info *info,
		   struct fs_error *e)
{
	struct results_read probe = { .top = top };

	memset(r, 0, sizeof(*r));
	memset(info, 0, sizeof(*info));
	if (read_in_child(path, child_results, &probe, e) < 0)
		return -1;
	return h5read_results_direct(path, top, r, info, e);
}

char *h5read_text(const char *path, const char *dataset, struct fs_error *e)
{
	if (read_in_child(path, child_text, (void *)dataset, e) < 0)
		return NULL;
	return read_text_of(path, dataset, e);
}
