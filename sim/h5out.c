/* SPDX-License-Identifier: MIT */
#include "sim/h5out.h"

#include <errno.h>
#include <fcntl.h>
#include <gsl/gsl_version.h>
#include <hdf5_hl.h>
#include <libgen.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "sim/h5common.h"
#include "sim/revision.h"

/* Datasets of more bytes than this are chunked, shuffled and deflated;
 * smaller ones are contiguous (a chunk index would outweigh the gain). */
#define BIG_DATASET 16384u
/* zlib level: 1 compresses these counters nearly as well as 9, far faster. */
#define DEFLATE_LEVEL 1
#define CHUNK_BYTES 65536u

static const char *const xfer_classes[XFER_NCLASSES] = { "smt", "node", "remote" };

static int fail(struct fs_error *e, const struct h5out *o, const char *what)
{
	char why[512];

	return fs_fail(e, FS_ERR_OUTPUT, "cannot write %s: %s: %s", o->path, what, h5_error_text(why, sizeof(why)));
}

static void close_id(hid_t id, herr_t (*closer)(hid_t))
{
	if (id >= 0)
		closer(id);
}

/* ---- attributes ------------------------------------------------------------ */

static int attr(hid_t loc, const char *name, hid_t type, hid_t space, const void *value)
{
	hid_t a;
	int rc = -1;

	if (H5Aexists(loc, name) > 0)
		a = H5Aopen(loc, name, H5P_DEFAULT);
	else
		a = H5Acreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
	if (a >= 0 && H5Awrite(a, type, value) >= 0)
		rc = 0;
	close_id(a, H5Aclose);
	return rc;
}

static int attr_num(hid_t loc, const char *name, hid_t type, const void *value)
{
	hid_t space = H5Screate(H5S_SCALAR);
	int rc = space >= 0 ? attr(loc, name, type, space, value) : -1;

	close_id(space, H5Sclose);
	return rc;
}

static int attr_u64(hid_t loc, const char *name, uint64_t v)
{
	return attr_num(loc, name, H5T_NATIVE_UINT64, &v);
}

static int attr_int(hid_t loc, const char *name, int v)
{
	return attr_num(loc, name, H5T_NATIVE_INT, &v);
}

static int attr_f64(hid_t loc, const char *name, double v)
{
	return attr_num(loc, name, H5T_NATIVE_DOUBLE, &v);
}

/* One string (n == 0: scalar) or a list of n strings, variable length. */
static int attr_strs(hid_t loc, const char *name, const char *const *v, hsize_t n)
{
	hid_t type = h5_str_type(0);
	hid_t space = n ? H5Screate_simple(1, &n, NULL) : H5Screate(H5S_SCALAR);
	int rc = type >= 0 && space >= 0 ? attr(loc, name, type, space, v) : -1;

	close_id(space, H5Sclose);
	close_id(type, H5Tclose);
	return rc;
}

static int attr_str(hid_t loc, const char *name, const char *v)
{
	return attr_strs(loc, name, &v, 0);
}

/* ---- groups and datasets ---------------------------------------------------- */

/* Object headers without access/modification times: two runs of the same
 * scenario then differ only in the provenance values that must differ. */
static hid_t group(hid_t loc, const char *name)
{
	hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE), g = -1;

	if (gcpl >= 0 && H5Pset_obj_track_times(gcpl, 0) >= 0)
		g = H5Gcreate2(loc, name, H5P_DEFAULT, gcpl, H5P_DEFAULT);
	close_id(gcpl, H5Pclose);
	return g;
}

/* A dataset of rank 0 (scalar) to 2 holding `data` (of `type`, also the file
 * type), with its units; over BIG_DATASET bytes chunked and compressed.
 * `maxdims` non-NULL makes it extendible (chunked, compressed, rows of
 * `chunk_rows`); then `data` may be NULL with dims[0] == 0. */
