/* SPDX-License-Identifier: MIT */
/* The measuring machinery of sim/probe/bench.c that the scheduler's measurements
 * (sim/probe/sched.c) share: rounds, their low tail, retries while unstable, the
 * budget's shares and the progress lines. Private to sim/probe/. */
#ifndef FUTEXSIM_PROBE_MEASURE_H
#define FUTEXSIM_PROBE_MEASURE_H

#include "sim/probe/probe.h"

/* One round: runs `count` units, returns the seconds taken (< 0: failed). */
typedef double (*probe_trial_fn)(void *ctx, uint64_t count);

/* The measurement plan probe_measure runs: each value's share of the budget is
 * its weight / total_weight of o->seconds; step counts the values done. */
struct probe_run {
	const struct probe_topology *t;
	const struct probe_options *o;
	struct probe_results *r;
	double t0, total_weight;
	uint32_t step, steps;
};

/* CLOCK_MONOTONIC in seconds. */
double probe_now_s(void);

static inline void probe_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

/* The seconds of a value of this weight. */
double probe_budget(const struct probe_run *run, double weight);
/* "45.1ns" (v < 10: "4.51ns"), or "1.250" for a ratio. */
void probe_format_value(char *buf, size_t size, double v, bool ratio);
/* A value's progress line (and its warning when unstable) on run->o->progress;
 * counts the step. */
void probe_progress(struct probe_run *run, const char *what, const struct probe_value *v);
/* The estimator for a value's `how`: "the low tail: p10 of rounds of T ms ...". */
void probe_low_tail_how(char *buf, size_t size, uint32_t series, const char *of, double trial_s);

/* One pair, buffer or CPU: rounds of about trial_s each for budget_s (sample =
 * seconds / count x scale), checked and retried while unstable; the attempt kept
 * into `out` (its rounds malloc'd: free out->rounds). -1 a round failed, -2 out of
 * memory. */
int probe_measure_series(probe_trial_fn fn, void *ctx, double budget_s, double trial_s, double scale, FILE *progress,
			 const char *what, struct probe_series *out);
/* A value measured by `fn` on the first CPU (pinned there), its `how` "HOW, on CPU
 * N; the low tail ...", its progress line. -1 with `e` set. */
int probe_measure_single(struct probe_run *run, const char *what, probe_trial_fn fn, void *ctx, double weight,
			 double trial_s, struct probe_value *v, const char *how, struct fs_error *e);

/* A line `INDENT key: value` padded to the comment column, then `# comment`
 * (sim/probe/probe.c). */
void probe_yaml_line(FILE *f, const char *indent, const char *key, const char *value, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* ---- sim/probe/sched.c ---- */

/* The sched measurements' share of the budget (weights) and their progress steps,
 * with (`cross`) or without a second CPU. */
double probe_sched_weight(bool cross);
uint32_t probe_sched_steps(bool cross);
/* Measures run->r->sched: the futex calls, the one-CPU hand-off and pipe on Linux
 * CPU a; with `cross` the wake-ups between a and b and the pipe across. -1 with
 * `e` set (a pin refused, a thread that made no progress, out of memory). */
int probe_measure_sched(struct probe_run *run, uint32_t a, uint32_t b, bool cross, struct fs_error *e);

#endif
