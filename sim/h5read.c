/* SPDX-License-Identifier: MIT */
#include "sim/h5read.h"

#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sim/core/utf8.h"
#include "sim/h5common.h"
#include "sim/h5out.h"
#include "sim/perfstat.h"

/* An open file and where errors go. */
struct reader {
	const char *path;       /* as the user named it (in messages) */
	hid_t file;
	hid_t lapl;             /* follows no external link */
	hid_t dxpl;             /* a value out of its type's range fails the read (refuse_conversion) */
	H5T_conv_except_t except; /* what refuse_conversion refused; -1 when nothing */
	struct fs_error *e;
	uint64_t max_bytes;     /* no dataset may read into more than this (from the file's size) */
};

/* What the reader is doing ("reading attribute format of /"), for the parent to
 * name when the library crashes or hangs in its child (read_in_child): a page shared
 * with the parent there, NULL (not kept) when reading directly. */
static char *doing;
#define DOING_SIZE 256

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
	va_list ap;

	if (!doing)
		return;
	va_start(ap, fmt);
	vsnprintf(doing, DOING_SIZE, fmt, ap);
	va_end(ap);
}

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

/* ---- what a file may hold --------------------------------------------------- */

/* `s` (from the file) for a message: printable ASCII, anything else as \xHH; cut to fit. */
static const char *printable(const char *s, char *buf, size_t size)
{
	size_t n = 0;

	for (; *s && n + 5 < size; s++) {
		unsigned char c = (unsigned char)*s;

		if (c >= 0x20 && c < 0x7f && c != '\\')
			buf[n++] = (char)c;
		else
			n += (size_t)snprintf(buf + n, size - n, "\\x%02x", c);
	}
	buf[n] = '\0';
	return buf;
}

/* Text read from the file: UTF-8 (as written: h5_str_type), and no control
 * characters but newline and tab (a damaged name must not drive the terminal, nor
 * make show --json's output invalid). `what` names where it is. */
static int check_text(struct reader *rd, const char *what, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s);

	for (size_t i = 0; i < n;) {
		size_t len = utf8_seq(u + i, n - i);

		if (!len)
			return fs_fail(rd->e, FS_ERR_INPUT, "cannot read %s: %s is not UTF-8 text (byte 0x%02x at offset %zu)",
				       rd->path, what, u[i], i);
		if ((u[i] < 0x20 && u[i] != '\n' && u[i] != '\t') || u[i] == 0x7f ||
		    (len == 2 && u[i] == 0xc2 && u[i + 1] < 0xa0))
			return fs_fail(rd->e, FS_ERR_INPUT, "cannot read %s: %s holds a control character (at offset %zu)",
				       rd->path, what, i);
		i += len;
	}
	return 0;
}

/* A name from the file that becomes part of a path or a column name (a workload
 * figure's): letters, digits and '_' only. */
static int check_name(struct reader *rd, const char *what, const char *s)
{
	char shown[128];

	if (*s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == strlen(s))
		return 0;
	return fs_fail(rd->e, FS_ERR_INPUT, "cannot read %s: %s holds '%s', not a name (letters, digits and _)", rd->path,
		       what, printable(s, shown, sizeof(shown)));
}

/* The conversion of a value read into the type of its field (H5Pset_type_conv_cb):
 * one its type cannot hold (NaN, an infinity, a negative count, a fraction, one out of
 * range) fails the read instead of being clipped or rounded into a figure that looks
 * measured. A loss of precision (a large integer into a double) is no lie. */
static H5T_conv_ret_t refuse_conversion(H5T_conv_except_t kind, hid_t src, hid_t dst, void *sbuf, void *dbuf,
					void *data)
{
	struct reader *rd = data;

	(void)src, (void)dst, (void)sbuf, (void)dbuf;
	if (kind == H5T_CONV_EXCEPT_PRECISION)
		return H5T_CONV_UNHANDLED;
	if (rd->except == (H5T_conv_except_t)-1)
		rd->except = kind;
	return H5T_CONV_ABORT;
}

