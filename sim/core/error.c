/* SPDX-License-Identifier: MIT */
#include "sim/core/error.h"

#include <stdio.h>
#include <string.h>

static void record(struct fs_error *e, int status, const char *prefix, const char *fmt, va_list ap)
{
	size_t n = 0;

	if (!e)
		return;
	e->status = status;
	e->msg[0] = '\0';
	if (prefix) {
		snprintf(e->msg, sizeof(e->msg), "%s", prefix);
		n = strlen(e->msg);
	}
	vsnprintf(e->msg + n, sizeof(e->msg) - n, fmt, ap);
}

int fs_fail(struct fs_error *e, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	record(e, status, NULL, fmt, ap);
	va_end(ap);
	return -1;
}

int fs_fail_at(struct fs_error *e, const struct fs_mark *at, const char *fmt, ...)
{
	char where[512] = "";
	va_list ap;

	if (at && at->file)
		snprintf(where, sizeof(where), "%s:%u:%u: ", at->file, at->line, at->col);
	va_start(ap, fmt);
	record(e, FS_ERR_INPUT, where, fmt, ap);
	va_end(ap);
	return -1;
}
