/* SPDX-License-Identifier: MIT */
/* libFuzzer target over the futexsim trace reader (models/workloads/tracefile.h)
 * and, for small traces, their replay (workload.type: trace).
 *
 * Input: trace text, as a hostile or damaged file may hold it. The contract
 * checked: no crash, no sanitizer report, no leak, no hang; a refusal carries a
 * message starting "FILE:LINE:COL:" (or says it ran out of memory) and an exit
 * status; an accepted trace writes back text that reads to the same trace and
 * writes the same text again; a small accepted trace replays on the small machine
 * to its end, or stops with a refusal, and never replays more calls than it holds.
 *
 * Built two ways: with -fsanitize=fuzzer for `make fuzz-trace` (Makefile), and
 * included by tests/check_fuzz_trace.c so that `make check` replays the corpus
 * (tests/fuzz/trace-corpus/) and every input that ever crashed it
 * (tests/fuzz/trace-crashes/) without a fuzzing engine.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "models/workloads/tracefile.h"
#include "sim/scenario.h"
#include "sim/sim.h"

/* What a fuzzed trace may cost to replay: small, so each input takes milliseconds. */
#define FUZZ_TRACE_MAX_THREADS 8u
#define FUZZ_TRACE_MAX_EVENTS 256u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_refusal(const struct fs_error *e, const char *name)
{
	bool located = strncmp(e->msg, name, strlen(name)) == 0 && e->msg[strlen(name)] == ':';

	if (!e->msg[0] || (e->status != FS_ERR_INPUT && e->status != FS_ERR_LIMIT) ||
	    (e->status == FS_ERR_INPUT && !located)) {
		fprintf(stderr, "bad refusal: status %d, message '%s'\n", e->status, e->msg);
		abort();
	}
}

static char *written(const struct trace *t)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	if (trace_write(t, f) < 0) {
		fclose(f);
		free(text);
		return NULL;
	}
	fclose(f);
	return text;
}

/* Written back, the trace reads again to itself. */
static void check_round_trip(const struct trace *t, const char *text)
{
	struct trace again;
	struct fs_error e = { 0 };
	char *text2;

	if (trace_read_mem(text, strlen(text), "written.trace", &again, &e) < 0) {
		fprintf(stderr, "a written trace does not read again: %s\n---\n%s---\n", e.msg, text);
		abort();
	}
	text2 = written(&again);
	if (text2 && strcmp(text, text2) != 0) {
		fprintf(stderr, "a written trace changes when read again:\n---\n%s---\n%s---\n", text, text2);
		abort();
	}
	if (again.nevents != t->nevents || again.nthreads != t->nthreads) {
		fprintf(stderr, "a written trace reads back with other events or threads\n");
		abort();
	}
	free(text2);
	trace_free(&again);
}

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	int ok = f && fputs(text, f) >= 0;

	if (f && fclose(f) != 0)
		ok = 0;
	return ok ? 0 : -1;
}

/* The replay of a small trace: to its end, or a refusal with a status. */
static void replay(const char *text, uint32_t calls)
{
	char tpath[64], spath[64], yaml[256];
	struct scenario sc;
	struct sim s;
	struct fs_error e = { 0 };

	snprintf(tpath, sizeof(tpath), "/tmp/futexsim-fuzz-%ld.trace", (long)getpid());
	snprintf(spath, sizeof(spath), "/tmp/futexsim-fuzz-%ld.yaml", (long)getpid());
	snprintf(yaml, sizeof(yaml),
		 "machine: small-1node\nkernel: linux-6.18\nworkload: {type: trace, trace: %s, placement: spread}\n"
		 "run: {duration: 20ms, warmup: 0, max_events: 200000}\n",
		 tpath);
	if (write_file(tpath, text) == 0 && write_file(spath, yaml) == 0) {
		if (scenario_load(&sc, spath, NULL, 0, &e) < 0) {
			fprintf(stderr, "an accepted trace is refused by its scenario: %s\n", e.msg);
			abort();
		}
		if (sim_build(&s, &sc, &e) < 0 || sim_run(&s, &e) < 0) {
			if (!e.status || !e.msg[0]) {
				fprintf(stderr, "a replay failed without a message\n");
				abort();
			}
		} else {
			struct workload_figures f = { 0 };

			sc.wl_type->figures(s.wl, &f);
			for (uint32_t i = 0; i < f.n; i++)
				if (!strcmp(f.v[i].name, "calls_replayed") && f.v[i].value > calls) {
					fprintf(stderr, "%.0f calls replayed of %u\n", f.v[i].value, calls);
					abort();
				}
		}
		sim_free(&s);
		scenario_free(&sc);
	}
	unlink(tpath);
	unlink(spath);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace t;
	struct fs_error e = { 0 };
	char *text;
	uint32_t calls = 0;

	if (trace_read_mem((const char *)data, size, "fuzz.trace", &t, &e) < 0) {
		check_refusal(&e, "fuzz.trace");
		return 0;
	}
	text = written(&t);
	if (text) {
		check_round_trip(&t, text);
		for (int f = TF_WAIT_BLOCK; f < TF_NFATES; f++)
			calls += t.link.fates[f];
		if (t.nthreads <= FUZZ_TRACE_MAX_THREADS && t.nevents <= FUZZ_TRACE_MAX_EVENTS)
			replay(text, calls);
	}
	free(text);
	trace_free(&t);
	return 0;
}
