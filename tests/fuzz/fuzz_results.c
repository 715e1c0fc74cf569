/* SPDX-License-Identifier: MIT */
/* libFuzzer target over the result-file reader (sim/h5read.c): each input is
 * written to a file and read back as `futexsim show` and `compare` read it. Any crash, leak or sanitizer report in futexsim's code is a
 * bug. libhdf5 itself can crash or loop on damaged files; futexsim reads untrusted
 * files in a child process for that (h5read_results), which this target bypasses
 * (h5read_results_direct) to see its own bugs. Seeds: result files of every
 * workload (tests/fuzz/results-corpus/). Build and run: make fuzz-results. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/h5read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
	if (h5read_results_direct(path, 0, &r, &info, &e) == 0 && r.nlines > 0 && !r.lines[0].what)
		abort(); /* a read that succeeds fills every line's description */
	results_free(&r);
	return 0;
}