static int dataset(struct h5out *o, hid_t loc, const char *name, hid_t type, int rank, const hsize_t *dims,
		   const hsize_t *maxdims, hsize_t chunk_rows, const void *data, const char *units, hid_t *keep,
		   struct fs_error *e)
{
	hid_t space = rank ? H5Screate_simple(rank, dims, maxdims) : H5Screate(H5S_SCALAR);
	hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE), d = -1;
	hsize_t n = 1, row = H5Tget_size(type), chunk[2];
	int rc = -1;

	for (int i = 0; i < rank; i++)
		n *= dims[i];
	for (int i = 1; i < rank; i++)
		row *= dims[i];
	if (space < 0 || dcpl < 0 || H5Pset_obj_track_times(dcpl, 0) < 0)
		goto out;
	if (rank && (maxdims || n * H5Tget_size(type) > BIG_DATASET)) {
		chunk[0] = chunk_rows ? chunk_rows : CHUNK_BYTES / (row ? row : 1);
		if (chunk[0] == 0)
			chunk[0] = 1;
		if (!maxdims && chunk[0] > dims[0])
			chunk[0] = dims[0];
		if (rank == 2)
			chunk[1] = dims[1];
		if (H5Pset_chunk(dcpl, rank, chunk) < 0 || H5Pset_shuffle(dcpl) < 0 ||
		    H5Pset_deflate(dcpl, DEFLATE_LEVEL) < 0)
			goto out;
	}
	d = H5Dcreate2(loc, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
	if (d < 0 || (n && data && H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0) ||
	    attr_str(d, H5_UNITS, units) < 0)
		goto out;
	rc = 0;
out:
	if (rc == 0 && keep)
		*keep = d;
	else
		close_id(d, H5Dclose);
	close_id(dcpl, H5Pclose);
	close_id(space, H5Sclose);
	return rc < 0 ? fail(e, o, name) : 0;
}

static int put(struct h5out *o, hid_t loc, const char *name, hid_t type, int rank, const hsize_t *dims,
	       const void *data, const char *units, struct fs_error *e)
{
	return dataset(o, loc, name, type, rank, dims, NULL, 0, data, units, NULL, e);
}

static int put_u64(struct h5out *o, hid_t loc, const char *name, uint64_t v, const char *units, struct fs_error *e)
{
	return put(o, loc, name, H5T_NATIVE_UINT64, 0, NULL, &v, units, e);
}

static int put_col(struct h5out *o, hid_t loc, const char *name, hid_t type, hsize_t n, const void *data,
		   const char *units, struct fs_error *e)
{
	return put(o, loc, name, type, 1, &n, data, units, e);
}

/* n strings as a column of fixed-length strings (n == 0 and scalar: one string
 * as a scalar dataset), units "text". */
static int put_strs(struct h5out *o, hid_t loc, const char *name, const char *const *v, hsize_t n, int scalar,
		    struct fs_error *e)
{
	size_t len = 1, count = scalar ? 1 : n;
	char *buf;
	hid_t type;
	int rc;

	for (size_t i = 0; i < count; i++)
		if (strlen(v[i]) > len)
			len = strlen(v[i]);
	buf = calloc(count ? count : 1, len);
	type = h5_str_type(len);
	if (!buf || type < 0) {
		free(buf);
		close_id(type, H5Tclose);
		return fs_fail(e, FS_ERR_LIMIT, "out of memory writing %s", o->path);
	}
	for (size_t i = 0; i < count; i++)
		memcpy(buf + i * len, v[i], strlen(v[i]));
	rc = put(o, loc, name, type, scalar ? 0 : 1, &n, buf, H5_U_TEXT, e);
	H5Tclose(type);
	free(buf);
	return rc;
}

static int put_text(struct h5out *o, hid_t loc, const char *name, const char *text, struct fs_error *e)
{
	return put_strs(o, loc, name, &text, 0, 1, e);
}

/* Transfers by distance class (the last dimension), with the class names. */
static int put_transfers(struct h5out *o, hid_t loc, const char *name, int rank, const hsize_t *dims,
			 const hsize_t *maxdims, hsize_t chunk_rows, const void *data, hid_t *keep, struct fs_error *e)
{
	hid_t d;

	if (dataset(o, loc, name, H5T_NATIVE_UINT64, rank, dims, maxdims, chunk_rows, data, H5_U_COUNT, &d, e) < 0)
		return -1;
	if (attr_strs(d, "classes", xfer_classes, XFER_NCLASSES) < 0) {
		H5Dclose(d);
		return fail(e, o, name);
	}
	if (keep)
		*keep = d;
	else
		H5Dclose(d);
	return 0;
}

/* ---- opening: provenance and the time series -------------------------------- */

/* Whether `s` is a decimal integer ([-]digits) or another plain decimal number. */
static bool is_integer(const char *s)
{
	s += *s == '-';
	return *s && strspn(s, "0123456789") == strlen(s);
}

static bool is_decimal(const char *s)
{
	char *end;
	double v;

	/* digits, point, exponent and signs only: no hex, nan, inf or 1_000 */
	if (!*s || strspn(s, "0123456789.eE+-") != strlen(s))
		return false;
	v = strtod(s, &end);
	return !*end && v > -1e308 && v < 1e308;
}

/* provenance/parameters/KEY: each --set key with the value it was last set to,
 * typed: a decimal integer as int64, another number as float64, anything else
 * (2ms, a preset name, a flow map) as the text given; so that h5py or pandas users
 * get a bucket count as a number without parsing the overrides. */
