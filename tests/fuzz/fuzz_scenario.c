/* SPDX-License-Identifier: MIT */
/* libFuzzer target over everything futexsim reads from a person or a sweep script:
 * the scenario loader (YAML, presets, `inherit`, every section's readers) and the
 * --set parser, the machine's band blocks (run --band's plan), then, for scenarios
 * small enough, building and running them briefly.
 *
 * Input: scenario YAML, optionally followed by a line "#--set" and one --set
 * assignment per line after it (the same bytes a shell loop would pass). The
 * contract checked: no crash, no sanitizer report, no leak, and for an accepted
 * scenario the resolved tree (what `futexsim show --scenario` prints) loads again
 * to the same tree. Rejections must carry a message and an exit status.
 *
 * Built two ways: with -fsanitize=fuzzer for `make fuzz` (Makefile), and
 * included by tests/check_fuzz_replay.c (a plain main) so `make check` replays
 * the corpus and every crash ever found without a fuzzing engine.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/band.h"
#include "sim/scenario.h"
#include "sim/sim.h"

#define MAX_SETS 8
/* What a fuzzed scenario may cost to build and run: small, so each input takes
 * milliseconds; larger ones are loaded and refused by the estimate. */
#define FUZZ_MAX_BYTES (64ull << 20)
#define FUZZ_MAX_EVENTS 50000ull
#define FUZZ_MAX_WARMUP_PS 200000ull    /* 200 ns */
#define FUZZ_MAX_DURATION_PS 1000000ull /* 1 us */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_failure(const struct fs_error *e)
{
	/* every refusal explains itself and carries an exit status main() can return */
	if (!e->status || !e->msg[0] || (e->status != FS_ERR_INPUT && e->status != FS_ERR_LIMIT &&
					 e->status != FS_ERR_RUNTIME)) {
		fprintf(stderr, "bad error: status %d, message '%s'\n", e->status, e->msg);
		abort();
	}
}

static int write_file(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "wb");
	int ok = f && fwrite(text, 1, len, f) == len;

	if (f && fclose(f) != 0)
		ok = 0;
	return ok ? 0 : -1;
}

/* The resolved scenario, emitted and loaded again, resolves to itself. */
static void check_round_trip(const struct scenario *sc, const char *path)
{
	struct scenario again;
	struct fs_error e = { 0 };
	char *text = yt_emit_string(sc->resolved), *text2;

	if (!text)
		return;
	if (write_file(path, text, strlen(text)) < 0) {
		free(text);
		return;
	}
	if (scenario_load(&again, path, NULL, 0, &e) < 0) {
		fprintf(stderr, "resolved scenario does not load again: %s\n---\n%s---\n", e.msg, text);
		abort();
	}
	text2 = yt_emit_string(again.resolved);
	if (text2 && strcmp(text, text2) != 0) {
		fprintf(stderr, "resolved scenario changes when loaded again:\n---\n%s---\n%s---\n", text, text2);
		abort();
	}
	free(text2);
	free(text);
	scenario_free(&again);
}

/* run --band's plan from the machine's calibration or uncertainty block: made, or
 * refused with a message (a machine with neither is refused). */
static void check_band_plan(const struct scenario *sc)
{
	static struct band_plan plan; /* 64 KiB of override text */
	struct fs_error e = { 0 };

	if (band_plan_from_machine(&plan, yt_get(sc->resolved, "machine"), &e) < 0)
		check_failure(&e);
}

/* Builds and runs an accepted scenario under small limits, through the same
 * refusal path (sim/estimate.h) as the command line: a glimpse of the run
 * reaches every model's setup and hot path. */
static void build_and_run(struct scenario *sc)
{
	struct fs_error e = { 0 };
	struct sim s;

	if (sc->warmup > FUZZ_MAX_WARMUP_PS)
		sc->warmup = FUZZ_MAX_WARMUP_PS;
	if (sc->duration > FUZZ_MAX_DURATION_PS)
		sc->duration = FUZZ_MAX_DURATION_PS;
	if (sc->max_memory > FUZZ_MAX_BYTES)
		sc->max_memory = FUZZ_MAX_BYTES;
	if (sc->max_events > FUZZ_MAX_EVENTS)
		sc->max_events = FUZZ_MAX_EVENTS;
	if (sim_build(&s, sc, &e) < 0 || sim_run(&s, &e) < 0)
		check_failure(&e);
	sim_free(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char marker[] = "\n#--set\n";
	char path[64], *text = malloc(size + 1), *sets_text = NULL;
	const char *sets[MAX_SETS];
	size_t nsets = 0, yaml_len = size;
	struct scenario sc;
	struct fs_error e = { 0 };

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	/* the target reads files by name: keep it off devices that never end */
	if (strstr(text, "/dev") || strstr(text, "/proc") || strstr(text, "/sys")) {
		free(text);
		return 0;
	}
	sets_text = strstr(text, marker);
	if (sets_text) {
		yaml_len = (size_t)(sets_text - text) + 1;
		sets_text += sizeof(marker) - 1;
		for (char *line = sets_text; line && nsets < MAX_SETS;) {
			char *nl = strchr(line, '\n');

			if (nl)
				*nl = '\0';
			sets[nsets++] = line;
			line = nl ? nl + 1 : NULL;
		}
	}
	snprintf(path, sizeof(path), "/tmp/futexsim-fuzz-%ld.yaml", (long)getpid());
	if (write_file(path, text, yaml_len) == 0) {
		if (scenario_load(&sc, path, sets, nsets, &e) < 0) {
			check_failure(&e);
		} else {
			check_round_trip(&sc, path);
			check_band_plan(&sc);
			build_and_run(&sc);
		}
		scenario_free(&sc);
	}
	unlink(path);
	free(text);
	return 0;
}
