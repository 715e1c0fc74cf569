#include "sim/h5common.h"

#include "sim/results.h"

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

const struct h5_col h5_thread_blocking_cols[THREAD_BLOCKING_COLS] = {
	{ "futex_calls", H5_U_COUNT },	    { "wakeups", H5_U_COUNT },		{ "chain_walked", H5_U_COUNT },
	{ "requeued", H5_U_COUNT },	    { "context_switches", H5_U_COUNT }, { "blocked", H5_U_PS },
};

void h5_thread_blocking(const struct thread_result *t, uint64_t out[THREAD_BLOCKING_COLS])
{
	out[0] = t->futex_calls;
	out[1] = t->wakeups;
	out[2] = t->chain_walked;
	out[3] = t->requeued;
	out[4] = t->switches;
	out[5] = t->blocked_ps;
}

void h5_thread_blocking_set(struct thread_result *t, const uint64_t in[THREAD_BLOCKING_COLS])
{
	t->futex_calls = in[0];
	t->wakeups = in[1];
	t->chain_walked = in[2];
	t->requeued = in[3];
	t->switches = in[4];
	t->blocked_ps = in[5];
}