static int write_parameters(struct h5out *o, hid_t prov, const struct scenario *sc, struct fs_error *e)
{
	hid_t g = group(prov, "parameters");
	int rc = -1;

	if (g < 0)
		return fail(e, o, "provenance/parameters");
	for (size_t i = 0; i < sc->nsets; i++) {
		const char *eq = strchr(sc->sets[i], '='), *value;
		char key[256];
		bool later = false;

		if (!eq || (size_t)(eq - sc->sets[i]) >= sizeof(key))
			continue;
		snprintf(key, sizeof(key), "%.*s", (int)(eq - sc->sets[i]), sc->sets[i]);
		for (size_t j = i + 1; j < sc->nsets && !later; j++)
			later = !strncmp(sc->sets[j], key, strlen(key)) && sc->sets[j][strlen(key)] == '=';
		if (later || strchr(key, '/') || !strcmp(key, "."))
			continue;
		value = eq + 1;
		if (is_integer(value) && strlen(value) < 19) {
			long long v = strtoll(value, NULL, 10);

			if (put(o, g, key, H5T_NATIVE_LLONG, 0, NULL, &v, H5_U_AS_SET, e) < 0)
				goto out;
		} else if (is_decimal(value)) {
			double v = strtod(value, NULL);

			if (put(o, g, key, H5T_NATIVE_DOUBLE, 0, NULL, &v, H5_U_AS_SET, e) < 0)
				goto out;
		} else if (put_text(o, g, key, value, e) < 0) {
			goto out;
		}
	}
	rc = 0;
out:
	close_id(g, H5Gclose);
	return rc;
}

static int write_provenance(struct h5out *o, const struct scenario *sc, const struct h5out_origin *origin,
			    struct fs_error *e)
{
	char version[64], started[32];
	unsigned maj, min, rel;
	struct tm tm;
	char *resolved = yt_emit_string(sc->resolved);
	hid_t g = group(o->file, "provenance");
	int rc = -1;

	H5get_libversion(&maj, &min, &rel);
	snprintf(version, sizeof(version), "%u.%u.%u", maj, min, rel);
	strftime(started, sizeof(started), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&origin->start, &tm));
	if (!resolved) {
		fs_fail(e, FS_ERR_LIMIT, "out of memory writing %s", o->path);
		goto out;
	}
	if (g < 0 || attr_str(g, "futexsim_version", FUTEXSIM_VERSION) < 0 ||
	    attr_str(g, "git_revision", futexsim_git_rev) < 0 || attr_str(g, "gsl_version", gsl_version) < 0 ||
	    attr_str(g, "hdf5_version", version) < 0 ||
	    attr_str(g, "libyaml_version", yaml_get_version_string()) < 0 || attr_u64(g, "seed", sc->seed) < 0 ||
	    attr_str(g, "start_time_utc", started) < 0 || attr_str(g, "scenario_path", sc->path) < 0) {
		fail(e, o, "provenance");
		goto out;
	}
	if (put_text(o, g, "scenario_given", sc->given_text, e) < 0 ||
	    put_text(o, g, "scenario_resolved", resolved, e) < 0 ||
	    put_strs(o, g, "overrides", sc->sets, sc->nsets, 0, e) < 0 ||
	    put_strs(o, g, "command_line", (const char *const *)origin->argv, (hsize_t)origin->argc, 0, e) < 0 ||
	    write_parameters(o, g, sc, e) < 0)
		goto out;
	rc = 0;
out:
	free(resolved);
	close_id(g, H5Gclose);
	return rc;
}

static int create_timeseries(struct h5out *o, const struct timeseries *series, struct fs_error *e)
{
	const hsize_t rows = series_chunk_rows(series->nthreads);
	hsize_t zero[2] = { 0, series->nthreads }, grow[2] = { H5S_UNLIMITED, series->nthreads };
	hsize_t zero3[2] = { 0, XFER_NCLASSES }, grow3[2] = { H5S_UNLIMITED, XFER_NCLASSES };
	hid_t g = group(o->file, "timeseries");
	int rc = -1;

	if (g < 0 || attr_u64(g, "interval_ps", series->interval) < 0 || attr_u64(g, "start_ps", series->start) < 0 ||
	    attr_u64(g, "end_ps", series->end) < 0) {
		fail(e, o, "timeseries");
		goto out;
	}
	if (dataset(o, g, "time", H5T_NATIVE_UINT64, 1, zero, grow, rows, NULL, H5_U_PS, &o->series_time, e) < 0 ||
	    dataset(o, g, "ops", H5T_NATIVE_UINT64, 2, zero, grow, rows, NULL, H5_U_COUNT, &o->series_ops, e) < 0 ||
	    put_transfers(o, g, "transfers", 2, zero3, grow3, rows, NULL, &o->series_transfers, e) < 0)
		goto out;
	rc = 0;
out:
	close_id(g, H5Gclose);
	return rc;
}

