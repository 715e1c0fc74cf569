/* SPDX-License-Identifier: MIT */
/* Replays every fuzzing input kept in the tree through the fuzz target, without
 * a fuzzing engine: tests/fuzz/corpus/ (the minimized corpus) and
 * tests/fuzz/crashes/ (every input that ever crashed futexsim, kept after the
 * fix). One Check test per file; a crash or a broken contract aborts it.
 *
 * `build/tests/check_fuzz_replay FILE...` replays the given files instead (to
 * look at one input under a debugger or a sanitizer).
 *
 * The target is compiled into this file (rather than linked) so that the
 * generic test rule of the Makefile builds it like any other test. Another target's
 * replay includes this file with FUZZ_TARGET, FUZZ_DIRS and FUZZ_MIN_INPUTS set
 * (tests/check_fuzz_trace.c).
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FUZZ_TARGET
#define FUZZ_TARGET "tests/fuzz/fuzz_scenario.c"
#define FUZZ_DIRS "tests/fuzz/corpus", "tests/fuzz/crashes"
#define FUZZ_MIN_INPUTS 20
#endif
#include FUZZ_TARGET
#include "tests/testutil.h"

#define MAX_INPUTS 4096
static const char *const dirs[] = { FUZZ_DIRS };

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 1 << 16, len = 0;
	uint8_t *buf = malloc(cap);

	if (!f || !buf) {
		if (f)
			fclose(f);
		free(buf);
		return -1;
	}
	for (size_t got; (got = fread(buf + len, 1, cap - len, f)) > 0;) {
		len += got;
		if (len == cap) {
			uint8_t *bigger = realloc(buf, cap * 2);

			if (!bigger)
				break;
			buf = bigger;
			cap *= 2;
		}
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The input files, sorted, as "DIR/NAME"; the caller frees them. */
static size_t list_inputs(char *paths[MAX_INPUTS])
{
	size_t n = 0;

	for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
		DIR *dh = opendir(dirs[d]);
		struct dirent *ent;

		while (dh && (ent = readdir(dh)) && n < MAX_INPUTS) {
			char path[512];

			if (ent->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", dirs[d], ent->d_name);
			paths[n++] = strdup(path);
		}
		if (dh)
			closedir(dh);
	}
	qsort(paths, n, sizeof(paths[0]), cmp_str);
	return n;
}

START_TEST(test_replay)
{
	char *paths[MAX_INPUTS];
	size_t n = list_inputs(paths);

	ck_assert_msg((size_t)_i < n, "input %d of %zu", _i, n);
	ck_assert_msg(replay_file(paths[_i]) == 0, "cannot read %s", paths[_i]);
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
}
END_TEST

/* A corpus that vanished would make the replay pass by testing nothing. */
START_TEST(test_corpus_present)
{
	char *paths[MAX_INPUTS];
	size_t n = list_inputs(paths);

	ck_assert_msg(n >= FUZZ_MIN_INPUTS, "only %zu inputs in %s and its crashes", n, dirs[0]);
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
}
END_TEST

int main(int argc, char **argv)
{
	char *paths[MAX_INPUTS];
	size_t n;
	Suite *s;
	TCase *tc;

	if (argc > 1) {
		for (int i = 1; i < argc; i++) {
			fprintf(stderr, "replaying %s\n", argv[i]);
			if (replay_file(argv[i]) < 0) {
				perror(argv[i]);
				return 1;
			}
		}
		return 0;
	}
	n = list_inputs(paths);
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	s = suite_create("fuzz-replay");
	tc = tcase_create("replay");
	tcase_add_test(tc, test_corpus_present);
	tcase_add_loop_test(tc, test_replay, 0, (int)n);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
