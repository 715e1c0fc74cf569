/* SPDX-License-Identifier: MIT */
/* futexsim probe, step 2: micro-benchmarks of the machine it runs on, each thread
 * pinned with sched_setaffinity. A latency is the low tail (p10) of many short
 * rounds, as noise only adds time, checked for spread and drift and measured again
 * while unstable; the SMT slowdown is the median of its trials. The budget
 * (--seconds) sets how many. docs/probe.md says what each one measures and how. */
#define _GNU_SOURCE /* sched_setaffinity, CPU_SET_S, syscall */
#include "sim/probe/probe.h"
#include "sim/probe/measure.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MIN_TRIALS 5u      /* the SMT slowdown's trials */
#define MAX_TRIALS 400u
#define MAX_ROUNDS 65536u  /* per attempt at one pair, buffer or CPU: the rounds fill the budget below that */
#define STUCK_S 5.0        /* a ping-pong round that makes no progress for this long fails */
#define PAIRS_PER_CLASS 3u
#define DRAM_ITEMS_PER_CLASS 2u
#define LINE_BYTES 64u
#define DRAM_MIN_BYTES (64ull << 20)
#define DRAM_MAX_BYTES (1ull << 30)
#define DRAM_LLC_FACTOR 8u /* buffer = 8 x the last-level cache: ~1/8 of the steps may still hit it */

/* the length of one round (a timed batch), seconds: short, so that most rounds
 * miss the noise (a descheduled virtual CPU is gone for milliseconds); the SMT
 * slowdown's trials are longer, each a ratio of two */
#define TRIAL_SYSCALL 0.0005
#define TRIAL_HIT 0.0002
#define TRIAL_PINGPONG 0.0002
#define TRIAL_CHASE 0.002
#define TRIAL_WORK 0.005

/* set_mempolicy/mbind modes and flags (linux/mempolicy.h) */
#define PROBE_MPOL_BIND 2
#define PROBE_MPOL_F_NODE 1
#define PROBE_MPOL_F_ADDR 2

/* ---- timing, pinning, statistics ------------------------------------------------ */

double probe_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int probe_pin_self(uint32_t cpu)
{
	cpu_set_t *set = CPU_ALLOC(cpu + 1);
	size_t size = CPU_ALLOC_SIZE(cpu + 1);
	int rc;

	if (!set)
		return ENOMEM;
	CPU_ZERO_S(size, set);
	CPU_SET_S(cpu, size, set);
	rc = sched_setaffinity(0, size, set) ? errno : 0;
	CPU_FREE(set);
	return rc;
}

int probe_pin_failed(struct fs_error *e, uint32_t cpu, int err, const char *why)
{
	return fs_fail(e, FS_ERR_RUNTIME,
		       "cannot pin a thread to CPU %" PRIu32 " with sched_setaffinity: %s (%s; run it where it may use "
		       "every online CPU: no taskset, cpuset or container CPU limit)",
		       cpu, strerror(err), why);
}

static int pin_failed(struct fs_error *e, uint32_t cpu, int err)
{
	return probe_pin_failed(e, cpu, err, "futexsim probe runs its benchmarks on chosen CPUs; nothing written");
}

/* The calling thread's affinity, to restore it afterwards. */
struct affinity {
	cpu_set_t *set;
	size_t size;
};

static int affinity_save(struct affinity *a)
{
	for (int cpus = 1024; cpus <= (1 << 20); cpus *= 2) {
		a->set = CPU_ALLOC(cpus);
		a->size = CPU_ALLOC_SIZE(cpus);
		if (!a->set)
			return ENOMEM;
		if (sched_getaffinity(0, a->size, a->set) == 0)
			return 0;
		CPU_FREE(a->set);
		a->set = NULL;
		if (errno != EINVAL)
			return errno;
	}
	return EINVAL;
}

static void affinity_restore(struct affinity *a)
{
	if (!a->set)
		return;
	(void)sched_setaffinity(0, a->size, a->set);
	CPU_FREE(a->set);
	a->set = NULL;
}