/* What refuse_conversion refused, for a message. */
static const char *except_text(H5T_conv_except_t kind)
{
	switch (kind) {
	/* libhdf5 1.10 reports an infinity as out of range and NaN as a truncation */
	case H5T_CONV_EXCEPT_RANGE_HI: return "a value too large for it (or +infinity)";
	case H5T_CONV_EXCEPT_RANGE_LOW: return "a negative value (or -infinity), or one too small for it";
	case H5T_CONV_EXCEPT_TRUNCATE: return "a value that is not a whole number (a fraction or NaN)";
	case H5T_CONV_EXCEPT_PINF: return "+infinity";
	case H5T_CONV_EXCEPT_NINF: return "-infinity";
	case H5T_CONV_EXCEPT_NAN: return "NaN";
	default: return "a value out of its range";
	}
}

/* A failed read: refused by refuse_conversion (named so), else the library's reason. */
static int fail_read(struct reader *rd, const char *what)
{
	H5T_conv_except_t kind = rd->except;

	if (kind == (H5T_conv_except_t)-1)
		return fail(rd, what);
	rd->except = (H5T_conv_except_t)-1;
	H5Eclear2(H5E_DEFAULT);
	return fs_fail(rd->e, FS_ERR_INPUT, "cannot read %s: %s holds %s", rd->path, what, except_text(kind));
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
 * before any other call, and what the message needs is computed first. The value is
 * read as the file stores it, then converted under refuse_conversion (H5Aread has no
 * transfer list to carry it): a negative seed is refused, not clipped to 0. */
static int attr_num(struct reader *rd, const char *obj, const char *name, hid_t type, void *out)
{
	H5T_class_t cls = H5Tget_class(type);
	unsigned char buf[32] = { 0 };
	char what[256];
	hid_t a, ftype = -1;
	bool one;
	int rc = -1;

	snprintf(what, sizeof(what), "attribute %s of %s (expected one %s)", name, obj,
		 cls == H5T_FLOAT ? "number" : "integer");
	note("reading attribute %s of %s", name, obj);
	a = H5Aopen_by_name(rd->file, obj, name, H5P_DEFAULT, rd->lapl);
	if (a < 0)
		return fail(rd, what);
	one = attr_is_one(a, cls) && (ftype = H5Aget_type(a)) >= 0 && H5Tget_size(ftype) <= sizeof(buf) / 2;
	if (one && H5Aread(a, ftype, buf) >= 0 && H5Tconvert(ftype, type, 1, buf, NULL, rd->dxpl) >= 0) {
		memcpy(out, buf, H5Tget_size(type));
		rc = 0;
	} else if (one) {
		snprintf(what, sizeof(what), "attribute %s of %s", name, obj);
		fail_read(rd, what);
	}
	close_id(ftype, H5Tclose);
	close_id(a, H5Aclose);
	if (rc < 0 && !one) /* there, but of the wrong shape or type: no library error to add */
		return fs_fail(rd->e, FS_ERR_INPUT, "cannot read %s: %s", rd->path, what);
	return rc;
}

/* No name, version or other string attribute is longer. */
#define MAX_ATTR_TEXT (64u << 10)

/* A string attribute, variable or fixed length, UTF-8 or ASCII, as a malloc'd
 * copy (checked: check_text). */
static char *attr_str(struct reader *rd, const char *obj, const char *name)
{
	char *v = NULL, *out = NULL, what[256];
	hid_t a, ftype = -1, mtype = -1;
	size_t size = 0;
	bool one, vlen = false;

	snprintf(what, sizeof(what), "attribute %s of %s (expected one string)", name, obj);
	note("reading attribute %s of %s", name, obj);
	a = H5Aopen_by_name(rd->file, obj, name, H5P_DEFAULT, rd->lapl);
	if (a < 0) {
		fail(rd, what);
		return NULL;
	}
	one = attr_is_one(a, H5T_STRING) && (ftype = H5Aget_type(a)) >= 0;
	if (one) {
		vlen = H5Tis_variable_str(ftype) > 0;
		size = vlen ? 0 : H5Tget_size(ftype);
		mtype = size <= MAX_ATTR_TEXT ? H5Tget_native_type(ftype, H5T_DIR_ASCEND) : -1;
	}
	if (one && size > MAX_ATTR_TEXT) {
		fs_fail(rd->e, FS_ERR_INPUT, "cannot read %s: %s is %zu bytes long, more than the %u a name takes", rd->path,
			what, size, MAX_ATTR_TEXT);
	} else if (one && mtype >= 0 && vlen && H5Aread(a, mtype, &v) >= 0) {
		if (v && strlen(v) > MAX_ATTR_TEXT)
			fs_fail(rd->e, FS_ERR_INPUT, "cannot read %s: %s is %zu bytes long, more than the %u a name takes",
				rd->path, what, strlen(v), MAX_ATTR_TEXT);
		else if (!(out = strdup(v ? v : "")))
			oom(rd);
		H5free_memory(v);
	} else if (one && mtype >= 0 && !vlen && (out = calloc(1, size + 1)) && H5Aread(a, mtype, out) >= 0) {
		/* fixed length: NUL-padded or not, cut at the first NUL */
	} else if (!one) {
		fs_fail(rd->e, FS_ERR_INPUT, "cannot read %s: %s", rd->path, what);
	} else if (one && mtype >= 0 && !vlen && !out) {
		oom(rd);
	} else {
		free(out);
		out = NULL;
		fail(rd, what);
	}
	close_id(mtype, H5Tclose);
	close_id(ftype, H5Tclose);
	close_id(a, H5Aclose);
	snprintf(what, sizeof(what), "attribute %s of %s", name, obj);
	if (out && check_text(rd, what, out) < 0) {
		free(out);
		out = NULL;
	}
	return out;
}

/* ---- datasets --------------------------------------------------------------- */

/* Dataset `name`, opened: its data must be in the file, not in external files
 * (H5Pset_external) nor mapped from other files (a virtual dataset), which would
 * show another file's bytes, any file the user can read, as this run's figures. */
static hid_t open_dataset(struct reader *rd, const char *name)
{
	hid_t d, dcpl;
	int external;
	H5D_layout_t layout;

	note("reading dataset %s", name);
	d = H5Dopen2(rd->file, name, rd->lapl);
	if (d < 0)
		return -1;
	dcpl = H5Dget_create_plist(d);
	external = dcpl >= 0 ? H5Pget_external_count(dcpl) : -1;
	layout = dcpl >= 0 ? H5Pget_layout(dcpl) : H5D_LAYOUT_ERROR;
	close_id(dcpl, H5Pclose);
	if (external == 0 && layout != H5D_VIRTUAL && layout != H5D_LAYOUT_ERROR)
		return d;
	H5Dclose(d);
	if (external != 0 && external != -1)
		fs_fail(rd->e, FS_ERR_INPUT, "cannot read %s: dataset %s keeps its data in %d external file%s: a result "
			"file holds all its data itself", rd->path, name, external, external == 1 ? "" : "s");
	else if (layout == H5D_VIRTUAL)
		fs_fail(rd->e, FS_ERR_INPUT, "cannot read %s: dataset %s is a virtual dataset (its data in other files): a "
			"result file holds all its data itself", rd->path, name);
	return -1;
}

/* Dataset `name` read as `type` (elements of `size` bytes) into a malloc'd
 * buffer; its element count in *n. `rank` is the rank it must have (0: scalar)
 * and `cols` its second dimension when rank 2. */
static void *read_all(struct reader *rd, const char *name, hid_t type, size_t size, int rank, hsize_t cols,
		      hsize_t *n)
{
	hid_t d = open_dataset(rd, name), space = d >= 0 ? H5Dget_space(d) : -1;
	hsize_t dims[2] = { 1, 1 };
	void *buf = NULL;
	int ok = 0;

	*n = 0;
	if (d < 0 && rd->e->status)
		return NULL; /* refused by open_dataset */
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
		else if (*n == 0 || H5Dread(d, type, H5S_ALL, H5S_ALL, rd->dxpl, buf) >= 0)
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
			if (space >= 0 && !buf) {
				fs_fail(rd->e, FS_ERR_INPUT, "cannot read %s: %s", rd->path, what);
			} else if (buf) {
				snprintf(what, sizeof(what), "dataset %s", name);
				fail_read(rd, what);
			} else {
				fail(rd, what);
			}
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
	hid_t d = open_dataset(rd, name), ftype = d >= 0 ? H5Dget_type(d) : -1, mtype = -1;
	size_t len = ftype >= 0 && H5Tget_class(ftype) == H5T_STRING && H5Tis_variable_str(ftype) == 0
			     ? H5Tget_size(ftype)
			     : 0;
	char *buf = NULL, **out = NULL;

	*n = 0;
	close_id(d, H5Dclose);
	/* the file's character set (ASCII or UTF-8: libhdf5 converts neither into the other) */
	if (len && (mtype = h5_str_type(len)) >= 0 && H5Tset_cset(mtype, H5Tget_cset(ftype)) < 0) {
		H5Tclose(mtype);
		mtype = -1;
	}
	if (d < 0 && rd->e->status)
		; /* refused by open_dataset */
	else if (mtype >= 0)
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
	if (!out) {
		oom(rd);
		return NULL;
	}
	for (hsize_t i = 0; i < *n; i++) {
		char what[160];

		snprintf(what, sizeof(what), "dataset %s (row %llu)", name, (unsigned long long)i);
		if (check_text(rd, what, out[i]) < 0) {
			for (hsize_t k = 0; k < *n; k++)
				free(out[k]);
			free(out);
			return NULL;
		}
	}
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

/* H5Lvisit's walk: every link a hard link. A soft link could make /threads another
 * group of the file, an external link another file's (any HDF5 file the user can
 * read), shown under this run's header: the first other link is refused, named. */
static herr_t only_hard_links(hid_t group, const char *name, const H5L_info_t *info, void *data)
{
	struct reader *rd = data;
	char shown[160], target[256] = "", val[512];
	const char *kind = info->type == H5L_TYPE_SOFT ? "soft" : info->type == H5L_TYPE_EXTERNAL ? "external"
											 : "user-defined";

	if (info->type == H5L_TYPE_HARD)
		return 0;
	if (info->type != H5L_TYPE_HARD && info->u.val_size < sizeof(val) &&
	    H5Lget_val(group, name, val, sizeof(val), rd->lapl) >= 0) {
		const char *file = NULL, *obj = NULL;
		unsigned flags;
		char a[120], b[120];

		val[sizeof(val) - 1] = '\0';
		if (info->type == H5L_TYPE_SOFT)
			snprintf(target, sizeof(target), " to %s", printable(val, a, sizeof(a)));
		else if (info->type == H5L_TYPE_EXTERNAL && H5Lunpack_elink_val(val, info->u.val_size, &flags, &file, &obj) >= 0)
			snprintf(target, sizeof(target), " to %s:%s", printable(file, a, sizeof(a)), printable(obj, b, sizeof(b)));
	}
	H5Eclear2(H5E_DEFAULT);
	fs_fail(rd->e, FS_ERR_INPUT, "cannot read %s: /%s is a%s %s link%s: a result file holds all its objects itself "
		"(hard links only)", rd->path, printable(name, shown, sizeof(shown)), info->type == H5L_TYPE_EXTERNAL ? "n" : "",
		kind, target);
	return 1;
}

/* The link access list's callback: no external link is traversed. */
static herr_t no_external_link(const char *parent, const char *group, const char *child, const char *object,
			       unsigned *flags, hid_t fapl, void *data)
{
	(void)parent, (void)group, (void)child, (void)object, (void)flags, (void)fapl, (void)data;
	return -1;
}

/* Opens `h5path` (the file `path` names: read_in_child hands over the one it opened)
 * and checks it is a result file this futexsim reads, with only hard links. */
static int open_file(struct reader *rd, const char *path, const char *h5path, struct fs_error *e)
{
	char *format = NULL;
	int version = 0;
	htri_t is;
	herr_t walk;

	rd->path = path;
	rd->e = e;
	rd->file = -1;
	rd->except = (H5T_conv_except_t)-1;
	h5_quiet();
	rd->lapl = H5Pcreate(H5P_DATASET_ACCESS); /* a link access list too */
	rd->dxpl = H5Pcreate(H5P_DATASET_XFER);
	/* no external link followed, whatever only_hard_links let through */
	if (rd->lapl < 0 || rd->dxpl < 0 || H5Pset_elink_cb(rd->lapl, no_external_link, NULL) < 0 ||
	    H5Pset_type_conv_cb(rd->dxpl, refuse_conversion, rd) < 0)
		return fail(rd, "setting up the reader");
	note("opening the file");
	is = H5Fis_hdf5(h5path);
	if (is <= 0) {
		if (is == 0)
			return fs_fail(e, FS_ERR_INPUT, "%s: not an HDF5 file", path);
		return fail(rd, "opening");
	}
	rd->file = H5Fopen(h5path, H5F_ACC_RDONLY, H5P_DEFAULT);
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
	note("checking the file's links");
	walk = H5Lvisit(rd->file, H5_INDEX_NAME, H5_ITER_NATIVE, only_hard_links, rd);
	if (walk > 0 || (walk < 0 && e->status))
		return -1;
	if (walk < 0)
		return fail(rd, "walking its links");
	return 0;
}

static void close_reader(struct reader *rd)
{
	close_id(rd->file, H5Fclose);
	close_id(rd->lapl, H5Pclose);
	close_id(rd->dxpl, H5Pclose);
	rd->file = rd->lapl = rd->dxpl = -1;
}

/* ---- the summary ------------------------------------------------------------- */

static bool exists(struct reader *rd, const char *path)
{
	return H5Lexists(rd->file, path, rd->lapl) > 0;
}

/* The length of the 1-D dataset `name`. */
static int rows_of(struct reader *rd, const char *name, hsize_t *n)
{
	hid_t d = open_dataset(rd, name), space = d >= 0 ? H5Dget_space(d) : -1;
	int ok = space >= 0 && H5Sget_simple_extent_ndims(space) == 1 && H5Sget_simple_extent_dims(space, n, NULL) == 1;

	close_id(space, H5Sclose);
	close_id(d, H5Dclose);
	if (!ok && d < 0 && rd->e->status)
		return -1; /* refused by open_dataset */
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

		if (check_name(rd, "dataset workload/figure_names", names[i]) < 0) {
			free_strs(names, n);
			return -1;
		}
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
		if (H5Aexists_by_name(rd->file, "summary/ops_per_sec_band", "basis", rd->lapl) > 0) {
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

/* ---- what the figures may be ---------------------------------------------------- */

/* Every figure a run writes as a double is a count, a time, a ratio, a share or a
 * rate: finite and not negative. NaN or -5 ops/s is a damaged or forged file, never
 * a measurement. */
static int check_figure(struct reader *rd, const char *what, double v)
{
	if (isfinite(v) && v >= 0)
		return 0;
	return fs_fail(rd->e, FS_ERR_INPUT, "cannot read %s: %s is %g, not a finite figure of 0 or more", rd->path, what, v);
}

/* The figures checked against their domains and against each other, as the run
 * computed them (sim/results.c results_from_sim): the total is the threads' sum,
 * each thread's rate its ops over the window, perf's Averaged their mean. A file
 * that contradicts itself (a damaged table, or another run's threads) is refused. */
static int check_results(struct reader *rd, const struct results *r, const struct h5read_info *info)
{
	double secs = (double)r->window_ps / 1e12;
	uint64_t sum = 0, *rates;
	struct perf_average avg;
	bool wrapped = false;

	if (r->incomplete != 0 && r->incomplete != 1)
		return fs_fail(rd->e, FS_ERR_INPUT, "cannot read %s: attribute incomplete of / is %d, not 0 or 1", rd->path,
			       r->incomplete);
	if (info->per_thread != 0 && info->per_thread != 1)
		return fs_fail(rd->e, FS_ERR_INPUT, "cannot read %s: attribute per_thread of summary is %d, not 0 or 1",
			       rd->path, info->per_thread);
	if (check_figure(rd, "summary/ops_per_sec_stderr", r->avg.stderr_pct) < 0 ||
	    check_figure(rd, "attribute wall_seconds of provenance", r->wall_secs) < 0 ||
	    (r->band_runs && (check_figure(rd, "summary/ops_per_sec_band", r->band_lo) < 0 ||
			      check_figure(rd, "summary/ops_per_sec_band", r->band_hi) < 0)))
		return -1;
	for (uint32_t i = 0; i < r->nfigures; i++) {
		char what[80];

		snprintf(what, sizeof(what), "workload/%s", r->figures[i].name);
		if (check_figure(rd, what, r->figures[i].value) < 0)
			return -1;
	}
	for (uint32_t i = 0; i < r->nlat_bins; i++)
		if (check_figure(rd, "workload/latency_counts", r->lat_counts[i]) < 0)
			return -1;
	for (uint32_t i = 0; r->nlat_bins && i <= r->nlat_bins; i++)
		if (check_figure(rd, "workload/latency_edges", r->lat_edges[i]) < 0 ||
		    (i && r->lat_edges[i] < r->lat_edges[i - 1]))
			return fs_fail(rd->e, FS_ERR_INPUT, "cannot read %s: workload/latency_edges are not finite and "
				       "ascending", rd->path);
	rates = malloc((r->nthreads ? r->nthreads : 1) * sizeof(*rates));
	if (!rates)
		return oom(rd);
	for (uint32_t i = 0; i < r->nthreads; i++) {
		const struct thread_result *t = &r->threads[i];

		wrapped |= sum + t->ops < sum;
		sum += t->ops;
		rates[i] = t->ops_per_sec;
		if (t->ops_per_sec != perf_ops_per_sec(t->ops, secs)) {
			free(rates);
			return fs_fail(rd->e, FS_ERR_INPUT, "cannot read %s: thread %u's ops_per_sec is %llu, but its %llu ops in "
				       "the %.6g s window make %llu: the file contradicts itself", rd->path, i,
				       (unsigned long long)t->ops_per_sec, (unsigned long long)t->ops, secs,
				       (unsigned long long)perf_ops_per_sec(t->ops, secs));
		}
	}
	avg = perf_average(rates, r->nthreads);
	free(rates);
	if (wrapped || sum != r->total_ops)
		return fs_fail(rd->e, FS_ERR_INPUT, "cannot read %s: summary/total_ops is %llu, but the %u threads' ops "
			       "(threads/ops) sum to %s%llu: the file contradicts itself", rd->path,
			       (unsigned long long)r->total_ops, r->nthreads, wrapped ? "more than " : "",
			       (unsigned long long)sum);
	if (avg.mean != r->avg.mean || fabs(avg.stderr_pct - r->avg.stderr_pct) > 1e-9 * (1 + avg.stderr_pct))
		return fs_fail(rd->e, FS_ERR_INPUT, "cannot read %s: summary/ops_per_sec is %llu (+- %.2f%%), but the "
			       "threads' rates (threads/ops_per_sec) average %llu (+- %.2f%%): the file contradicts itself",
			       rd->path, (unsigned long long)r->avg.mean, r->avg.stderr_pct, (unsigned long long)avg.mean,
			       avg.stderr_pct);
	return 0;
}

static int read_results_at(const char *path, const char *h5path, uint32_t top, struct results *r,
			   struct h5read_info *info, struct fs_error *e)
{
	struct reader rd;
	int rc;

	memset(r, 0, sizeof(*r));
	memset(info, 0, sizeof(*info));
	rc = open_file(&rd, path, h5path, e) < 0 || read_summary(&rd, r, top, info) < 0 ? -1
											 : check_results(&rd, r, info);
	close_reader(&rd);
	return rc;
}

int h5read_results_direct(const char *path, uint32_t top, struct results *r, struct h5read_info *info,
			  struct fs_error *e)
{
	return read_results_at(path, path, top, r, info, e);
}

static char *read_text_at(const char *path, const char *h5path, const char *dataset, struct fs_error *e)
{
	struct reader rd;
	char *text = open_file(&rd, path, h5path, e) < 0 ? NULL : read_text(&rd, dataset);

	close_reader(&rd);
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

	/* a number of seconds: inf, nan or 1e400 leave the default (as analysis/results_io.py) */
	if (env && end != env && !*end && v > 0 && v < 1e9)
		return v;
	return 20.0 + (double)bytes / 10e6;
}

/* A file named where a result file belongs, opened for reading without blocking (a
 * FIFO's open would wait for a writer) and checked to be a regular file: f->fd, and
 * f->h5path the name libhdf5 opens it by, the same file even if `path` is replaced
 * meanwhile (/proc/self/fd/N; `path` itself where there is no /proc). */
struct opened {
	int fd;
	uint64_t size;
	char h5path[40];
};

static const char *file_kind(mode_t mode)
{
	return S_ISDIR(mode) ? "a directory" : S_ISFIFO(mode) ? "a FIFO" : S_ISCHR(mode) ? "a character device"
	       : S_ISBLK(mode) ? "a block device" : S_ISSOCK(mode) ? "a socket" : "not a regular file";
}

static int open_regular(const char *path, struct opened *f, struct fs_error *e)
{
	struct stat st;

	f->fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (f->fd < 0)
		return fs_fail(e, FS_ERR_INPUT, "cannot read %s: %s", path, strerror(errno));
	if (fstat(f->fd, &st) < 0) {
		int err = errno;

		close(f->fd);
		return fs_fail(e, FS_ERR_INPUT, "cannot read %s: %s", path, strerror(err));
	}
	if (!S_ISREG(st.st_mode)) {
		close(f->fd);
		return fs_fail(e, FS_ERR_INPUT, "cannot read %s: %s, not a result file", path, file_kind(st.st_mode));
	}
	f->size = (uint64_t)st.st_size;
	snprintf(f->h5path, sizeof(f->h5path), "/proc/self/fd/%d", f->fd);
	if (access(f->h5path, R_OK) != 0)
		f->h5path[0] = '\0';
	return 0;
}

/* libhdf5 can crash or loop on a damaged file, so the read is done first in a child
 * process with a time limit (read_limit_secs); only when the child read it cleanly
 * does the caller read it, the same file (struct opened). A child that fails passes
 * its message up a pipe; one that crashes, exits without a word or runs out of time
 * makes the file refused (FS_ERR_INPUT), never this process, with what the reader
 * was doing then (note(), on a page shared with the child). `work` is the read:
 * (path, h5path, arg, e) -> 0 or -1. */
static int read_in_child(const char *path, const struct opened *f,
			 int (*work)(const char *, const char *, void *, struct fs_error *), void *arg, struct fs_error *e)
{
	struct timespec start, now;
	int fds[2], status = 0;
	double limit = read_limit_secs(f->size);
	const char *h5path = f->h5path[0] ? f->h5path : path;
	pid_t pid;
	char msg[sizeof(e->msg)], was[DOING_SIZE] = "opening the file";
	char *page;
	ssize_t got;
	size_t len = 0;

	if (pipe(fds) < 0)
		return fs_fail(e, FS_ERR_RUNTIME, "cannot read %s: pipe: %s", path, strerror(errno));
	page = mmap(NULL, DOING_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		page = NULL;
	else
		snprintf(page, DOING_SIZE, "%s", was);
	fflush(NULL); /* nothing buffered may be written twice */
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		if (page)
			munmap(page, DOING_SIZE);
		return fs_fail(e, FS_ERR_RUNTIME, "cannot read %s: fork: %s", path, strerror(errno));
	}
	if (pid == 0) {
		struct fs_error ce = { 0 };
		int rc;

		close(fds[0]);
		doing = page;
		rc = work(path, h5path, arg, &ce);
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
			if (page) {
				snprintf(was, sizeof(was), "%.*s", DOING_SIZE - 1, page);
				munmap(page, DOING_SIZE);
			}
			return fs_fail(e, FS_ERR_INPUT,
				       "%s: the HDF5 library took more than %.0f s %s: a damaged file (FUTEXSIM_READ_TIMEOUT "
				       "sets the limit)", path, limit, was);
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
	if (page) {
		snprintf(was, sizeof(was), "%.*s", DOING_SIZE - 1, page);
		munmap(page, DOING_SIZE);
	}
	if (WIFSIGNALED(status))
		return fs_fail(e, FS_ERR_INPUT, "%s: the HDF5 library crashed (signal %d, %s) %s: a damaged file", path,
			       WTERMSIG(status), strsignal(WTERMSIG(status)), was);
	/* a child that fails says why; one that exits without a word was ended inside the
	 * library (a sanitizer's report under make sanitize, or libhdf5's own exit) */
	if (WIFEXITED(status) && WEXITSTATUS(status) != 0 && !msg[0])
		return fs_fail(e, FS_ERR_INPUT, "%s: the HDF5 library failed (exit %d without a message: a sanitizer's report "
			       "or the library's own exit) %s: a damaged file", path, WEXITSTATUS(status), was);
	if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
		return fs_fail(e, WEXITSTATUS(status), "%s", msg);
	return 0;
}

struct results_read {
	uint32_t top;
	struct results r;
	struct h5read_info info;
};

static int child_results(const char *path, const char *h5path, void *arg, struct fs_error *e)
{
	struct results_read *a = arg;
	int rc = read_results_at(path, h5path, a->top, &a->r, &a->info, e);

	results_free(&a->r);
	return rc;
}

static int child_text(const char *path, const char *h5path, void *dataset, struct fs_error *e)
{
	char *text = read_text_at(path, h5path, dataset, e);

	free(text);
	return text ? 0 : -1;
}

int h5read_results(const char *path, uint32_t top, struct results *r, struct h5read_info *info,
		   struct fs_error *e)
{
	struct results_read probe = { .top = top };
	struct opened f;
	int rc;

	memset(r, 0, sizeof(*r));
	memset(info, 0, sizeof(*info));
	if (open_regular(path, &f, e) < 0)
		return -1;
	rc = read_in_child(path, &f, child_results, &probe, e) < 0
		     ? -1
		     : read_results_at(path, f.h5path[0] ? f.h5path : path, top, r, info, e);
	close(f.fd);
	return rc;
}

char *h5read_text(const char *path, const char *dataset, struct fs_error *e)
{
	struct opened f;
	char *text = NULL;

	if (open_regular(path, &f, e) < 0)
		return NULL;
	if (read_in_child(path, &f, child_text, (void *)dataset, e) == 0)
		text = read_text_at(path, f.h5path[0] ? f.h5path : path, dataset, e);
	close(f.fd);
	return text;
}
