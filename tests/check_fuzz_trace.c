/* SPDX-License-Identifier: MIT */
/* Replays every trace fuzzing input kept in the tree through the trace target
 * (tests/fuzz/fuzz_trace.c) without a fuzzing engine: tests/fuzz/trace-corpus/
 * and tests/fuzz/trace-crashes/ (every input that ever crashed futexsim, kept after
 * the fix). `build/tests/check_fuzz_trace FILE...` replays the given files. */
#define FUZZ_TARGET "tests/fuzz/fuzz_trace.c"
#define FUZZ_DIRS "tests/fuzz/trace-corpus", "tests/fuzz/trace-crashes"
#define FUZZ_MIN_INPUTS 10
#include "tests/check_fuzz_replay.c"