/* Every online CPU must be allowed: refuse at once, before any measurement. */
static int check_allowed(const struct probe_topology *t, const struct affinity *a, struct fs_error *e)
{
	for (uint32_t i = 0; i < t->ncpus; i++) {
		uint32_t cpu = t->cpus[i].linux_id;

		if (cpu >= a->size * 8 || !CPU_ISSET_S(cpu, a->size, a->set))
			return fs_fail(e, FS_ERR_RUNTIME,
				       "CPU %" PRIu32 " is online but this process may not run on it (taskset, a cpuset or "
				       "a container CPU limit): futexsim probe pins its benchmark threads to every online "
				       "CPU with sched_setaffinity; run it without the restriction; nothing written",
				       cpu);
	}
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int cmp_u32_bench(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static double quantile(const double *s, uint32_t n, double q)
{
	double pos = q * (double)(n - 1);
	uint32_t i = (uint32_t)pos;
	double frac = pos - (double)i;

	return i + 1 < n ? s[i] + frac * (s[i + 1] - s[i]) : s[n - 1];
}

struct samples {
	double *v;
	uint32_t n, cap;
};

static int samples_push(struct samples *s, double v)
{
	if (s->n == s->cap) {
		uint32_t cap = s->cap ? 2 * s->cap : 64;
		double *grown = realloc(s->v, cap * sizeof(*grown));

		if (!grown)
			return -1;
		s->v = grown;
		s->cap = cap;
	}
	s->v[s->n++] = v;
	return 0;
}

/* Median and spread of the samples (p10-p90 from 10 on, else min-max): the SMT
 * slowdown, a ratio, whose noise goes either way. */
static void summarise_median(struct samples *s, struct probe_value *v)
{
	if (!s->n)
		return;
	qsort(s->v, s->n, sizeof(*s->v), cmp_double);
	v->measured = true;
	v->n = s->n;
	v->median = quantile(s->v, s->n, 0.5);
	v->estimate = v->median;
	v->low_tail = false;
	v->attempts = 1;
	v->percentiles = s->n >= 10;
	v->lo = v->percentiles ? quantile(s->v, s->n, 0.1) : s->v[0];
	v->hi = v->percentiles ? quantile(s->v, s->n, 0.9) : s->v[s->n - 1];
}

/* ---- low tails: estimate, spread, drift, attempts -------------------------------- */

/* The low tail of sorted s[0..n): p10 from 10 values on, the minimum below. */
static double low_tail_sorted(const double *s, uint32_t n)
{
	return n >= 10 ? quantile(s, n, 0.1) : s[0];
}

/* The low tail of v[0..n) in any order (a sorted copy in `tmp`). */
static double low_tail_of(const double *v, uint32_t n, double *tmp)
{
	memcpy(tmp, v, n * sizeof(*v));
	qsort(tmp, n, sizeof(*tmp), cmp_double);
	return low_tail_sorted(tmp, n);
}

void probe_stats_of(const double *rounds, uint32_t n, struct probe_stats *st)
{
	double *sorted;
	size_t len = 0;

	memset(st, 0, sizeof(*st));
	st->n = n;
	st->estimate = st->median = st->lo = st->hi = st->first = st->second = NAN;
	if (!n)
		return;
	sorted = malloc(n * sizeof(*sorted));
	if (!sorted) {
		st->unstable = true;
		snprintf(st->why, sizeof(st->why), "out of memory");
		return;
	}
	st->percentiles = n >= 10;
	st->estimate = low_tail_of(rounds, n, sorted);
	st->median = quantile(sorted, n, 0.5);
	st->lo = st->percentiles ? quantile(sorted, n, 0.1) : sorted[0];
	st->hi = st->percentiles ? quantile(sorted, n, 0.9) : sorted[n - 1];
	if (n >= 4) {
		st->first = low_tail_of(rounds, n / 2, sorted);
		st->second = low_tail_of(rounds + n / 2, n - n / 2, sorted);
	}
	free(sorted);
	/* spread: the slow rounds far above the fast ones */
	if (!(st->lo > 0) || st->hi > PROBE_SPREAD_LIMIT * st->lo) {
		st->unstable = true;
		len += (size_t)snprintf(st->why, sizeof(st->why),
					"spread %.2f-%.2fns (%s): p90/p10 %.2f, above %.1f", st->lo, st->hi,
					st->percentiles ? "p10-p90" : "min-max", st->lo > 0 ? st->hi / st->lo : INFINITY,
					PROBE_SPREAD_LIMIT);
	}
	/* drift: the floor itself moved during the measurement */
	if (n >= 4) {
		double low = fmin(st->first, st->second), moved = fabs(st->first - st->second);

		if (!(low > 0) || moved > PROBE_DRIFT_LIMIT * low) {
			st->unstable = true;
			if (len < sizeof(st->why))
				snprintf(st->why + len, sizeof(st->why) - len,
					 "%sdrift: low tail %.2fns in the first half of the rounds, %.2fns in the second (%.0f%%, "
					 "above %.0f%%)",
					 len ? "; " : "", st->first, st->second, low > 0 ? 100 * moved / low : INFINITY,
					 100 * PROBE_DRIFT_LIMIT);
		}
	}
}

uint32_t probe_pick_attempt(const struct probe_stats *a, uint32_t n, bool *accepted, char *why, size_t size)
{
	uint32_t lowest = 0, last = n - 1;
	size_t len = 0;

	*accepted = false;
	if (size)
		why[0] = '\0';
	if (!n)
		return 0;
	for (uint32_t i = 1; i < n; i++)
		if (a[i].estimate < a[lowest].estimate)
			lowest = i;
	if (!a[last].unstable && a[last].estimate <= (1 + PROBE_DRIFT_LIMIT) * a[lowest].estimate) {
		*accepted = true;
		return last;
	}
	/* not accepted: the lowest estimate, said why */
	len += (size_t)snprintf(why, size, "%" PRIu32 " attempt%s, low tails", n, n == 1 ? "" : "s");
	for (uint32_t i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(why + len, size - len, "%s %.2f", i ? "," : "", a[i].estimate);
	if (len < size)
		len += (size_t)snprintf(why + len, size - len, "ns; kept the lowest (attempt %" PRIu32 ")", lowest + 1);
	if (len < size) {
		if (a[lowest].unstable)
			snprintf(why + len, size - len, ", itself unstable: %s", a[lowest].why);
		else if (a[last].unstable)
			snprintf(why + len, size - len, ", stable itself; the last attempt unstable: %s", a[last].why);
		else
			snprintf(why + len, size - len, ", stable itself; the last attempt stable but more than %.0f%% above it",
				 100 * PROBE_DRIFT_LIMIT);
	}
	return lowest;
}

static int cmp_series_estimate(const void *a, const void *b)
{
	return cmp_double(&(*(const struct probe_series *const *)a)->stats.estimate,
			  &(*(const struct probe_series *const *)b)->stats.estimate);
}

int probe_value_combine(const struct probe_series *s, uint32_t n, struct probe_value *v)
{
	const struct probe_series **by = malloc((n ? n : 1) * sizeof(*by));
	uint32_t total = 0, k = 0;
	double *pooled;
	size_t len = 0;

	if (!by)
		return -1;
	for (uint32_t i = 0; i < n; i++)
		total += s[i].n;
	pooled = malloc((total ? total : 1) * sizeof(*pooled));
	if (!pooled) {
		free(by);
		return -1;
	}
	for (uint32_t i = 0; i < n; i++) {
		if (!s[i].n)
			continue;
		memcpy(pooled + k, s[i].rounds, s[i].n * sizeof(*pooled));
		k += s[i].n;
	}
	v->measured = total > 0;
	v->low_tail = true;
	v->n = total;
	v->attempts = 0;
	v->unstable = false;
	v->warning[0] = '\0';
	if (total) {
		uint32_t m = 0;

		qsort(pooled, total, sizeof(*pooled), cmp_double);
		v->percentiles = total >= 10;
		v->median = quantile(pooled, total, 0.5);
		v->lo = v->percentiles ? quantile(pooled, total, 0.1) : pooled[0];
		v->hi = v->percentiles ? quantile(pooled, total, 0.9) : pooled[total - 1];
		for (uint32_t i = 0; i < n; i++)
			if (s[i].n)
				by[m++] = &s[i];
		qsort(by, m, sizeof(*by), cmp_series_estimate);
		/* the median of the series' low tails: the typical pair of the kind */
		v->estimate = m % 2 ? by[m / 2]->stats.estimate
				    : (by[m / 2 - 1]->stats.estimate + by[m / 2]->stats.estimate) / 2;
	}
	for (uint32_t i = 0; i < n; i++) {
		if (s[i].attempts > v->attempts)
			v->attempts = s[i].attempts;
		if (s[i].n && !s[i].accepted) {
			v->unstable = true;
			if (len < sizeof(v->warning))
				len += (size_t)snprintf(v->warning + len, sizeof(v->warning) - len, "%s%s%s%s", len ? "; " : "",
							s[i].where, s[i].where[0] ? ": " : "", s[i].why);
		}
	}
	free(pooled);
	free(by);
	return 0;
}

/* Sizes a round to about `trial_s`, then runs rounds back to back until `budget_s`
 * has passed (at least PROBE_MIN_ROUNDS, at most MAX_ROUNDS), each sample =
 * seconds / count x scale, in the order measured. -1 when a round failed, -2 out of
 * memory. */
static int run_rounds(probe_trial_fn fn, void *ctx, double budget_s, double trial_s, double scale, struct samples *s)
{
	uint64_t count = 8;
	double t, start;

	for (;;) {
		t = fn(ctx, count);
		if (t < 0)
			return -1;
		if (t >= trial_s / 4 || count >= (1ull << 36))
			break;
		count *= t > trial_s / 1000 ? (uint64_t)(trial_s / 4 / t) + 2 : 16;
	}
	if (t > 0)
		count = (uint64_t)((double)count * trial_s / t) + 1;
	start = probe_now_s();
	for (uint32_t made = 0; made < MAX_ROUNDS && (made < PROBE_MIN_ROUNDS || probe_now_s() - start < budget_s); made++) {
		t = fn(ctx, count);
		if (t < 0)
			return -1;
		if (samples_push(s, t / (double)count * scale) < 0)
			return -2;
	}
	return 0;
}

/* One pair, buffer or CPU: rounds for `budget_s`, checked (probe_stats_of) and,
 * while unstable, measured again up to PROBE_RETRIES times on budget_s /
 * PROBE_RETRIES each; the attempt kept into `out` (its rounds malloc'd: free
 * out->rounds). Retries are said on `progress`. -1 a round failed, -2 out of
 * memory. */
int probe_measure_series(probe_trial_fn fn, void *ctx, double budget_s, double trial_s, double scale, FILE *progress,
			  const char *what, struct probe_series *out)
{
	struct samples att[1 + PROBE_RETRIES] = { { 0 } };
	struct probe_stats st[1 + PROBE_RETRIES];
	uint32_t made = 0, kept = 0;
	int rc = 0;

	out->rounds = NULL;
	out->n = 0;
	for (uint32_t k = 0; k <= PROBE_RETRIES; k++) {
		bool ok;

		rc = run_rounds(fn, ctx, k ? budget_s / PROBE_RETRIES : budget_s, trial_s, scale, &att[k]);
		made = k + 1;
		if (rc < 0)
			break;
		probe_stats_of(att[k].v, att[k].n, &st[k]);
		kept = probe_pick_attempt(st, made, &ok, out->why, sizeof(out->why));
		out->accepted = ok;
		if (ok || k == PROBE_RETRIES)
			break;
		if (progress) {
			fprintf(progress, "futexsim probe:       %s %s unstable (%s): retry %" PRIu32 " of %" PRIu32 "\n", what,
				out->where, st[k].unstable ? st[k].why : "above an earlier attempt's low tail", k + 1,
				PROBE_RETRIES);
			fflush(progress);
		}
	}
	if (rc == 0) {
		out->rounds = att[kept].v;
		out->n = att[kept].n;
		out->stats = st[kept];
		out->attempts = made;
		att[kept].v = NULL;
	}
	for (uint32_t k = 0; k < made; k++)
		free(att[k].v);
	return rc;
}

/* ---- syscall, hits --------------------------------------------------------------- */

static double trial_syscall(void *ctx, uint64_t count)
{
	double t0 = probe_now_s();

	(void)ctx;
	for (uint64_t i = 0; i < count; i++)
		syscall(SYS_getppid);
	return probe_now_s() - t0;
}

/* A line of its own: 128 bytes (the adjacent-line prefetcher pairs 64-byte lines). */
struct own_line {
	_Alignas(128) void *volatile cell;
	uint64_t counter;
	char pad[128 - sizeof(void *) - sizeof(uint64_t)];
	void *sink;
};

/* Dependent loads of a pointer to itself: an L1 load-to-use hit each. */
static double trial_line_hit(void *ctx, uint64_t count)
{
	struct own_line *l = ctx;
	void *p = (void *)&l->cell;
	double t0;

	l->cell = (void *)&l->cell;
	t0 = probe_now_s();
	for (uint64_t i = 0; i < count; i += 8) {
		p = *(void *volatile *)p;
		p = *(void *volatile *)p;
		p = *(void *volatile *)p;
		p = *(void *volatile *)p;
		p = *(void *volatile *)p;
		p = *(void *volatile *)p;
		p = *(void *volatile *)p;
		p = *(void *volatile *)p;
	}
	t0 = probe_now_s() - t0;
	l->sink = p;
	return t0;
}

/* Back-to-back locked adds on a line held Modified. */
static double trial_atomic_hit(void *ctx, uint64_t count)
{
	struct own_line *l = ctx;
	double t0 = probe_now_s();

	for (uint64_t i = 0; i < count; i += 8) {
		__atomic_fetch_add(&l->counter, 1, __ATOMIC_SEQ_CST);
		__atomic_fetch_add(&l->counter, 1, __ATOMIC_SEQ_CST);
		__atomic_fetch_add(&l->counter, 1, __ATOMIC_SEQ_CST);
		__atomic_fetch_add(&l->counter, 1, __ATOMIC_SEQ_CST);
		__atomic_fetch_add(&l->counter, 1, __ATOMIC_SEQ_CST);
		__atomic_fetch_add(&l->counter, 1, __ATOMIC_SEQ_CST);
		__atomic_fetch_add(&l->counter, 1, __ATOMIC_SEQ_CST);
		__atomic_fetch_add(&l->counter, 1, __ATOMIC_SEQ_CST);
	}
	return probe_now_s() - t0;
}

/* ---- line hand-offs: CAS ping-pong --------------------------------------------- */

struct pingpong {
	_Alignas(128) _Atomic uint64_t line; /* the line handed back and forth */
	char pad0[128 - sizeof(uint64_t)];
	_Alignas(128) _Atomic int64_t go;    /* round to run; -1: stop */
	_Atomic int64_t ready;               /* the partner is in round `ready` */
	_Atomic int failed;                  /* the partner could not pin: its errno */
	_Atomic int stuck;                   /* a round made no progress for STUCK_S */
	uint64_t iters;                      /* round trips of the round (written before go) */
	uint32_t partner_cpu;
	int64_t gen;                         /* the main thread's round counter */
};

/* The partner: turns each odd value into the next even one. It looks at the stop
 * flag now and then while it waits, so that a round abandoned by the main thread
 * does not keep it. */
static void *partner_main(void *arg)
{
	struct pingpong *p = arg;
	int64_t last = 0;
	int err = probe_pin_self(p->partner_cpu);

	if (err) {
		atomic_store(&p->failed, err);
		return NULL;
	}
	for (;;) {
		int64_t g;
		uint64_t n;

		while ((g = atomic_load_explicit(&p->go, memory_order_acquire)) == last)
			probe_relax();
		if (g < 0)
			return NULL;
		last = g;
		n = p->iters;
		atomic_store_explicit(&p->ready, g, memory_order_release);
		for (uint64_t i = 0; i < n; i++) {
			uint64_t want = 2 * i + 1;

			for (uint32_t spins = 0; atomic_load_explicit(&p->line, memory_order_relaxed) != want; spins++) {
				probe_relax();
				if ((spins & 0xfff) == 0xfff && atomic_load_explicit(&p->go, memory_order_relaxed) < 0)
					return NULL;
			}
			atomic_compare_exchange_strong(&p->line, &want, want + 1);
		}
	}
}

/* Waits for the line to hold `want`; false when STUCK_S passed without it. */
static bool wait_line(struct pingpong *p, uint64_t want, double since)
{
	for (uint32_t spins = 0; atomic_load_explicit(&p->line, memory_order_relaxed) != want; spins++) {
		probe_relax();
		if ((spins & 0xffff) == 0xffff && probe_now_s() - since > STUCK_S)
			return false;
	}
	return true;
}

/* `count` round trips: the main thread turns each even value into the next odd one.
 * -1 when the partner could not pin or made no progress for STUCK_S. */
static double trial_pingpong(void *ctx, uint64_t count)
{
	struct pingpong *p = ctx;
	int64_t g = ++p->gen;
	double t0 = probe_now_s();

	atomic_store(&p->line, 0);
	p->iters = count;
	atomic_store_explicit(&p->go, g, memory_order_release);
	for (uint32_t spins = 0; atomic_load_explicit(&p->ready, memory_order_acquire) != g; spins++) {
		if (atomic_load(&p->failed))
			return -1;
		probe_relax();
		if ((spins & 0xffff) == 0xffff && probe_now_s() - t0 > STUCK_S) {
			atomic_store(&p->stuck, 1);
			return -1;
		}
	}
	t0 = probe_now_s();
	for (uint64_t i = 0; i < count; i++) {
		uint64_t want = 2 * i;

		if (!wait_line(p, want, t0)) {
			atomic_store(&p->stuck, 1);
			return -1;
		}
		atomic_compare_exchange_strong(&p->line, &want, want + 1);
	}
	if (!wait_line(p, 2 * count, t0)) {
		atomic_store(&p->stuck, 1);
		return -1;
	}
	return probe_now_s() - t0;
}

/* One-way hand-off between Linux CPUs a (this thread) and b: round trip / 2, its
 * attempts into `out`. */
static int measure_pair(uint32_t a, uint32_t b, double budget_s, FILE *progress, const char *what,
			struct probe_series *out, struct fs_error *e)
{
	struct pingpong *p;
	pthread_t th;
	int err, rc, stuck;

	snprintf(out->where, sizeof(out->where), "CPUs %" PRIu32 "-%" PRIu32, a, b);
	if ((err = probe_pin_self(a)) != 0)
		return pin_failed(e, a, err);
	if (posix_memalign((void **)&p, 128, sizeof(*p)) != 0)
		return fs_fail(e, FS_ERR_RUNTIME, "out of memory");
	memset(p, 0, sizeof(*p));
	p->partner_cpu = b;
	if ((err = pthread_create(&th, NULL, partner_main, p)) != 0) {
		free(p);
		return fs_fail(e, FS_ERR_RUNTIME, "cannot start a benchmark thread: %s", strerror(err));
	}
	rc = probe_measure_series(trial_pingpong, p, budget_s, TRIAL_PINGPONG, 1e9 / 2, progress, what, out);
	atomic_store_explicit(&p->go, -1, memory_order_release);
	pthread_join(th, NULL);
	err = atomic_load(&p->failed);
	stuck = atomic_load(&p->stuck);
	free(p);
	if (err)
		return pin_failed(e, b, err);
	if (stuck)
		return fs_fail(e, FS_ERR_RUNTIME,
			       "the CAS ping-pong between CPUs %" PRIu32 " and %" PRIu32 " made no progress for %.0f s (a "
			       "thread was not scheduled); nothing written",
			       a, b, STUCK_S);
	return rc < 0 ? fs_fail(e, FS_ERR_RUNTIME, "out of memory") : 0;
}

/* ---- DRAM: a pointer chase over a randomly permuted buffer --------------------- */

struct chase {
	void **pos;
	size_t bytes;
	void *buf;
};

static double trial_chase(void *ctx, uint64_t count)
{
	struct chase *c = ctx;
	void **p = c->pos;
	double t0 = probe_now_s();

	for (uint64_t i = 0; i < count; i += 4) {
		p = (void **)*p;
		p = (void **)*p;
		p = (void **)*p;
		p = (void **)*p;
	}
	t0 = probe_now_s() - t0;
	c->pos = p; /* the next trial goes on where this one stopped */
	return t0;
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* A buffer of `bytes` on Linux node `node` (< 0: wherever the first touch puts it),
 * each line pointing to the next of one random cycle through all lines (Sattolo).
 * Sets `placed` to whether the pages were verified on `node`; `why` otherwise. */
static int chase_build(struct chase *c, size_t bytes, int node, bool *placed, char *why, size_t why_size)
{
	const size_t n = bytes / LINE_BYTES;
	uint32_t *perm;
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	char *buf;

	*placed = false;
	why[0] = '\0';
	buf = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return -1;
	(void)madvise(buf, bytes, MADV_HUGEPAGE); /* fewer TLB misses when the kernel grants it */
	if (node >= 0) {
		unsigned long mask[MACHINE_MAX_NODES * 64 / (8 * sizeof(unsigned long))] = { 0 };

		if ((unsigned)node >= sizeof(mask) * 8) {
			snprintf(why, why_size, "node %d beyond the node mask", node);
		} else {
			mask[(unsigned)node / (8 * sizeof(unsigned long))] |= 1ul << ((unsigned)node % (8 * sizeof(unsigned long)));
			if (syscall(SYS_mbind, buf, bytes, PROBE_MPOL_BIND, mask, sizeof(mask) * 8, 0) != 0)
				snprintf(why, why_size, "mbind refused: %s", strerror(errno));
		}
	}
	perm = malloc(n * sizeof(*perm));
	if (!perm) {
		munmap(buf, bytes);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		perm[i] = (uint32_t)i;
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = (size_t)(xorshift(&seed) % i);
		uint32_t x = perm[i];

		perm[i] = perm[j];
		perm[j] = x;
	}
	for (size_t i = 0; i < n; i++)
		*(void **)(buf + i * LINE_BYTES) = buf + (size_t)perm[i] * LINE_BYTES;
	free(perm);
	if (node >= 0 && !why[0]) {
		/* where the kernel put a few pages */
		*placed = true;
		for (int k = 0; k < 8 && *placed; k++) {
			int where = -1;
			char *addr = buf + (bytes / 8) * (size_t)k;

			if (syscall(SYS_get_mempolicy, &where, NULL, 0, addr, PROBE_MPOL_F_NODE | PROBE_MPOL_F_ADDR) != 0) {
				snprintf(why, why_size, "placement not verifiable (get_mempolicy: %s)", strerror(errno));
				*placed = false;
			} else if (where != node) {
				snprintf(why, why_size, "pages landed on node %d, not %d", where, node);
				*placed = false;
			}
		}
	}
	c->buf = buf;
	c->bytes = bytes;
	c->pos = (void **)buf;
	return 0;
}

static void chase_free(struct chase *c)
{
	if (c->buf)
		munmap(c->buf, c->bytes);
	c->buf = NULL;
}

/* ---- SMT: the same compute loop with the sibling idle and busy ------------------ */

/* Integer work with some instruction-level parallelism: four chains of multiply,
 * shift, xor and add, the kind of mix a sibling competes for. */
static uint64_t work(uint64_t n, uint64_t x)
{
	uint64_t a = x | 1, b = x ^ 0x5851f42d4c957f2dull, c = x + 0x14057b7ef767814full, d = ~x;

	for (uint64_t i = 0; i < n; i++) {
		a = a * 6364136223846793005ull + 1442695040888963407ull;
		b ^= b << 13;
		b ^= b >> 7;
		c += a ^ (b >> 3);
		d = (d * 31) ^ c;
	}
	return a ^ b ^ c ^ d;
}

struct busy {
	_Atomic int stop, running, failed;
	uint32_t cpu;
	uint64_t sink;
};

static void *busy_main(void *arg)
{
	struct busy *b = arg;
	int err = probe_pin_self(b->cpu);

	if (err) {
		atomic_store(&b->failed, err);
		return NULL;
	}
	atomic_store(&b->running, 1);
	while (!atomic_load_explicit(&b->stop, memory_order_relaxed))
		b->sink += work(1u << 12, b->sink);
	return NULL;
}

struct smt_ctx {
	uint64_t sink;
};

/* Keeps the compiler from moving a pure computation out of the timed region: the
 * value passes through an opaque, ordered step (as Google Benchmark's DoNotOptimize). */
static inline void opaque(uint64_t *v)
{
	__asm__ __volatile__("" : "+r"(*v) : : "memory");
}

static double trial_work(void *ctx, uint64_t count)
{
	struct smt_ctx *s = ctx;
	uint64_t x = s->sink + count;
	double t0 = probe_now_s();

	opaque(&x);
	x = work(count, x);
	opaque(&x);
	t0 = probe_now_s() - t0;
	s->sink = x;
	return t0;
}

/* Ratios busy / idle of the same loop on Linux CPU a, its sibling b busy or not. */
static int measure_smt(uint32_t a, uint32_t b, double budget_s, struct samples *s, struct fs_error *e)
{
	struct smt_ctx ctx = { 0 };
	uint64_t count = 1u << 14;
	double t, start;
	int err;

	if ((err = probe_pin_self(a)) != 0)
		return pin_failed(e, a, err);
	for (t = trial_work(&ctx, count); t < TRIAL_WORK / 4 && count < (1ull << 36); t = trial_work(&ctx, count))
		count *= 4;
	count = (uint64_t)((double)count * TRIAL_WORK / (t > 0 ? t : TRIAL_WORK)) + 1;
	start = probe_now_s();
	for (uint32_t made = 0; made < MAX_TRIALS && (made < MIN_TRIALS || probe_now_s() - start < budget_s); made++) {
		struct busy bz = { .cpu = b };
		pthread_t th;
		double idle = trial_work(&ctx, count), busy;

		if ((err = pthread_create(&th, NULL, busy_main, &bz)) != 0)
			return fs_fail(e, FS_ERR_RUNTIME, "cannot start a benchmark thread: %s", strerror(err));
		while (!atomic_load(&bz.running) && !atomic_load(&bz.failed))
			sched_yield();
		busy = trial_work(&ctx, count);
		atomic_store(&bz.stop, 1);
		pthread_join(th, NULL);
		if ((err = atomic_load(&bz.failed)) != 0)
			return pin_failed(e, b, err);
		if (idle > 0 && samples_push(s, busy / idle) < 0)
			return fs_fail(e, FS_ERR_RUNTIME, "out of memory");
	}
	return 0;
}

/* ---- choosing CPUs --------------------------------------------------------------- */

/* Model CPU of model core k, SMT thread s. */
static uint32_t cpu_of(const struct probe_topology *t, uint32_t k, uint32_t s)
{
	return t->numbering == NUMBERING_CORES_FIRST ? s * t->ncores + k : k * t->threads_per_core + s;
}

struct pair {
	uint32_t a, b; /* model CPUs */
};

static uint32_t add_pair(struct pair *pairs, uint32_t n, uint32_t a, uint32_t b)
{
	for (uint32_t i = 0; i < n; i++)
		if ((pairs[i].a == a && pairs[i].b == b) || (pairs[i].a == b && pairs[i].b == a))
			return n;
	pairs[n].a = a;
	pairs[n].b = b;
	return n + 1;
}

/* Up to PAIRS_PER_CLASS pairs of SMT siblings, spread over the machine. */
static uint32_t smt_pairs(const struct probe_topology *t, struct pair *pairs)
{
	uint32_t n = 0;

	if (t->threads_per_core < 2)
		return 0;
	for (uint32_t i = 0; i < PAIRS_PER_CLASS && i < t->ncores; i++) {
		uint32_t k = (uint32_t)((uint64_t)i * t->ncores / PAIRS_PER_CLASS);

		n = add_pair(pairs, n, cpu_of(t, k, 0), cpu_of(t, k, 1));
	}
	return n;
}

/* Pairs of cores of one node: of one cluster (same_cluster) or of two clusters
 * (or, without clusters, any two cores). */
static uint32_t node_pairs(const struct probe_topology *t, bool same_cluster, struct pair *pairs)
{
	const uint32_t cpn = t->cores_per_node, cpc = t->cores_per_cluster;
	uint32_t n = 0;

	for (uint32_t i = 0; i < PAIRS_PER_CLASS; i++) {
		uint32_t node = (uint32_t)((uint64_t)i * t->nodes / PAIRS_PER_CLASS), a, b;

		if (same_cluster) {
			if (cpc < 2)
				return 0;
			a = i % cpc;
			b = (a + 1 + i) % cpc == a ? (a + 1) % cpc : (a + 1 + i) % cpc;
			/* cluster i spread over the node */
			a += (i * (cpn / cpc) / PAIRS_PER_CLASS) * cpc;
			b += (i * (cpn / cpc) / PAIRS_PER_CLASS) * cpc;
		} else if (t->clusters) {
			if (cpn / cpc < 2)
				return 0;
			a = i % cpc;
			b = a + cpc * (1 + i % (cpn / cpc - 1));
		} else {
			if (cpn < 2)
				return 0;
			a = i % cpn;
			b = cpn - 1 - a == a ? (a + 1) % cpn : cpn - 1 - a;
		}
		n = add_pair(pairs, n, cpu_of(t, node * cpn + a, 0), cpu_of(t, node * cpn + b, 0));
	}
	return n;
}

/* Node pairs (x, y), x != y, at SLIT distance d, spread over the list of them. */
static uint32_t node_pairs_at(const struct probe_topology *t, uint32_t d, uint32_t max, uint32_t *xs, uint32_t *ys)
{
	uint32_t all = 0, n = 0;

	for (uint32_t x = 0; x < t->nodes; x++)
		for (uint32_t y = 0; y < t->nodes; y++)
			all += x != y && t->distance[x * t->nodes + y] == d;
	for (uint32_t i = 0; i < max && i < all; i++) {
		uint32_t want = (uint32_t)((uint64_t)i * all / (max < all ? max : all)), seen = 0;

		for (uint32_t x = 0; x < t->nodes; x++)
			for (uint32_t y = 0; y < t->nodes; y++)
				if (x != y && t->distance[x * t->nodes + y] == d && seen++ == want) {
					xs[n] = x;
					ys[n] = y;
					n++;
				}
	}
	return n;
}

static uint32_t remote_pairs(const struct probe_topology *t, uint32_t d, struct pair *pairs)
{
	uint32_t xs[PAIRS_PER_CLASS], ys[PAIRS_PER_CLASS], m = node_pairs_at(t, d, PAIRS_PER_CLASS, xs, ys), n = 0;

	for (uint32_t i = 0; i < m; i++) {
		uint32_t off = i % t->cores_per_node;

		n = add_pair(pairs, n, cpu_of(t, xs[i] * t->cores_per_node + off, 0),
			     cpu_of(t, ys[i] * t->cores_per_node + off, 0));
	}
	return n;
}

/* ---- the measurement plan ------------------------------------------------------- */

double probe_budget(const struct probe_run *run, double weight)
{
	return run->o->seconds * weight / run->total_weight;
}

void probe_format_value(char *buf, size_t size, double v, bool ratio)
{
	if (ratio)
		snprintf(buf, size, "%.3f", v);
	else
		snprintf(buf, size, v < 10 ? "%.2fns" : "%.1fns", v);
}

void probe_progress(struct probe_run *run, const char *what, const struct probe_value *v)
{
	char est[32], med[32], lo[32], hi[32];
	const bool ratio = v == &run->r->smt_slowdown;

	run->step++;
	if (!run->o->progress)
		return;
	probe_format_value(est, sizeof(est), v->estimate, ratio);
	probe_format_value(med, sizeof(med), v->median, ratio);
	probe_format_value(lo, sizeof(lo), v->lo, ratio);
	probe_format_value(hi, sizeof(hi), v->hi, ratio);
	if (v->low_tail)
		fprintf(run->o->progress,
			"futexsim probe: [%" PRIu32 "/%" PRIu32 "] %-22s low tail %s, median %s, %s %s-%s, %" PRIu32
			" rounds%s (%.1f s)\n",
			run->step, run->steps, what, est, med, v->percentiles ? "p10-p90" : "min-max", lo, hi, v->n,
			v->attempts > 1 ? ", retried" : "", probe_now_s() - run->t0);
	else
		fprintf(run->o->progress,
			"futexsim probe: [%" PRIu32 "/%" PRIu32 "] %-22s median %s, %s %s-%s, %" PRIu32 " trials (%.1f s)\n",
			run->step, run->steps, what, med, v->percentiles ? "p10-p90" : "min-max", lo, hi, v->n,
			probe_now_s() - run->t0);
	probe_warn_unstable(run->o->progress, what, v);
	fflush(run->o->progress);
}

void probe_warn_unstable(FILE *f, const char *what, const struct probe_value *v)
{
	if (f && v->measured && v->unstable)
		fprintf(f, "futexsim probe: warning: %s is unstable: %s; its lowest low tail kept (the machine file "
			   "says so beside the value)\n",
			what, v->warning);
}

/* The estimator, for a value's `how`: said in every comment of the file. */
void probe_low_tail_how(char *buf, size_t size, uint32_t series, const char *of, double trial_s)
{
	if (series > 1)
		snprintf(buf, size, "the low tail: the median over the %s of each one's p10 of rounds of %.1f ms (noise only adds time)",
			 of, trial_s * 1e3);
	else
		snprintf(buf, size, "the low tail: p10 of rounds of %.1f ms (noise only adds time)", trial_s * 1e3);
}

int probe_measure_single(struct probe_run *run, const char *what, probe_trial_fn fn, void *ctx, double weight, double trial_s,
			  struct probe_value *v, const char *how, struct fs_error *e)
{
	struct probe_series one = { 0 };
	char tail[160];
	int err, rc;

	if ((err = probe_pin_self(run->t->cpus[0].linux_id)) != 0)
		return pin_failed(e, run->t->cpus[0].linux_id, err);
	snprintf(one.where, sizeof(one.where), "CPU %" PRIu32, run->t->cpus[0].linux_id);
	rc = probe_measure_series(fn, ctx, probe_budget(run, weight), trial_s, 1e9, run->o->progress, what, &one);
	if (rc < 0)
		return rc == -2 ? fs_fail(e, FS_ERR_RUNTIME, "out of memory")
				: fs_fail(e, FS_ERR_RUNTIME, "the %s benchmark failed", what);
	rc = probe_value_combine(&one, 1, v);
	free((void *)one.rounds);
	if (rc < 0)
		return fs_fail(e, FS_ERR_RUNTIME, "out of memory");
	probe_low_tail_how(tail, sizeof(tail), 1, "", trial_s);
	snprintf(v->how, sizeof(v->how), "%s, on CPU %" PRIu32 "; %s", how, run->t->cpus[0].linux_id, tail);
	probe_progress(run, what, v);
	return 0;
}

static void free_series(struct probe_series *s, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		free((void *)s[i].rounds);
}

static int measure_class(struct probe_run *run, const char *what, const struct pair *pairs, uint32_t n, double weight,
			 const char *kind, struct probe_value *v, struct fs_error *e)
{
	struct probe_series ser[PAIRS_PER_CLASS] = { { 0 } };
	char cpus[96] = "", tail[160];
	size_t len = 0;
	int rc;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t a = run->t->cpus[pairs[i].a].linux_id, b = run->t->cpus[pairs[i].b].linux_id;

		if (measure_pair(a, b, probe_budget(run, weight) / n, run->o->progress, what, &ser[i], e) < 0) {
			free_series(ser, n);
			return -1;
		}
		if (len < sizeof(cpus))
			len += (size_t)snprintf(cpus + len, sizeof(cpus) - len, "%s%" PRIu32 "-%" PRIu32, i ? ", " : "", a, b);
	}
	rc = probe_value_combine(ser, n, v);
	free_series(ser, n);
	if (rc < 0)
		return fs_fail(e, FS_ERR_RUNTIME, "out of memory");
	probe_low_tail_how(tail, sizeof(tail), n, "pairs", TRIAL_PINGPONG);
	snprintf(v->how, sizeof(v->how), "CAS ping-pong, one-way = round trip / 2, %" PRIu32 " %s pair%s (CPUs %s); %s", n,
		 kind, n == 1 ? "" : "s", cpus, tail);
	probe_progress(run, what, v);
	return 0;
}

/* DRAM latency from the CPUs of node `from` to memory of node `to` (dense), with
 * one buffer per (from, to) pair; samples pooled. */
static int measure_dram(struct probe_run *run, const char *what, const uint32_t *from, const uint32_t *to, uint32_t n,
			double weight, struct probe_value *v, struct fs_error *e)
{
	const struct probe_topology *t = run->t;
	struct probe_series ser[DRAM_ITEMS_PER_CLASS] = { { 0 } };
	char placed_note[160] = "", where[96] = "", tail[160];
	uint32_t made = 0;
	size_t wl = 0;
	bool all_placed = true;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t cpu = t->cpus[cpu_of(t, from[i] * t->cores_per_node, 0)].linux_id;
		struct chase c = { 0 };
		double start = probe_now_s(), budget = probe_budget(run, weight) / n;
		bool placed;
		int err;

		if ((err = probe_pin_self(cpu)) != 0) {
			free_series(ser, made);
			return pin_failed(e, cpu, err);
		}
		if (chase_build(&c, run->r->dram_buffer_bytes, t->nodes > 1 ? (int)t->node_ids[to[i]] : -1, &placed,
				placed_note, sizeof(placed_note)) < 0) {
			free_series(ser, made);
			return fs_fail(e, FS_ERR_RUNTIME, "cannot allocate a %" PRIu64 " MiB buffer for the DRAM chase",
				       run->r->dram_buffer_bytes >> 20);
		}
		if (t->nodes > 1 && !placed) {
			/* memory not where it was asked for: a remote figure would be wrong; a
			 * local one stands (first touch by this pinned thread puts it here) */
			all_placed = false;
			if (from[i] != to[i]) {
				chase_free(&c);
				continue;
			}
		}
		if (wl < sizeof(where))
			wl += (size_t)snprintf(where + wl, sizeof(where) - wl, "%sCPU %" PRIu32 " -> node %" PRIu32,
					       wl ? ", " : "", cpu, t->node_ids[to[i]]);
		(void)trial_chase(&c, c.bytes / LINE_BYTES / 4); /* TLB and page tables warm */
		budget -= probe_now_s() - start;
		snprintf(ser[made].where, sizeof(ser[made].where), "CPU %" PRIu32 " -> node %" PRIu32, cpu,
			 t->node_ids[to[i]]);
		err = probe_measure_series(trial_chase, &c, budget > 0 ? budget : 0, TRIAL_CHASE, 1e9, run->o->progress, what,
				     &ser[made]);
		chase_free(&c);
		made++;
		if (err < 0) {
			free_series(ser, made);
			return fs_fail(e, FS_ERR_RUNTIME, "out of memory");
		}
	}
	if (!all_placed && placed_note[0] && !run->r->dram_note[0])
		snprintf(run->r->dram_note, sizeof(run->r->dram_note),
			 "memory could not be placed on a chosen node (%.100s): remote figures from such buffers were "
			 "skipped, local ones rely on first touch",
			 placed_note);
	if (made) {
		int rc = probe_value_combine(ser, made, v);

		free_series(ser, made);
		if (rc < 0)
			return fs_fail(e, FS_ERR_RUNTIME, "out of memory");
		probe_low_tail_how(tail, sizeof(tail), made, "buffers", TRIAL_CHASE);
		snprintf(v->how, sizeof(v->how), "pointer chase over a randomly permuted %" PRIu64 " MiB buffer%s (%.60s); %.150s",
			 run->r->dram_buffer_bytes >> 20, t->nodes > 1 ? " bound to its node (mbind)" : "", where, tail);
		probe_progress(run, what, v);
		return 0;
	} else {
		snprintf(v->why_not, sizeof(v->why_not), "%s", run->r->dram_note);
		run->step++;
		if (run->o->progress)
			fprintf(run->o->progress, "futexsim probe: [%" PRIu32 "/%" PRIu32 "] %-22s not measured: %s\n",
				run->step, run->steps, what, run->r->dram_note);
	}
	return 0;
}

static uint64_t mem_available(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	unsigned long long kb = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return (uint64_t)kb << 10;
}

static void size_dram_buffer(struct probe_results *r, const struct probe_topology *t)
{
	uint64_t want = t->llc_bytes ? t->llc_bytes * DRAM_LLC_FACTOR : 256ull << 20, avail = mem_available();

	if (want < DRAM_MIN_BYTES)
		want = DRAM_MIN_BYTES;
	if (want > DRAM_MAX_BYTES)
		want = DRAM_MAX_BYTES;
	if (avail && want > avail / 4)
		want = avail / 4 > DRAM_MIN_BYTES / 4 ? avail / 4 : DRAM_MIN_BYTES / 4;
	r->dram_buffer_bytes = want & ~((2ull << 20) - 1);
	if (!r->dram_buffer_bytes)
		r->dram_buffer_bytes = 2ull << 20;
}

void probe_results_init(struct probe_results *r, const struct probe_topology *t)
{
	time_t now = time(NULL);
	struct tm tm;

	memset(r, 0, sizeof(*r));
	gmtime_r(&now, &tm);
	strftime(r->date, sizeof(r->date), "%Y-%m-%d", &tm);
	strftime(r->when, sizeof(r->when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	for (uint32_t a = 0; a < t->nodes; a++) {
		for (uint32_t b = 0; b < t->nodes; b++) {
			uint32_t d = t->distance[a * t->nodes + b], k = 0;

			if (a == b)
				continue;
			while (k < r->ndistances && r->distances[k] != d)
				k++;
			if (k == r->ndistances && k < PROBE_MAX_DISTANCES)
				r->distances[r->ndistances++] = d;
		}
	}
	qsort(r->distances, r->ndistances, sizeof(r->distances[0]), cmp_u32_bench);
	r->sched.idle_state = r->sched.poll_state = -1;
	r->sched.perf_pipe_us = NAN;
	r->sched.slept_idle = r->sched.slept_poll = r->sched.slept_spin = r->sched.slept_same = NAN;
}

/* ---- finishing: fallbacks for what could not be measured ------------------------- */

static void set_value(struct probe_value *v, double x, bool ratio)
{
	if (!ratio && x < 0.01)
		x = 0.01; /* the figure as written must stay a positive cost */
	probe_format_value(v->value, sizeof(v->value), x, ratio);
	v->label = 'M';
}

static void fallback(struct probe_value *v, char label, const char *value, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void fallback(struct probe_value *v, char label, const char *value, const char *fmt, ...)
{
	char why[sizeof(v->why_not)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	v->measured = false;
	v->label = label;
	snprintf(v->value, sizeof(v->value), "%s", value);
	snprintf(v->why_not, sizeof(v->why_not), "%s", why);
}

/* The value written for a cost that may be a measured estimate or a fallback text. */
static double value_ns(const struct probe_value *v, double dflt)
{
	return v->measured ? v->estimate : dflt;
}

void probe_results_finish(struct probe_results *r, const struct probe_topology *t)
{
	struct probe_value *ns_values[] = { &r->syscall, &r->line_hit, &r->atomic_hit, &r->transfer_smt,
					    &r->transfer_cluster, &r->transfer_node, &r->memory_local };
	char buf[32], why[200];

	for (size_t i = 0; i < sizeof(ns_values) / sizeof(ns_values[0]); i++)
		if (ns_values[i]->measured)
			set_value(ns_values[i], ns_values[i]->estimate, false);
	for (uint32_t k = 0; k < r->ndistances; k++) {
		if (r->transfer_remote[k].measured)
			set_value(&r->transfer_remote[k], r->transfer_remote[k].estimate, false);
		if (r->memory_remote[k].measured)
			set_value(&r->memory_remote[k], r->memory_remote[k].estimate, false);
	}
	if (!r->syscall.measured)
		fallback(&r->syscall, 'A', "200ns", "not measured: 200ns, a syscall with the mitigations of a 2010s x86 part");
	if (!r->line_hit.measured)
		fallback(&r->line_hit, 'A', "4 cycles", "not measured: an L1 hit takes a few cycles");
	if (!r->atomic_hit.measured)
		fallback(&r->atomic_hit, 'A', "20 cycles", "not measured: a locked RMW on an own line, about 20 cycles");
	if (!r->transfer_node.measured)
		fallback(&r->transfer_node, 'A', "40ns",
			 "no two cores on one node (%s): never used in a simulation of this machine; 40ns, a typical "
			 "same-socket hand-off",
			 t->ncpus == 1 ? "one CPU" : "one core per node");
	if (t->clusters && !r->transfer_cluster.measured)
		fallback(&r->transfer_cluster, 'A', r->transfer_node.value, "not measured: transfer_node's value");
	if (!r->transfer_smt.measured)
		fallback(&r->transfer_smt, 'A', r->transfer_node.value,
			 t->threads_per_core == 1 ? "no SMT (threads_per_core 1): never used; transfer_node's value"
						  : "not measured: transfer_node's value");
	if (!r->memory_local.measured)
		fallback(&r->memory_local, 'A', "100ns", "not measured: 100ns, a typical local DRAM latency");
	for (uint32_t k = 0; k < r->ndistances; k++) {
		const double d = r->distances[k];

		if (!r->transfer_remote[k].measured) {
			probe_format_value(buf, sizeof(buf), value_ns(&r->transfer_node, 40) * d / 10, false);
			fallback(&r->transfer_remote[k], 'A', buf, "not measured: transfer_node x distance / 10");
		}
		if (!r->memory_remote[k].measured) {
			snprintf(why, sizeof(why), "%.150s", r->memory_remote[k].why_not[0] ? r->memory_remote[k].why_not
											 : "not measured");
			probe_format_value(buf, sizeof(buf), value_ns(&r->memory_local, 100) * d / 10, false);
			fallback(&r->memory_remote[k], 'A', buf, "%s: memory_local x distance / 10 (the SLIT ratio)", why);
		}
	}
	if (r->smt_slowdown.measured) {
		double x = r->smt_slowdown.estimate;

		set_value(&r->smt_slowdown, x < 1.0 ? 1.0 : x > 10.0 ? 10.0 : x, true);
	} else if (t->threads_per_core == 1) {
		fallback(&r->smt_slowdown, 'D', "1.0", "no SMT (threads_per_core 1): a sibling is never busy");
	} else {
		fallback(&r->smt_slowdown, 'A', "1.3", "not measured: 1.3, the shipped presets' assumption");
	}
	{
		char stamp[400];

		snprintf(stamp, sizeof(stamp), "%s, %s, kernel %s", r->date, t->model, t->release);
		probe_sched_derive(&t->idle, &r->sched, stamp);
	}
}

/* ---- public ----------------------------------------------------------------------- */

int probe_measure(const struct probe_topology *t, const struct probe_options *o, struct probe_results *r,
		  struct fs_error *e)
{
	struct affinity saved = { 0 };
	struct probe_run run = { .t = t, .o = o, .r = r };
	struct pair smt[PAIRS_PER_CLASS], cluster[PAIRS_PER_CLASS], node[PAIRS_PER_CLASS];
	struct pair remote[PROBE_MAX_DISTANCES][PAIRS_PER_CLASS];
	uint32_t nsmt, ncluster, nnode, nremote[PROBE_MAX_DISTANCES], classes = 0;
	uint32_t local_from[2], nlocal = 0, dx[PROBE_MAX_DISTANCES][DRAM_ITEMS_PER_CLASS],
		 dy[PROBE_MAX_DISTANCES][DRAM_ITEMS_PER_CLASS], ndram[PROBE_MAX_DISTANCES];
	struct own_line *line = NULL;
	double w_transfer, w_dram;
	uint32_t sched_b;
	bool cross;
	int err, rc = -1;

	probe_results_init(r, t);
	r->budget = o->seconds;
	size_dram_buffer(r, t);
	if ((err = affinity_save(&saved)) != 0)
		return fs_fail(e, FS_ERR_RUNTIME, "cannot read this process's CPU affinity: %s", strerror(err));
	if (check_allowed(t, &saved, e) < 0)
		goto out;

	/* the plan: which pairs and buffers, and each one's share of the budget */
	nsmt = smt_pairs(t, smt);
	ncluster = t->clusters ? node_pairs(t, true, cluster) : 0;
	nnode = node_pairs(t, false, node);
	classes = (nsmt > 0) + (ncluster > 0) + (nnode > 0);
	for (uint32_t k = 0; k < r->ndistances; k++) {
		nremote[k] = remote_pairs(t, r->distances[k], remote[k]);
		classes += nremote[k] > 0;
		ndram[k] = node_pairs_at(t, r->distances[k], DRAM_ITEMS_PER_CLASS, dx[k], dy[k]);
	}
	local_from[nlocal++] = 0;
	if (t->nodes > 1)
		local_from[nlocal++] = t->nodes - 1;
	w_transfer = classes ? 0.42 / classes : 0;
	w_dram = 0.32 / (1 + r->ndistances);
	/* the sleeping and waking pair: the first CPU and another core's, of its node
	 * if it has one */
	cross = t->ncpus > 1;
	sched_b = nnode ? node[0].b : nsmt ? smt[0].b : r->ndistances && nremote[0] ? remote[0][0].b : 0;
	run.total_weight = 0.08 + 0.04 + 0.04 + w_transfer * classes + 0.32 + (t->threads_per_core > 1 ? 0.10 : 0) +
			   probe_sched_weight(cross);
	run.steps = 3 + classes + 1 + r->ndistances + (t->threads_per_core > 1) + probe_sched_steps(cross);
	if (posix_memalign((void **)&line, 128, sizeof(*line)) != 0) {
		fs_fail(e, FS_ERR_RUNTIME, "out of memory");
		goto out;
	}
	memset(line, 0, sizeof(*line));
	run.t0 = probe_now_s();
	if (o->progress) {
		fprintf(o->progress,
			"futexsim probe: measuring for about %g s on %" PRIu32 " CPU%s (threads pinned with "
			"sched_setaffinity); other load on the machine shows in the spreads\n",
			o->seconds, t->ncpus, t->ncpus == 1 ? "" : "s");
		fflush(o->progress);
	}

	if (probe_measure_single(&run, "syscall", trial_syscall, NULL, 0.08, TRIAL_SYSCALL, &r->syscall,
			   "syscall(SYS_getppid) in a loop", e) < 0 ||
	    probe_measure_single(&run, "line_hit", trial_line_hit, line, 0.04, TRIAL_HIT, &r->line_hit,
			   "dependent loads of a pointer to itself (L1 hits)", e) < 0 ||
	    probe_measure_single(&run, "atomic_hit", trial_atomic_hit, line, 0.04, TRIAL_HIT, &r->atomic_hit,
			   "back-to-back locked adds on a line held Modified", e) < 0)
		goto out;
	if ((nsmt && measure_class(&run, "transfer_smt", smt, nsmt, w_transfer, "SMT-sibling", &r->transfer_smt, e) < 0) ||
	    (ncluster && measure_class(&run, "transfer_cluster", cluster, ncluster, w_transfer, "same-cache",
				       &r->transfer_cluster, e) < 0) ||
	    (nnode && measure_class(&run, "transfer_node", node, nnode, w_transfer,
				    t->clusters ? "same-node other-cache" : "same-node", &r->transfer_node, e) < 0))
		goto out;
	for (uint32_t k = 0; k < r->ndistances; k++) {
		char what[48], kind[48];

		snprintf(what, sizeof(what), "transfer_remote[%" PRIu32 "]", r->distances[k]);
		snprintf(kind, sizeof(kind), "distance-%" PRIu32, r->distances[k]);
		if (nremote[k] &&
		    measure_class(&run, what, remote[k], nremote[k], w_transfer, kind, &r->transfer_remote[k], e) < 0)
			goto out;
	}
	if (measure_dram(&run, "memory_local", local_from, local_from, nlocal, w_dram, &r->memory_local, e) < 0)
		goto out;
	for (uint32_t k = 0; k < r->ndistances; k++) {
		char what[48];

		snprintf(what, sizeof(what), "memory_remote[%" PRIu32 "]", r->distances[k]);
		if (measure_dram(&run, what, dx[k], dy[k], ndram[k], w_dram, &r->memory_remote[k], e) < 0)
			goto out;
	}
	if (t->threads_per_core > 1) {
		struct samples s = { 0 };
		uint32_t a = t->cpus[cpu_of(t, 0, 0)].linux_id, b = t->cpus[cpu_of(t, 0, 1)].linux_id;

		if (measure_smt(a, b, probe_budget(&run, 0.10), &s, e) < 0) {
			free(s.v);
			goto out;
		}
		summarise_median(&s, &r->smt_slowdown);
		free(s.v);
		snprintf(r->smt_slowdown.how, sizeof(r->smt_slowdown.how),
			 "an integer loop on CPU %" PRIu32 ", time with sibling CPU %" PRIu32
			 " running the same loop / time with it idle",
			 a, b);
		probe_progress(&run, "smt_slowdown", &r->smt_slowdown);
	}
	if (probe_measure_sched(&run, t->cpus[0].linux_id, t->cpus[sched_b].linux_id, cross, e) < 0)
		goto out;
	r->seconds = probe_now_s() - run.t0;
	if (r->dram_note[0] && o->progress)
		fprintf(o->progress, "futexsim probe: %s\n", r->dram_note);
	rc = 0;
out:
	affinity_restore(&saved);
	if (rc == 0) {
		probe_sched_perf_pipe(&r->sched);
		probe_results_finish(r, t);
	}
	free(line);
	return rc;
}

static void print_value(FILE *f, const char *what, const struct probe_value *v, bool ratio)
{
	char med[32], lo[32], hi[32];

	if (!v->measured) {
		fprintf(f, "  %-22s %-10s [%c] %s\n", what, v->value, v->label ? v->label : '?', v->why_not);
		return;
	}
	probe_format_value(med, sizeof(med), v->median, ratio);
	probe_format_value(lo, sizeof(lo), v->lo, ratio);
	probe_format_value(hi, sizeof(hi), v->hi, ratio);
	fprintf(f, "  %-22s %-10s [M] %smedian %s, %s %s-%s over %" PRIu32 " %s%s\n", what, v->value,
		v->low_tail ? "low tail (p10), " : "", med, v->percentiles ? "p10-p90" : "min-max", lo, hi, v->n,
		v->low_tail ? "rounds" : "trials", v->unstable ? "; UNSTABLE (see the warning)" : "");
}

void probe_results_print(const struct probe_topology *t, const struct probe_results *r, FILE *f)
{
	fprintf(f, "measured in %.1f s (value written, label, estimator, median and spread):\n", r->seconds);
	print_value(f, "syscall", &r->syscall, false);
	print_value(f, "line_hit", &r->line_hit, false);
	print_value(f, "atomic_hit", &r->atomic_hit, false);
	print_value(f, "transfer_smt", &r->transfer_smt, false);
	if (t->clusters)
		print_value(f, "transfer_cluster", &r->transfer_cluster, false);
	print_value(f, "transfer_node", &r->transfer_node, false);
	for (uint32_t k = 0; k < r->ndistances; k++) {
		char what[48];

		snprintf(what, sizeof(what), "transfer_remote[%" PRIu32 "]", r->distances[k]);
		print_value(f, what, &r->transfer_remote[k], false);
	}
	print_value(f, "memory_local", &r->memory_local, false);
	for (uint32_t k = 0; k < r->ndistances; k++) {
		char what[48];

		snprintf(what, sizeof(what), "memory_remote[%" PRIu32 "]", r->distances[k]);
		print_value(f, what, &r->memory_remote[k], false);
	}
	print_value(f, "smt_slowdown", &r->smt_slowdown, true);
	probe_sched_print(t, r, f);
}
