/* SPDX-License-Identifier: MIT */
#include "sim/h5common.h"

#include "sim/results.h"

#include <stddef.h>
#include <stdio.h>

void h5_quiet(void)
{
	/* After a failed H5Fclose (a full disk) HDF5 1.10's exit handler closes
	 * the file again and crashes; every file is closed before exit anyway. */
	H5dont_atexit();
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

static herr_t innermost(unsigned n, const H5E_error2_t *err, void *data)
{
	/* the walk goes from the most specific error outwards: keep the first */
	if (n == 0 && err->desc)
		snprintf(data, 512, "%s", err->desc);
	return 0;
}

const char *h5_error_text(char *buf, size_t size)
{
	char desc[512] = "";

	H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, innermost, desc);
	H5Eclear2(H5E_DEFAULT);
	snprintf(buf, size, "%s", desc[0] ? desc : "unknown HDF5 error");
	return buf;
}

hid_t h5_str_type(size_t len)
{
	hid_t t = H5Tcopy(H5T_C_S1);

	if (t < 0)
		return t;
	if (H5Tset_size(t, len ? len : H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0 ||
	    (len && H5Tset_strpad(t, H5T_STR_NULLPAD) < 0)) {
		H5Tclose(t);
		return -1;
	}
	return t;
}

#define COL(type, field, name, units) { name, units, offsetof(type, field), sizeof(((type *)0)->field) }

const struct h5_col h5_thread_cols[H5_THREAD_COLS] = {
	COL(struct thread_result, id, "id", H5_U_ID),
	COL(struct thread_result, cpu, "cpu", H5_U_ID),
	COL(struct thread_result, node, "node", H5_U_ID),
	COL(struct thread_result, ops, "ops", H5_U_COUNT),
	COL(struct thread_result, ops_per_sec, "ops_per_sec", H5_U_OPS_PER_SEC),
};

const struct h5_col h5_thread_blocking_cols[H5_THREAD_BLOCKING_COLS] = {
	COL(struct thread_result, futex_calls, "futex_calls", H5_U_COUNT),
	COL(struct thread_result, wakeups, "wakeups", H5_U_COUNT),
	COL(struct thread_result, chain_walked, "chain_walked", H5_U_COUNT),
	COL(struct thread_result, requeued, "requeued", H5_U_COUNT),
	COL(struct thread_result, switches, "context_switches", H5_U_COUNT),
	COL(struct thread_result, blocked_ps, "blocked", H5_U_PS),
};

const struct h5_col h5_resize_cols[H5_RESIZE_COLS] = {
	COL(struct futex_resize, pid, "process", H5_U_ID),
	COL(struct futex_resize, from, "from_buckets", H5_U_COUNT),
	COL(struct futex_resize, to, "to_buckets", H5_U_COUNT),
	COL(struct futex_resize, start, "start", H5_U_PS),
	COL(struct futex_resize, end, "end", H5_U_PS),
};

const struct h5_col h5_line_cols[H5_LINE_COLS] = {
	COL(struct line_result, line, "line", H5_U_ID),
	COL(struct line_result, address, "address", H5_U_ADDRESS),
	COL(struct line_result, home_node, "home_node", H5_U_ID),
	COL(struct line_result, first, "first", H5_U_ID),
	COL(struct line_result, last, "last", H5_U_ID),
	COL(struct line_result, mixed, "mixed", H5_U_BOOL),
	COL(struct line_result, reads, "reads", H5_U_COUNT),
	COL(struct line_result, writes, "writes", H5_U_COUNT),
	COL(struct line_result, fills, "fills", H5_U_COUNT),
	COL(struct line_result, queued_ps, "queued", H5_U_PS),
};

const struct h5_col h5_table_cols[H5_TABLE_COLS] = {
	COL(struct table_result, size, "size", H5_U_COUNT),
	COL(struct table_result, node, "node", H5_U_ID),
	COL(struct table_result, first_bucket, "first_bucket", H5_U_ID),
	COL(struct table_result, futexes, "futexes", H5_U_COUNT),
	COL(struct table_result, collisions, "collisions", H5_U_COUNT),
};

const struct h5_col h5_bucket_cols[H5_BUCKET_COLS] = {
	COL(struct bucket_result, table, "table", H5_U_ID),
	COL(struct bucket_result, bucket, "bucket", H5_U_ID),
	COL(struct bucket_result, hashed, "hashed", H5_U_COUNT),
	COL(struct bucket_result, acquisitions, "acquisitions", H5_U_COUNT),
	COL(struct bucket_result, contended, "contended", H5_U_COUNT),
	COL(struct bucket_result, wait_ps, "wait", H5_U_PS),
};

hid_t h5_col_type(const struct h5_col *c)
{
	return c->size == sizeof(uint8_t) ? H5T_NATIVE_UINT8
	       : c->size == sizeof(uint32_t) ? H5T_NATIVE_UINT32 : H5T_NATIVE_UINT64;
}
