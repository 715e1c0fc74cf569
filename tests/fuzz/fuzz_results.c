/* SPDX-License-Identifier: MIT */
/* libFuzzer target over the result-file reader (sim/h5read.c): each input is
 * written to a file and read back as `futexsim show` and `compare` read it. Any crash, leak or sanitizer report in futexsim's code is a
 * bug. libhdf5 itself can crash or loop on damaged files; futexsim reads untrusted
 * files in a child process for that (h5read_results), which this target bypasses
 * (h5read_results_direct) to see its own bugs. A file the reader accepts must hold
 * what a run can write (issue 38): every figure stored as a double finite and not
 * negative, the total the threads' sum, and show --json's and the summary's text
 * valid UTF-8 (so the JSON is JSON); an accepted file that breaks one aborts.
 * Seeds: result files of every workload (tests/fuzz/results-corpus/). Build and
 * run: make fuzz-results. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/core/utf8.h"
#include "sim/h5read.h"
#include "sim/views/json.h"
#include "sim/views/text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool valid_utf8(const char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t len = utf8_seq((const unsigned char *)s + i, n - i);

		if (!len)
			return false;
		i += len;
	}
	return true;
}

/* What an accepted file must satisfy: the reader's checks, from outside. */
static void check_accepted(const struct results *r)
{
	uint64_t sum = 0;
	char *buf = NULL;
	size_t len = 0;
	FILE *out;

	if (r->nlines > 0 && !r->lines[0].what)
		abort(); /* a read that succeeds fills every line's description */
	if (!isfinite(r->avg.stderr_pct) || r->avg.stderr_pct < 0 || !isfinite(r->wall_secs) || r->wall_secs < 0)
		abort();
	for (uint32_t i = 0; i < r->nfigures; i++)
		if (!isfinite(r->figures[i].value) || r->figures[i].value < 0)
			abort();
	for (uint32_t i = 0; i < r->nthreads; i++)
		sum += r->threads[i].ops;
	if (sum != r->total_ops)
		abort();
	out = open_memstream(&buf, &len);
	if (!out)
		return;
	results_print_json(r, "fuzz.h5", out);
	results_print_summary(r, 1, out);
	fclose(out);
	if (!valid_utf8(buf, len))
		abort();
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	struct fs_error e = { 0 };
	struct results r;
	struct h5read_info info;
	FILE *f;

	if (!path[0])
		snprintf(path, sizeof(path), "/tmp/futexsim-fuzz-results-%ld.h5", (long)getpid());
	f = fopen(path, "wb");
	if (!f)
		return 0;
	if (fwrite(data, 1, size, f) != size) {
		fclose(f);
		return 0;
	}
	fclose(f);
	if (h5read_results_direct(path, 0, &r, &info, &e) == 0)
		check_accepted(&r);
	results_free(&r);
	return 0;
}