/* The temporary name: ".<base>.<pid>.tmp" beside the final one. */
static char *temp_name(const char *path)
{
	char *a = strdup(path), *b = strdup(path), *out = NULL;
	size_t len;

	if (a && b) {
		len = strlen(path) + 64;
		out = malloc(len);
		/* at most 200 bytes of the name: a 255-byte name (NAME_MAX) stays writable */
		if (out)
			snprintf(out, len, "%s/.%.200s.%ld.tmp", dirname(a), basename(b), (long)getpid());
	}
	free(a);
	free(b);
	return out;
}

int h5out_open(struct h5out *o, const char *path, const struct scenario *sc, const struct timeseries *series,
	       const struct h5out_origin *origin, struct fs_error *e)
{
	struct stat st;
	hid_t root;
	int fd;

	memset(o, 0, sizeof(*o));
	o->file = o->series_time = o->series_ops = o->series_transfers = -1;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return fs_fail(e, FS_ERR_OUTPUT, "cannot write %s: it is a directory", path);
	h5_quiet();
	o->path = strdup(path);
	o->tmp = temp_name(path);
	if (!o->path || !o->tmp) {
		h5out_abort(o);
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	}
	/* created here first, so that an unwritable place fails with the system's words */
	fd = open(o->tmp, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	if (fd < 0) {
		fs_fail(e, FS_ERR_OUTPUT, "cannot write %s: cannot create %s: %s", path, o->tmp, strerror(errno));
		free(o->tmp);
		o->tmp = NULL;
		h5out_abort(o);
		return -1;
	}
	close(fd);
	o->file = H5Fcreate(o->tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	if (o->file < 0) {
		fail(e, o, "creating the file");
		h5out_abort(o);
		return -1;
	}
	root = o->file;
	if (attr_str(root, "format", H5OUT_FORMAT) < 0 || attr_int(root, "format_version", H5OUT_FORMAT_VERSION) < 0 ||
	    attr_int(root, "incomplete", 1) < 0) {
		fail(e, o, "attributes");
		h5out_abort(o);
		return -1;
	}
	if (write_provenance(o, sc, origin, e) < 0 || create_timeseries(o, series, e) < 0) {
		h5out_abort(o);
		return -1;
	}
	return 0;
}

int h5out_append(void *ctx, const struct series_rows *rows, struct fs_error *e)
{
	struct h5out *o = ctx;

	if (H5DOappend(o->series_time, H5P_DEFAULT, 0, rows->n, H5T_NATIVE_UINT64, rows->time) < 0 ||
	    H5DOappend(o->series_ops, H5P_DEFAULT, 0, rows->n, H5T_NATIVE_UINT64, rows->ops) < 0 ||
	    H5DOappend(o->series_transfers, H5P_DEFAULT, 0, rows->n, H5T_NATIVE_UINT64, rows->transfers) < 0)
		return fail(e, o, "timeseries");
	return 0;
}

/* ---- finishing: summary, threads, lines, buckets ------------------------------ */

/* summary/kernel_work_steps: (steps) ps, the reported threads' kernel_work in the
 * window by path step; attr steps = the step names (models/futex_step.h). */
static int put_kernel_steps(struct h5out *o, hid_t g, const struct results *r, struct fs_error *e)
{
	const hsize_t n = STEP_NSTEPS;
	hid_t d;
	int rc;

	if (!r->has_steps)
		return 0;
	if (dataset(o, g, "kernel_work_steps", H5T_NATIVE_UINT64, 1, &n, NULL, 0, r->kernel_steps_ps, H5_U_PS, &d, e) < 0)
		return -1;
	rc = attr_strs(d, "steps", futex_step_names, STEP_NSTEPS);
	H5Dclose(d);
	return rc < 0 ? fail(e, o, "summary/kernel_work_steps") : 0;
}

static int write_summary(struct h5out *o, const struct scenario *sc, const struct results *r, struct fs_error *e)
{
	const hsize_t three = XFER_NCLASSES, nodes[2] = { r->nodes, r->nodes };
	hid_t g = group(o->file, "summary");
	int rc = -1;

	if (g < 0 || attr_str(g, "scenario", r->scenario) < 0 || attr_str(g, "machine", r->machine) < 0 ||
	    attr_str(g, "kernel", r->kernel) < 0 || attr_str(g, "workload", r->workload) < 0 ||
	    attr_int(g, "per_thread", sc->per_thread) < 0 || attr_u64(g, "hottest_lines", sc->hottest_lines) < 0) {
		fail(e, o, "summary");
		goto out;
	}
	if (put_u64(o, g, "ops_per_sec", r->avg.mean, H5_U_OPS_PER_SEC, e) < 0 ||
	    put(o, g, "ops_per_sec_stderr", H5T_NATIVE_DOUBLE, 0, NULL, &r->avg.stderr_pct, H5_U_PERCENT, e) < 0 ||
	    put_u64(o, g, "total_ops", r->total_ops, H5_U_COUNT, e) < 0 ||
	    put_u64(o, g, "simulated_ops", r->ops_simulated, H5_U_COUNT, e) < 0 ||
	    put_u64(o, g, "dram_fills", r->fills, H5_U_COUNT, e) < 0 ||
	    put_u64(o, g, "directory_reads", r->directory_reads, H5_U_COUNT, e) < 0 ||
	    put_u64(o, g, "warmup", r->warmup_ps, H5_U_PS, e) < 0 || put_u64(o, g, "window", r->window_ps, H5_U_PS, e) < 0 ||
	    put_text(o, g, "perf_header", r->perf_header, e) < 0 ||
	    (r->perf_summary && (put_text(o, g, "perf_runs", r->perf_runs, e) < 0 ||
				 put_text(o, g, "perf_summary", r->perf_summary, e) < 0)) ||
	    put_kernel_steps(o, g, r, e) < 0 ||
	    put(o, g, "node_transfers", H5T_NATIVE_UINT64, 2, nodes, r->node_transfers, H5_U_COUNT, e) < 0 ||
	    put_transfers(o, g, "transfers", 1, &three, NULL, 0, r->transfers, NULL, e) < 0)
		goto out;
	if (r->band_runs) {
		const double band[2] = { r->band_lo, r->band_hi };
		const hsize_t two = 2;
		hid_t d;

		if (put(o, g, "ops_per_sec_band", H5T_NATIVE_DOUBLE, 1, &two, band, H5_U_OPS_PER_SEC, e) < 0)
			goto out;
		d = H5Dopen2(g, "ops_per_sec_band", H5P_DEFAULT);
		if (d < 0 || attr_u64(d, "runs", r->band_runs) < 0 ||
		    attr_str(d, "basis", band_basis_name(r->band_basis)) < 0) {
			close_id(d, H5Dclose);
			fail(e, o, "summary/ops_per_sec_band");
			goto out;
		}
		close_id(d, H5Dclose);
	}
	rc = 0;
out:
	close_id(g, H5Gclose);
	return rc;
}

/* The columns `cols` of the `n` structs at `rows`, `stride` bytes apart. */
static int put_struct_cols(struct h5out *o, hid_t g, const struct h5_col *cols, int ncols, const void *rows,
			   size_t stride, hsize_t n, struct fs_error *e)
{
	unsigned char *v = malloc(n ? n * sizeof(uint64_t) : 1);
	int rc = 0;

	if (!v)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory writing %s", o->path);
	for (int c = 0; c < ncols && rc == 0; c++) {
		for (hsize_t i = 0; i < n; i++)
			memcpy(v + i * cols[c].size, (const unsigned char *)rows + i * stride + cols[c].offset,
			       cols[c].size);
		rc = put_col(o, g, cols[c].name, h5_col_type(&cols[c]), n, v, cols[c].units, e);
	}
	free(v);
	return rc;
}

/* threads/time: (threads, classes) ps, each thread's time in the window by what it
 * did; attr classes = the class names (models/task.h: time_class_names). */
static int put_thread_time(struct h5out *o, hid_t g, const struct results *r, struct fs_error *e)
{
	const hsize_t dims[2] = { r->nthreads, TC_NCLASSES };
	uint64_t *v = calloc((size_t)r->nthreads * TC_NCLASSES + 1, sizeof(*v));
	hid_t d;
	int rc;

	if (!v)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory writing %s", o->path);
	for (uint32_t i = 0; i < r->nthreads; i++)
		memcpy(&v[(size_t)i * TC_NCLASSES], r->threads[i].time_ps, sizeof(r->threads[i].time_ps));
	rc = dataset(o, g, "time", H5T_NATIVE_UINT64, 2, dims, NULL, 0, v, H5_U_PS, &d, e);
	free(v);
	if (rc < 0)
		return -1;
	rc = attr_strs(d, "classes", time_class_names, TC_NCLASSES);
	H5Dclose(d);
	return rc < 0 ? fail(e, o, "threads/time") : 0;
}

static int write_threads(struct h5out *o, const struct results *r, struct fs_error *e)
{
	const uint32_t n = r->nthreads;
	const char **line = calloc(n ? n : 1, sizeof(*line)), **role = calloc(n ? n : 1, sizeof(*role));
	bool roles = n && r->threads[0].role;
	hid_t g = group(o->file, "threads");
	int rc = -1;

	if (!line || !role)
		fs_fail(e, FS_ERR_LIMIT, "out of memory writing %s", o->path);
	else if (g < 0)
		fail(e, o, "threads");
	else {
		for (uint32_t i = 0; i < n; i++) {
			line[i] = r->threads[i].perf_line;
			role[i] = r->threads[i].role ? r->threads[i].role : "";
		}
		if (put_struct_cols(o, g, h5_thread_cols, H5_THREAD_COLS, r->threads, sizeof(*r->threads), n, e) == 0 &&
		    put_struct_cols(o, g, h5_thread_blocking_cols, H5_THREAD_BLOCKING_COLS, r->threads,
				    sizeof(*r->threads), n, e) == 0 &&
		    put_strs(o, g, "perf_line", line, n, 0, e) == 0 && put_thread_time(o, g, r, e) == 0 &&
		    (!roles || put_strs(o, g, "role", role, n, 0, e) == 0))
			rc = 0;
	}
	free(line);
	free(role);
	close_id(g, H5Gclose);
	return rc;
}

/* The workload's figures (one scalar dataset each, with its units) and its
 * latency histogram; absent for workloads without any. */
static int write_workload(struct h5out *o, const struct results *r, struct fs_error *e)
{
	hsize_t edges = r->nlat_bins + 1, bins = r->nlat_bins;
	hid_t g;
	int rc = -1;

	if (!r->nfigures && !r->nlat_bins)
		return 0;
	g = group(o->file, "workload");
	if (g < 0)
		return fail(e, o, "workload");
	{
		const char *names[WORKLOAD_MAX_FIGURES];

		for (uint32_t i = 0; i < r->nfigures; i++)
			names[i] = r->figures[i].name;
		if (r->nfigures && put_strs(o, g, "figure_names", names, r->nfigures, 0, e) < 0)
			goto out;
	}
	for (uint32_t i = 0; i < r->nfigures; i++)
		if (put(o, g, r->figures[i].name, H5T_NATIVE_DOUBLE, 0, NULL, &r->figures[i].value, r->figures[i].units,
			e) < 0)
			goto out;
	if (r->nlat_bins && (put_col(o, g, "latency_edges", H5T_NATIVE_DOUBLE, edges, r->lat_edges, H5_U_PS, e) < 0 ||
			     put_col(o, g, "latency_counts", H5T_NATIVE_DOUBLE, bins, r->lat_counts, H5_U_COUNT, e) < 0))
		goto out;
	rc = 0;
out:
	close_id(g, H5Gclose);
	return rc;
}

/* Private hash resizes: a table of one row each; absent when there were none. */
static int write_resizes(struct h5out *o, const struct results *r, struct fs_error *e)
{
	hid_t g;
	int rc;

	if (!r->nresizes)
		return 0;
	g = group(o->file, "resizes");
	if (g < 0)
		return fail(e, o, "resizes");
	rc = put_struct_cols(o, g, h5_resize_cols, H5_RESIZE_COLS, r->resizes, sizeof(*r->resizes), r->nresizes, e);
	H5Gclose(g);
	return rc;
}

/* Rows of text from one char * field of `n` structs `stride` bytes apart. */
static int put_str_field(struct h5out *o, hid_t loc, const char *name, const void *rows, size_t stride,
			 size_t offset, hsize_t n, struct fs_error *e)
{
	const char **v = malloc((n ? n : 1) * sizeof(*v));
	int rc;

	if (!v)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory writing %s", o->path);
	for (hsize_t i = 0; i < n; i++) {
		const char *str = *(const char *const *)((const unsigned char *)rows + i * stride + offset);

		v[i] = str ? str : "";
	}
	rc = put_strs(o, loc, name, v, n, 0, e);
	free(v);
	return rc;
}

/* lines/: one row per line that saw traffic. */
static int write_lines(struct h5out *o, const struct results *r, struct fs_error *e)
{
	const hsize_t n = r->nlines, dims[2] = { n, XFER_NCLASSES };
	const size_t stride = sizeof(*r->lines);
	uint64_t (*xfer)[XFER_NCLASSES] = calloc(n ? n : 1, sizeof(*xfer));
	hid_t g = -1;
	int rc = -1;

	if (!xfer) {
		fs_fail(e, FS_ERR_LIMIT, "out of memory writing %s", o->path);
		goto out;
	}
	for (hsize_t i = 0; i < n; i++)
		memcpy(xfer[i], r->lines[i].transfers, sizeof(xfer[i]));
	g = group(o->file, "lines");
	if (g < 0) {
		fail(e, o, "lines");
		goto out;
	}
	if (put_struct_cols(o, g, h5_line_cols, H5_LINE_COLS, r->lines, stride, n, e) < 0 ||
	    put_str_field(o, g, "description", r->lines, stride, offsetof(struct line_result, what), n, e) < 0 ||
	    put_str_field(o, g, "object", r->lines, stride, offsetof(struct line_result, object), n, e) < 0 ||
	    put_str_field(o, g, "element", r->lines, stride, offsetof(struct line_result, element), n, e) < 0 ||
	    put_str_field(o, g, "fields", r->lines, stride, offsetof(struct line_result, fields), n, e) < 0 ||
	    put_transfers(o, g, "transfers", 2, dims, NULL, 0, xfer, NULL, e) < 0)
		goto out;
	rc = 0;
out:
	free(xfer);
	close_id(g, H5Gclose);
	return rc;
}

/* tables/: one row per futex table; buckets/: one row per bucket of every
 * table, table by table (a table's rows start at its first_bucket). */
static int write_buckets(struct h5out *o, const struct results *r, struct fs_error *e)
{
	const size_t stride = sizeof(*r->tables);
	hid_t tg = group(o->file, "tables"), bg = group(o->file, "buckets");
	int rc = -1;

	if (tg < 0 || bg < 0)
		fail(e, o, "tables and buckets");
	else if (put_str_field(o, tg, "name", r->tables, stride, offsetof(struct table_result, name), r->ntables, e) == 0 &&
		 put_str_field(o, tg, "hash", r->tables, stride, offsetof(struct table_result, hash), r->ntables, e) == 0 &&
		 put_struct_cols(o, tg, h5_table_cols, H5_TABLE_COLS, r->tables, stride, r->ntables, e) == 0 &&
		 put_struct_cols(o, bg, h5_bucket_cols, H5_BUCKET_COLS, r->buckets, sizeof(*r->buckets), r->nbuckets,
				 e) == 0)
		rc = 0;
	close_id(tg, H5Gclose);
	close_id(bg, H5Gclose);
	return rc;
}

/* The run's own figures: the only values (with start_time_utc and
 * command_line) that differ between two runs of one scenario and seed. */
static int write_run(struct h5out *o, const struct results *r, struct fs_error *e)
{
	hid_t g = H5Gopen2(o->file, "provenance", H5P_DEFAULT), sg = H5Gopen2(o->file, "timeseries", H5P_DEFAULT);
	int rc = 0;

	if (g < 0 || sg < 0 || attr_f64(g, "wall_seconds", r->wall_secs) < 0 || attr_u64(g, "events", r->events) < 0 ||
	    attr_u64(g, "simulated_ps", r->simulated_ps) < 0 || attr_u64(sg, "ops_clamped", r->ops_clamped) < 0 ||
	    attr_int(o->file, "incomplete", r->incomplete) < 0)
		rc = fail(e, o, "provenance");
	close_id(g, H5Gclose);
	close_id(sg, H5Gclose);
	return rc;
}

/* Makes the finished temporary file durable, then gives it its name. */
/* An interrupted run never replaces an earlier file under its name: its file goes
 * to NAME.incomplete.h5 (NAME.incomplete-PID.h5 when that is taken too). */
static int divert_incomplete(struct h5out *o, struct fs_error *e)
{
	struct stat st;
	size_t len = strlen(o->path);
	size_t stem = len > 3 && !strcmp(o->path + len - 3, ".h5") ? len - 3 : len;
	char *alt = malloc(stem + 64);

	if (lstat(o->path, &st) < 0) {
		free(alt);
		return 0;
	}
	if (!alt)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory writing %s", o->path);
	snprintf(alt, stem + 64, "%.*s.incomplete.h5", (int)stem, o->path);
	if (lstat(alt, &st) == 0)
		snprintf(alt, stem + 64, "%.*s.incomplete-%ld.h5", (int)stem, o->path, (long)getpid());
	free(o->path);
	o->path = alt;
	return 0;
}

static int publish(struct h5out *o, struct fs_error *e)
{
	char *copy = strdup(o->path);
	int fd = open(o->tmp, O_RDONLY), rc = 0;
	struct stat old;

	/* replacing a file: the new one keeps its permissions */
	if (fd >= 0 && stat(o->path, &old) == 0 && S_ISREG(old.st_mode))
		fchmod(fd, old.st_mode & 07777);
	if (fd < 0 || fsync(fd) < 0 || rename(o->tmp, o->path) < 0)
		rc = fs_fail(e, FS_ERR_OUTPUT, "cannot write %s: %s", o->path, strerror(errno));
	if (fd >= 0)
		close(fd);
	if (rc == 0 && copy) {
		/* the rename itself is durable once the directory is synced */
		int dir = open(dirname(copy), O_RDONLY);

		if (dir >= 0) {
			fsync(dir);
			close(dir);
		}
	}
	free(copy);
	return rc;
}

int h5out_finish(struct h5out *o, const struct scenario *sc, const struct results *r, struct fs_error *e)
{
	herr_t closed;

	if (write_summary(o, sc, r, e) < 0 || write_threads(o, r, e) < 0 || write_workload(o, r, e) < 0 ||
	    write_resizes(o, r, e) < 0 || write_lines(o, r, e) < 0 || write_buckets(o, r, e) < 0 ||
	    write_run(o, r, e) < 0) {
		h5out_abort(o);
		return -1;
	}
	H5Dclose(o->series_time);
	H5Dclose(o->series_ops);
	H5Dclose(o->series_transfers);
	o->series_time = o->series_ops = o->series_transfers = -1;
	/* data still cached is written here: a full disk shows up now at the latest */
	closed = H5Fclose(o->file);
	o->file = -1;
	if (closed < 0) {
		fail(e, o, "closing the file");
		h5out_abort(o);
		return -1;
	}
	if ((r->incomplete && divert_incomplete(o, e) < 0) || publish(o, e) < 0) {
		h5out_abort(o);
		return -1;
	}
	snprintf(o->published, sizeof(o->published), "%s", o->path);
	free(o->tmp);
	o->tmp = NULL;
	h5out_abort(o);
	return 0;
}

void h5out_abort(struct h5out *o)
{
	if (!o->path && !o->tmp)
		return; /* never opened, or already finished */
	close_id(o->series_time, H5Dclose);
	close_id(o->series_ops, H5Dclose);
	close_id(o->series_transfers, H5Dclose);
	close_id(o->file, H5Fclose);
	o->file = o->series_time = o->series_ops = o->series_transfers = -1;
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->path);
	o->tmp = o->path = NULL;
}

int h5out_default_path(char *buf, size_t size, const char *scenario, uint64_t seed, time_t now,
		       struct fs_error *e)
{
	char name[128], stamp[32];
	struct tm tm;
	size_t i;

	for (i = 0; scenario[i] && i + 1 < sizeof(name); i++) {
		char c = scenario[i];
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
			 c == '_' || c == '-';

		name[i] = ok ? c : '_';
	}
	name[i] = '\0';
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", gmtime_r(&now, &tm));
	if (mkdir("results", 0777) < 0 && errno != EEXIST)
		return fs_fail(e, FS_ERR_OUTPUT, "cannot create results/: %s", strerror(errno));
	{
		struct stat st;

		/* something else named results in the way: say so, not "no free name" */
		if (stat("results", &st) < 0)
			return fs_fail(e, FS_ERR_OUTPUT, "cannot write into results/: %s", strerror(errno));
		if (!S_ISDIR(st.st_mode))
			return fs_fail(e, FS_ERR_OUTPUT, "cannot write into results/: results is not a directory "
				       "(-o FILE.h5 writes elsewhere)");
	}
	for (unsigned n = 1; n < 1000; n++) {
		struct stat st;

		/* the pid: two runs started in the same second with the same scenario and
		 * seed (a sweep) get different names without racing for one */
		if (n == 1)
			snprintf(buf, size, "results/%s-%llu-%s-%ld.h5", name, (unsigned long long)seed, stamp,
				 (long)getpid());
		else
			snprintf(buf, size, "results/%s-%llu-%s-%ld-%u.h5", name, (unsigned long long)seed, stamp,
				 (long)getpid(), n);
		if (stat(buf, &st) == 0)
			continue; /* taken */
		if (errno == ENOENT)
			return 0;
		return fs_fail(e, FS_ERR_OUTPUT, "cannot write %s: %s", buf, strerror(errno));
	}
	return fs_fail(e, FS_ERR_OUTPUT, "cannot find a free name like %s", buf);
}

int h5out_check_path(const char *path, bool force, const char *const *inputs, struct fs_error *e)
{
	struct stat st, in;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : fs_fail(e, FS_ERR_OUTPUT, "cannot write %s: %s", path, strerror(errno));
	if (S_ISLNK(st.st_mode) && !force)
		return fs_fail(e, FS_ERR_OUTPUT,
			       "cannot write %s: it is a symbolic link (--force replaces the link, not its target)", path);
	if (S_ISDIR(st.st_mode))
		return fs_fail(e, FS_ERR_OUTPUT, "cannot write %s: it is a directory", path);
	if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
		return fs_fail(e, FS_ERR_OUTPUT, "cannot write %s: it is not a regular file (a device, FIFO or socket)",
			       path);
	for (size_t i = 0; inputs && inputs[i]; i++)
		if (stat(inputs[i], &in) == 0 && stat(path, &st) == 0 && in.st_dev == st.st_dev && in.st_ino == st.st_ino)
			return fs_fail(e, FS_ERR_OUTPUT, "cannot write %s: it is an input of the run (%s)", path,
				       inputs[i]);
	return 0;
}
