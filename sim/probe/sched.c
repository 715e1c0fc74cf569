/* SPDX-License-Identifier: MIT */
/* futexsim probe: sleeping and waking on the machine it runs on, for the machine
 * file's sched: block (docs/machine.md). Futex ping-pongs pinned with
 * sched_setaffinity: two threads on one CPU (the context switch), and two on two
 * CPUs with the wakee spinning (no sleep: the pure hand-off), sleeping at once (the
 * target CPU idle in the state its governor picks) and sleeping while
 * /dev/cpu_dma_latency holds the CPUs to a polling state; the non-blocking futex
 * calls to subtract; a pipe ping-pong as perf bench sched pipe's cross-check. Each
 * is measured as bench.c measures a latency (the low tail of short rounds, retried
 * while unstable); probe_sched_derive turns them into ipi, wake_to_run and
 * context_switch. docs/probe.md, "Sleeping and waking". */
#define _GNU_SOURCE /* syscall, O_CLOEXEC, pipe2 */
#include "sim/probe/probe.h"
#include "sim/probe/measure.h"

#include <errno.h>
#include <fcntl.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <inttypes.h>
#include <linux/futex.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TRIAL_CALL 0.0005   /* a round of non-blocking futex calls */
#define TRIAL_WAKE 0.0002   /* a round of hand-offs through sleeping threads: a few to tens */
#define SPIN_S 50e-6        /* how long a spinning waiter spins before it sleeps */
#define WAIT_SLICE_NS 100000000L /* a FUTEX_WAIT's timeout, to look at the stop flags */
#define STUCK_S 5.0         /* a ping-pong with no progress for this long fails */
#define LATENCY_QOS "/dev/cpu_dma_latency"
#define PERF_PIPE_LOOPS 20000

/* the weights of the values in the budget (bench.c gives the others') */
#define W_CALL 0.02
#define W_HANDOFF 0.04
#define W_SPIN 0.03
#define W_IDLE 0.05
#define W_POLL 0.05
#define W_PIPE 0.02

double probe_sched_weight(bool cross)
{
	return 2 * W_CALL + W_HANDOFF + W_PIPE + (cross ? W_SPIN + 2 * W_IDLE + W_POLL + W_PIPE : 0);
}

uint32_t probe_sched_steps(bool cross)
{
	return cross ? 10 : 5;
}

/* ---- futex calls --------------------------------------------------------------- */

static long futex_wake1(_Atomic uint32_t *w)
{
	return syscall(SYS_futex, (uint32_t *)w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static long futex_wait_for(_Atomic uint32_t *w, uint32_t val, const struct timespec *timeout)
{
	return syscall(SYS_futex, (uint32_t *)w, FUTEX_WAIT_PRIVATE, val, timeout, NULL, 0);
}

/* A word of its own line. */
struct own_word {
	_Alignas(128) _Atomic uint32_t w;
	char pad[128 - sizeof(uint32_t)];
};

/* FUTEX_WAKE of a word nobody waits on: the syscall, the hash, the bucket's lock. */
static double trial_futex_wake(void *ctx, uint64_t count)
{
	struct own_word *o = ctx;
	double t0 = probe_now_s();

	for (uint64_t i = 0; i < count; i++)
		futex_wake1(&o->w);
	return probe_now_s() - t0;
}

/* FUTEX_WAIT on a word that differs from the value given: EAGAIN at once (perf
 * bench futex hash's op). */
static double trial_futex_wait(void *ctx, uint64_t count)
{
	struct own_word *o = ctx;
	double t0 = probe_now_s();

	for (uint64_t i = 0; i < count; i++)
		futex_wait_for(&o->w, 1, NULL);
	return probe_now_s() - t0;
}

/* ---- a partner thread ------------------------------------------------------------ */

struct partner {
	pthread_t th;
	uint32_t cpu;
	_Atomic int started, failed, gone; /* failed: its pin's errno */
};

/* Starts `fn` on a thread and waits until it has pinned itself (p->started) or
 * failed; -1 with `e` set. */
static int partner_start(struct partner *p, void *(*fn)(void *), void *arg, struct fs_error *e)
{
	double t0 = probe_now_s();
	int err = pthread_create(&p->th, NULL, fn, arg);

	if (err)
		return fs_fail(e, FS_ERR_RUNTIME, "cannot start a benchmark thread: %s", strerror(err));
	while (!atomic_load(&p->started) && !atomic_load(&p->failed) && probe_now_s() - t0 < STUCK_S) {
		struct timespec ms = { 0, 1000000 };

		nanosleep(&ms, NULL);
	}
	if (atomic_load(&p->started))
		return 0;
	pthread_join(p->th, NULL);
	if (atomic_load(&p->failed))
		return probe_pin_failed(e, p->cpu, atomic_load(&p->failed),
					"futexsim probe runs its benchmarks on chosen CPUs; nothing written");
	return fs_fail(e, FS_ERR_RUNTIME, "a benchmark thread did not start on CPU %" PRIu32 " within %.0f s", p->cpu,
		       STUCK_S);
}

/* Pins the partner; false (p->failed set) when it cannot. */
static bool partner_pin(struct partner *p)
{
	int err = probe_pin_self(p->cpu);

	if (err) {
		atomic_store(&p->failed, err);
		atomic_store(&p->gone, 1);
		return false;
	}
	atomic_store(&p->started, 1);
	return true;
}

/* ---- the futex ping-pong --------------------------------------------------------- */

struct fpp {
	_Alignas(128) _Atomic uint32_t to_main;    /* the main thread waits on it */
	char pad0[128 - sizeof(uint32_t)];
	_Alignas(128) _Atomic uint32_t to_partner; /* the partner waits on it */
	char pad1[128 - sizeof(uint32_t)];
	_Alignas(128) _Atomic int stop;
	_Atomic int stuck;
	struct partner pt;
	bool spin;                 /* each waiter spins up to SPIN_S before it sleeps */
	bool time_call;            /* a trial's time is its FUTEX_WAKE calls' alone (the waker's side) */
	uint32_t seq;              /* the main thread's hand-offs */
	uint64_t waits, slept;     /* the main thread's waits, and those that slept */
	uint64_t partner_slept;    /* the partner's waits that slept (written as it ends) */
};

/* Waits until *w holds `want`: spinning first for up to SPIN_S when `spin`, then
 * in FUTEX_WAIT (with a timeout, to look at `stop`). 0 got it; 1 `stop` was set;
 * -1 STUCK_S passed without it. */
static int await_word(_Atomic uint32_t *w, uint32_t want, bool spin, _Atomic int *stop, uint64_t *waits,
		      uint64_t *slept)
{
	const struct timespec slice = { 0, WAIT_SLICE_NS };
	double since = 0;
	bool counted = false;

	(*waits)++;
	if (spin) {
		double t0 = probe_now_s();

		for (uint32_t k = 0;; k++) {
			if (atomic_load_explicit(w, memory_order_acquire) == want)
				return 0;
			probe_relax();
			if ((k & 63) == 63 && probe_now_s() - t0 > SPIN_S)
				break;
		}
	}
	for (;;) {
		uint32_t cur = atomic_load_explicit(w, memory_order_acquire);

		if (cur == want)
			return 0;
		if (atomic_load_explicit(stop, memory_order_relaxed))
			return 1;
		if (futex_wait_for(w, cur, &slice) == 0) {
			*slept += !counted;
			counted = true;
		} else if (errno == ETIMEDOUT) {
			double now = probe_now_s();

			if (!since)
				since = now;
			else if (now - since > STUCK_S)
				return -1;
		}
	}
}

/* The partner: answers hand-off n with n, until stopped. */
static void *fpp_partner(void *arg)
{
	struct fpp *p = arg;
	uint64_t waits = 0, slept = 0;

	if (!partner_pin(&p->pt))
		return NULL;
	for (uint32_t want = 1;; want++) {
		int rc = await_word(&p->to_partner, want, p->spin, &p->stop, &waits, &slept);

		if (rc) {
			if (rc < 0)
				atomic_store(&p->stuck, 1);
			break;
		}
		atomic_store_explicit(&p->to_main, want, memory_order_release);
		futex_wake1(&p->to_main);
	}
	p->partner_slept = slept;
	atomic_store(&p->pt.gone, 1);
	futex_wake1(&p->to_main);
	return NULL;
}

/* `count` round trips: hand-off n to the partner, wait for its answer. */
static double trial_fpp(void *ctx, uint64_t count)
{
	struct fpp *p = ctx;
	double t0 = probe_now_s(), calls = 0;

	for (uint64_t i = 0; i < count; i++) {
		uint32_t seq = ++p->seq;
		double c0;

		atomic_store_explicit(&p->to_partner, seq, memory_order_release);
		c0 = p->time_call ? probe_now_s() : 0;
		futex_wake1(&p->to_partner);
		if (p->time_call)
			calls += probe_now_s() - c0;
		if (await_word(&p->to_main, seq, p->spin, &p->pt.gone, &p->waits, &p->slept) != 0) {
			atomic_store(&p->stuck, 1);
			return -1;
		}
	}
	return p->time_call ? calls : probe_now_s() - t0;
}

/* ---- the pipe ping-pong ---------------------------------------------------------- */

struct ppp {
	int down[2], up[2];
	struct partner pt;
};

static void *ppp_partner(void *arg)
{
	struct ppp *p = arg;
	char c;

	if (!partner_pin(&p->pt))
		return NULL;
	while (read(p->down[0], &c, 1) == 1 && c != 'q')
		if (write(p->up[1], &c, 1) != 1)
			break;
	atomic_store(&p->pt.gone, 1);
	return NULL;
}

static double trial_ppp(void *ctx, uint64_t count)
{
	struct ppp *p = ctx;
	double t0 = probe_now_s();
	char c = 'x';

	for (uint64_t i = 0; i < count; i++)
		if (write(p->down[1], &c, 1) != 1 || read(p->up[0], &c, 1) != 1)
			return -1;
	return probe_now_s() - t0;
}

/* ---- measuring ------------------------------------------------------------------- */

/* One value measured between this thread on `a` and a partner on `b` (a == b: one
 * CPU) by `fn`, `scale` ns per unit; its `how`, progress line and series. */
static int measure_between(struct probe_run *run, const char *what, probe_trial_fn fn, void *ctx, struct partner *pt,
			   void *(*partner_fn)(void *), uint32_t a, uint32_t b, double weight, double scale,
			   struct probe_value *v, const char *how, struct fs_error *e)
{
	struct probe_series ser = { 0 };
	char tail[160];
	int err, rc;

	if ((err = probe_pin_self(a)) != 0)
		return probe_pin_failed(e, a, err, "futexsim probe runs its benchmarks on chosen CPUs; nothing written");
	pt->cpu = b;
	if (partner_start(pt, partner_fn, ctx, e) < 0)
		return -1;
	if (a == b)
		snprintf(ser.where, sizeof(ser.where), "CPU %" PRIu32, a);
	else
		snprintf(ser.where, sizeof(ser.where), "CPUs %" PRIu32 "-%" PRIu32, a, b);
	rc = probe_measure_series(fn, ctx, probe_budget(run, weight), TRIAL_WAKE, scale, run->o->progress, what, &ser);
	if (rc == 0)
		rc = probe_value_combine(&ser, 1, v) < 0 ? -2 : 0;
	free((void *)ser.rounds);
	if (rc < 0)
		return rc;
	probe_low_tail_how(tail, sizeof(tail), 1, "", TRIAL_WAKE);
	snprintf(v->how, sizeof(v->how), "%s, %s; %s", how, ser.where, tail);
	probe_progress(run, what, v);
	return 0;
}

/* A futex ping-pong between CPUs a and b: one way (round trip / 2), or with
 * `time_call` the waker's FUTEX_WAKE call alone. */
static int fpp_measure(struct probe_run *run, const char *what, uint32_t a, uint32_t b, bool spin, bool time_call,
		       double weight, struct probe_value *v, double *slept, uint64_t *sleeps, const char *how,
		       struct fs_error *e)
{
	struct fpp *p;
	int rc;

	if (posix_memalign((void **)&p, 128, sizeof(*p)) != 0)
		return fs_fail(e, FS_ERR_RUNTIME, "out of memory");
	memset(p, 0, sizeof(*p));
	p->spin = spin;
	p->time_call = time_call;
	rc = measure_between(run, what, trial_fpp, p, &p->pt, fpp_partner, a, b, weight, time_call ? 1e9 : 1e9 / 2, v,
			     how, e);
	if (atomic_load(&p->pt.started)) {
		atomic_store(&p->stop, 1);
		atomic_store_explicit(&p->to_partner, p->seq + 1, memory_order_release);
		futex_wake1(&p->to_partner);
		pthread_join(p->pt.th, NULL);
	}
	*slept = p->waits ? (double)p->slept / (double)p->waits : NAN;
	*sleeps = p->slept + p->partner_slept; /* the partner's, once joined */
	if (rc == 0 && atomic_load(&p->stuck))
		rc = fs_fail(e, FS_ERR_RUNTIME,
			     "the futex ping-pong between CPUs %" PRIu32 " and %" PRIu32 " made no progress for %.0f s (a "
			     "thread was not scheduled); nothing written",
			     a, b, STUCK_S);
	else if (rc == -1 && !e->msg[0])
		rc = fs_fail(e, FS_ERR_RUNTIME, "the %s benchmark failed (a thread made no progress for %.0f s)", what,
			     STUCK_S);
	else if (rc == -2)
		rc = fs_fail(e, FS_ERR_RUNTIME, "out of memory");
	free(p);
	return rc;
}

static int ppp_measure(struct probe_run *run, const char *what, uint32_t a, uint32_t b, struct probe_value *v,
		       struct fs_error *e)
{
	struct ppp p = { { -1, -1 }, { -1, -1 }, { 0 } };
	int rc;

	if (pipe2(p.down, O_CLOEXEC) < 0 || pipe2(p.up, O_CLOEXEC) < 0) {
		rc = fs_fail(e, FS_ERR_RUNTIME, "pipe: %s", strerror(errno));
	} else {
		rc = measure_between(run, what, trial_ppp, &p, &p.pt, ppp_partner, a, b, W_PIPE, 1e9, v,
				     "a pipe ping-pong's round trip (a byte written, read, written back, read: perf bench "
				     "sched pipe's op) between two threads",
				     e);
		if (atomic_load(&p.pt.started)) {
			char q = 'q';

			if (write(p.down[1], &q, 1) != 1)
				close(p.down[1]), p.down[1] = -1; /* the partner's read ends */
			pthread_join(p.pt.th, NULL);
		}
		if (rc == -1 && !e->msg[0])
			rc = fs_fail(e, FS_ERR_RUNTIME, "the %s benchmark failed (a pipe read or write)", what);
		else if (rc == -2)
			rc = fs_fail(e, FS_ERR_RUNTIME, "out of memory");
	}
	for (int i = 0; i < 2; i++) {
		if (p.down[i] >= 0)
			close(p.down[i]);
		if (p.up[i] >= 0)
			close(p.up[i]);
	}
	return rc;
}

/* The usage counters of both CPUs (ncpus x t->idle.n) into u; false when unknown. */
static bool usage_snapshot(const struct probe_topology *t, uint32_t a, uint32_t b, uint64_t *u)
{
	return t->idle.present && probe_idle_usage(t, a, u) == 0 && probe_idle_usage(t, b, u + t->idle.n) == 0;
}

static int dominant_state(const struct probe_topology *t, bool known, const uint64_t *before, const uint64_t *after)
{
	return known ? probe_idle_dominant(before, after, 2, t->idle.n) : -1;
}

/* The idle entries of both CPUs between two snapshots, all states. */
static uint64_t idle_entries(const struct probe_topology *t, const uint64_t *before, const uint64_t *after)
{
	uint64_t n = 0;

	for (uint32_t k = 0; k < 2 * t->idle.n; k++)
		n += after[k] > before[k] ? after[k] - before[k] : 0;
	return n;
}

/* Holds /dev/cpu_dma_latency at 0 (a PM QoS request of no exit latency: every
 * governor then picks the polling state) while the returned descriptor is open;
 * -1 with `why` set when it cannot. */
static int latency_qos_zero(char *why, size_t size)
{
	int32_t zero = 0;
	int fd = open(LATENCY_QOS, O_WRONLY | O_CLOEXEC);

	if (fd < 0) {
		snprintf(why, size, "%s: %s (writing it takes root)", LATENCY_QOS, strerror(errno));
		return -1;
	}
	if (write(fd, &zero, sizeof(zero)) != (ssize_t)sizeof(zero)) {
		snprintf(why, size, "cannot write 0 to %s: %s", LATENCY_QOS, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* ---- a thread's exit, as perf's wake suites meet it ------------------------------ */

struct exiter {
	_Alignas(128) _Atomic uint32_t word;
	_Atomic int asleep;        /* it is about to wait (then sleeps: the main thread waits 0.1 s) */
	_Atomic int woke;          /* its FUTEX_WAIT returned */
	double woke_s;             /* when (read after the join) */
	uint32_t cpu;
	_Atomic int failed;
};

/* perf's worker (futex-wake.c's workerfn): sleeps in FUTEX_WAIT, then returns: pthread_exit. */
static void *exiter_fn(void *arg)
{
	struct exiter *x = arg;
	int err = probe_pin_self(x->cpu);

	if (err) {
		atomic_store(&x->failed, err);
		return NULL;
	}
	atomic_store(&x->asleep, 1);
	while (atomic_load_explicit(&x->word, memory_order_acquire) == 0)
		futex_wait_for(&x->word, 0, NULL);
	x->woke_s = probe_now_s();
	atomic_store(&x->woke, 1);
	return NULL;
}

/* PROBE_EXIT_SAMPLES times: a thread pinned to CPU a sleeps in FUTEX_WAIT while the
 * main thread, on CPU a too, sleeps 0.1 s (perf's usleep(100000) before it times),
 * then wakes it and joins it. Timed: from the woken thread running again (its
 * FUTEX_WAIT returned) to the main thread back from pthread_join: the thread's return
 * and exit, with what 0.1 s of sleep leaves cold, and one switch back to the main
 * thread, whether the wakee preempted it (then the exit ran inside its FUTEX_WAKE
 * call, as in perf's timed loop) or it slept in the join. The median of the samples,
 * and the share in which the wakee preempted the waker. */
static int measure_exit(struct probe_run *run, uint32_t a, struct probe_value *v, double *preempted,
			struct fs_error *e)
{
	double d[PROBE_EXIT_SAMPLES];
	uint32_t ran_first = 0;
	int err;

	if ((err = probe_pin_self(a)) != 0)
		return probe_pin_failed(e, a, err, "futexsim probe runs its benchmarks on chosen CPUs; nothing written");
	for (uint32_t k = 0; k < PROBE_EXIT_SAMPLES; k++) {
		struct exiter *x;
		pthread_t th;
		struct timespec nap = { 0, 100000000L };
		double joined;

		if (posix_memalign((void **)&x, 128, sizeof(*x)) != 0)
			return fs_fail(e, FS_ERR_RUNTIME, "out of memory");
		memset(x, 0, sizeof(*x));
		x->cpu = a;
		if ((err = pthread_create(&th, NULL, exiter_fn, x)) != 0) {
			free(x);
			return fs_fail(e, FS_ERR_RUNTIME, "cannot start a benchmark thread: %s", strerror(err));
		}
		while (!atomic_load(&x->asleep) && !atomic_load(&x->failed))
			sched_yield();
		nanosleep(&nap, NULL);
		atomic_store_explicit(&x->word, 1, memory_order_release);
		futex_wake1(&x->word);
		ran_first += atomic_load(&x->woke); /* it ran before the waker's call returned */
		pthread_join(th, NULL);
		joined = probe_now_s();
		err = atomic_load(&x->failed);
		d[k] = (joined - x->woke_s) * 1e9;
		free(x);
		if (err)
			return probe_pin_failed(e, a, err, "futexsim probe runs its benchmarks on chosen CPUs; nothing written");
	}
	gsl_sort(d, 1, PROBE_EXIT_SAMPLES);
	memset(v, 0, sizeof(*v));
	v->measured = true;
	v->n = PROBE_EXIT_SAMPLES;
	v->median = v->estimate = gsl_stats_median_from_sorted_data(d, 1, PROBE_EXIT_SAMPLES);
	v->lo = d[0];
	v->hi = d[PROBE_EXIT_SAMPLES - 1];
	v->attempts = 1;
	*preempted = (double)ran_first / PROBE_EXIT_SAMPLES;
	snprintf(v->how, sizeof(v->how),
		 "a thread asleep in FUTEX_WAIT on CPU %" PRIu32 " woken after 0.1 s by the main thread on the same CPU "
		 "(perf bench futex wake's protocol), timed from its FUTEX_WAIT's return to the main thread back from "
		 "pthread_join; the median of %d samples (min-max), the wakee preempted the waker in %.0f%%",
		 a, PROBE_EXIT_SAMPLES, 100 * *preempted);
	probe_progress(run, "exit (after 0.1 s)", v);
	return 0;
}

int probe_measure_sched(struct probe_run *run, uint32_t a, uint32_t b, bool cross, struct fs_error *e)
{
	const struct probe_topology *t = run->t;
	struct probe_sched *s = &run->r->sched;
	struct own_word *o;
	uint64_t *before = calloc(2 * PROBE_MAX_IDLE, sizeof(*before)), *after = calloc(2 * PROBE_MAX_IDLE, sizeof(*after));
	uint64_t sleeps;
	double slept;
	bool known;
	int rc = -1, fd;

	s->cpu_a = a;
	s->cpu_b = b;
	s->cross = cross;
	if (!before || !after || posix_memalign((void **)&o, 128, sizeof(*o)) != 0) {
		free(before);
		free(after);
		return fs_fail(e, FS_ERR_RUNTIME, "out of memory");
	}
	memset(o, 0, sizeof(*o));
	if (measure_exit(run, a, &s->exit_cold, &s->exit_preempted, e) < 0 ||
	    probe_measure_single(run, "futex_wake", trial_futex_wake, o, W_CALL, TRIAL_CALL, &s->futex_wake,
				 "FUTEX_WAKE of a word nobody waits on, in a loop", e) < 0 ||
	    probe_measure_single(run, "futex_wait", trial_futex_wait, o, W_CALL, TRIAL_CALL, &s->futex_wait,
				 "FUTEX_WAIT with a value the word does not hold (EAGAIN), in a loop", e) < 0 ||
	    fpp_measure(run, "handoff (one CPU)", a, a, false, false, W_HANDOFF, &s->handoff, &s->slept_same, &sleeps,
			"a futex ping-pong of two threads on one CPU (each FUTEX_WAKEs the other, then sleeps in "
			"FUTEX_WAIT), one way = round trip / 2",
			e) < 0 ||
	    ppp_measure(run, "pipe (one CPU)", a, a, &s->pipe_same, e) < 0)
		goto out;
	if (cross) {
		if (fpp_measure(run, "wake_spin", a, b, true, false, W_SPIN, &s->wake_spin, &s->slept_spin, &sleeps,
				"a futex ping-pong across two CPUs, each waiter spinning up to 50 us before it would "
				"sleep (no sleep, no wake-up: the hand-off and a FUTEX_WAKE finding no waiter), one way = "
				"round trip / 2",
				e) < 0)
			goto out;
		known = usage_snapshot(t, a, b, before);
		if (fpp_measure(run, "wake_idle", a, b, false, false, W_IDLE, &s->wake_idle, &s->slept_idle, &s->sleeps_idle,
				"a futex ping-pong across two CPUs, each waiter sleeping in FUTEX_WAIT at once (its CPU "
				"idle in the state the governor picks), one way = round trip / 2",
				e) < 0)
			goto out;
		known = known && usage_snapshot(t, a, b, after);
		s->idle_state = dominant_state(t, known, before, after);
		s->entries_idle = known ? idle_entries(t, before, after) : 0;
		if (fpp_measure(run, "wake_call_idle", a, b, false, true, W_IDLE, &s->wake_call_idle, &slept, &sleeps,
				"wake_idle's ping-pong again, timing only the waker's FUTEX_WAKE call that wakes the "
				"sleeper (try_to_wake_up of a task on another, idle CPU, and the IPI's send when it does "
				"not poll)",
				e) < 0)
			goto out;
		fd = latency_qos_zero(s->poll_why, sizeof(s->poll_why));
		if (fd >= 0) {
			known = usage_snapshot(t, a, b, before);
			rc = fpp_measure(run, "wake_poll", a, b, false, false, W_POLL, &s->wake_poll, &s->slept_poll, &s->sleeps_poll,
					 "the same with " LATENCY_QOS " held at 0 (no exit latency allowed: the "
					 "governor keeps the CPUs in a polling state), one way = round trip / 2",
					 e);
			known = known && usage_snapshot(t, a, b, after);
			close(fd);
			if (rc < 0)
				goto out;
			rc = -1;
			s->poll_state = dominant_state(t, known, before, after);
			s->entries_poll = known ? idle_entries(t, before, after) : 0;
		} else {
			run->step++;
			if (run->o->progress)
				fprintf(run->o->progress, "futexsim probe: [%" PRIu32 "/%" PRIu32 "] %-22s not measured: %s\n",
					run->step, run->steps, "wake_poll", s->poll_why);
		}
		if (ppp_measure(run, "pipe (two CPUs)", a, b, &s->pipe_cross, e) < 0)
			goto out;
	}
	rc = 0;
out:
	free(o);
	free(before);
	free(after);
	return rc;
}

/* perf bench sched pipe's figure, when perf is there: after the measurements, with
 * this process's own affinity back (perf's two processes are not pinned). */
void probe_sched_perf_pipe(struct probe_sched *s)
{
	struct probe_perf perf;
	char cmd[700];

	s->perf_pipe_us = NAN;
	probe_perf_find(&perf);
	if (!perf.usable) {
		snprintf(s->perf_pipe_why, sizeof(s->perf_pipe_why), "%s", perf.why);
		return;
	}
	snprintf(cmd, sizeof(cmd), "'%s' bench sched pipe -l %d", perf.path, PERF_PIPE_LOOPS);
	if (probe_perf_figure(cmd, "usecs/op", &s->perf_pipe_us, s->perf_pipe_why, sizeof(s->perf_pipe_why)) < 0)
		s->perf_pipe_us = NAN;
	else
		snprintf(s->perf_pipe_why, sizeof(s->perf_pipe_why), "perf bench sched pipe -l %d", PERF_PIPE_LOOPS);
}

/* ---- deriving -------------------------------------------------------------------- */

static void dfmt(char *buf, size_t size, double ns)
{
	if (ns >= 1000)
		snprintf(buf, size, "%.2fus", ns / 1000);
	else
		snprintf(buf, size, "%.1fns", ns);
}

/* "L (median M, N rounds)" of a measured value, with the share of its waits that
 * slept when known (`slept` not NAN). */
static void brief(char *buf, size_t size, const struct probe_value *v, double slept)
{
	char l[32], m[32], sl[48] = "";

	dfmt(l, sizeof(l), v->estimate);
	dfmt(m, sizeof(m), v->median);
	if (!isnan(slept))
		snprintf(sl, sizeof(sl), ", the waiter slept in %.0f%% of its waits", 100 * slept);
	snprintf(buf, size, "%s (median %s, %" PRIu32 " rounds%s%s)", l, m, v->n, v->unstable ? ", unstable" : "", sl);
}

static void add_warning(struct probe_derived *d, const char *what, const struct probe_value *v)
{
	size_t len = strlen(d->warning);

	if (v->measured && v->unstable && len + 1 < sizeof(d->warning))
		snprintf(d->warning + len, sizeof(d->warning) - len, "%s%s: %s", len ? "; " : "", what, v->warning);
}

bool probe_sched_was_idle(uint64_t entries, uint64_t sleeps)
{
	return 2 * entries >= sleeps;
}

/* The idle case ran on busy CPUs: said above the value. */
static void busy_warning(struct probe_derived *d, uint64_t entries, uint64_t sleeps)
{
	size_t len = strlen(d->warning);

	if (len + 1 < sizeof(d->warning))
		snprintf(d->warning + len, sizeof(d->warning) - len,
			 "%swake_idle: the CPUs were busy with other work (%" PRIu64 " idle entries for %" PRIu64
			 " sleeps): the wake-ups timed were mostly of busy CPUs",
			 len ? "; " : "", entries, sleeps);
}

static void fallback(struct probe_derived *d, const char *value, double ns, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void fallback(struct probe_derived *d, const char *value, double ns, const char *fmt, ...)
{
	va_list ap;

	d->derived = false;
	d->ns = ns;
	d->label = 'A';
	snprintf(d->value, sizeof(d->value), "%s", value);
	va_start(ap, fmt);
	vsnprintf(d->how, sizeof(d->how), fmt, ap);
	va_end(ap);
}

/* The derived value `x` ns, within 0..1 ms, its comment `how` (the arithmetic),
 * with the clamping said. */
static void derived(struct probe_derived *d, double x, const char *how, const char *stamp)
{
	const char *clamp = "";

	if (!(x >= 0)) {
		clamp = " (negative: the noise of the inputs; written as 0)";
		x = 0;
	} else if (x > 1e6) {
		clamp = " (above the schema's 1 ms: written as 1 ms)";
		x = 1e6;
	}
	d->derived = true;
	d->ns = x;
	d->label = 'M';
	if (x == 0)
		snprintf(d->value, sizeof(d->value), "0ns");
	else
		dfmt(d->value, sizeof(d->value), x);
	snprintf(d->how, sizeof(d->how), "measured by futexsim probe: %s%s; %s", how, clamp, stamp);
}

static double exit_ns(const struct probe_idle *idle, int k)
{
	return k >= 0 ? (double)idle->s[k].latency_us * 1000 : 0;
}

static void derive_wakeups(const struct probe_idle *idle, struct probe_sched *s, const char *stamp)
{
	char h[200], w[200], a[200], sp[200], id[200], po[200], how[1200];
	/* a case whose CPUs entered an idle state less often than its waiters slept ran
	 * on CPUs busy with other work: its state is not the wake-up's */
	const bool idle_idle = probe_sched_was_idle(s->entries_idle, s->sleeps_idle),
		   poll_idle = probe_sched_was_idle(s->entries_poll, s->sleeps_poll);
	const int i = idle_idle ? s->idle_state : -1, p = poll_idle ? s->poll_state : -1;
	const bool idle_polls = i >= 0 && idle->s[i].polls, poll_polls = p >= 0 && idle->s[p].polls;

	memset(&s->context_switch, 0, sizeof(s->context_switch));
	memset(&s->wake_to_run, 0, sizeof(s->wake_to_run));
	memset(&s->ipi, 0, sizeof(s->ipi));

	/* context_switch: the same-CPU hand-off less its two futex calls' own cost */
	if (s->handoff.measured && s->futex_wake.measured && s->futex_wait.measured) {
		double x = s->handoff.estimate - s->futex_wake.estimate - s->futex_wait.estimate;
		char r[32];

		brief(h, sizeof(h), &s->handoff, s->slept_same);
		brief(w, sizeof(w), &s->futex_wake, NAN);
		brief(a, sizeof(a), &s->futex_wait, NAN);
		dfmt(r, sizeof(r), x);
		snprintf(how, sizeof(how),
			 "a futex ping-pong of two threads on CPU %" PRIu32 ", %s a hand-off (a FUTEX_WAKE, a FUTEX_WAIT "
			 "that sleeps and the switch), less a FUTEX_WAKE finding no waiter %s and a FUTEX_WAIT returning "
			 "EAGAIN %s = %s; low tails of rounds (noise only adds time)",
			 s->cpu_a, h, w, a, r);
		derived(&s->context_switch, x, how, stamp);
		add_warning(&s->context_switch, "handoff", &s->handoff);
		add_warning(&s->context_switch, "futex_wake", &s->futex_wake);
		add_warning(&s->context_switch, "futex_wait", &s->futex_wait);
	} else {
		fallback(&s->context_switch, "1.5us", 1500,
			 "not measured: 1.5us, the schema's default (docs/machine.md)");
	}

	if (!s->cross || !s->wake_spin.measured || !s->wake_idle.measured) {
		fallback(&s->wake_to_run, "5us", 5000,
			 "not measured (%s): 5us, the schema's default (docs/machine.md)",
			 s->cross ? "the cross-CPU ping-pong did not run" : "one CPU: no cross-CPU wake-up to time");
		fallback(&s->ipi, "0ns", 0, "not measured (%s): 0, no IPI cost apart",
			 s->cross ? "the cross-CPU ping-pong did not run" : "one CPU: no cross-CPU wake-up to time");
		return;
	}
	brief(sp, sizeof(sp), &s->wake_spin, s->slept_spin);
	brief(id, sizeof(id), &s->wake_idle, s->slept_idle);
	if (s->wake_poll.measured)
		brief(po, sizeof(po), &s->wake_poll, s->slept_poll);
	if (s->wake_poll.measured && poll_polls && i >= 0 && !idle_polls) {
		/* separable: a polling target needs no IPI, the idle one did */
		double wtr = s->wake_poll.estimate - s->wake_spin.estimate - exit_ns(idle, p);
		double ipi = s->wake_idle.estimate - s->wake_poll.estimate - (exit_ns(idle, i) - exit_ns(idle, p));
		char r[32];

		dfmt(r, sizeof(r), wtr);
		snprintf(how, sizeof(how),
			 "CPUs %" PRIu32 "-%" PRIu32 ": a futex hand-off to a waiter sleeping on a CPU kept polling in "
			 "%s by " LATENCY_QOS " at 0 (no IPI) %s, less the hand-off to a spinning waiter (no sleep, no "
			 "wake-up) %s, less %s's exit latency %ldus (sysfs) = %s: from the flag set to the woken task "
			 "running (the idle loop left, the enqueue, the pick, the switch in; with what waking a waiter "
			 "and the woken FUTEX_WAIT's return add to the futex path beyond a FUTEX_WAKE that finds none)",
			 s->cpu_a, s->cpu_b, idle->s[p].name, po, sp, idle->s[p].name, idle->s[p].latency_us, r);
		derived(&s->wake_to_run, wtr, how, stamp);
		dfmt(r, sizeof(r), ipi);
		snprintf(how, sizeof(how),
			 "CPUs %" PRIu32 "-%" PRIu32 ": a futex hand-off to a waiter sleeping on an idle CPU (the state "
			 "entered most: %s, which does not poll) %s, less the same to a CPU polling in %s %s, less the "
			 "two states' exit latencies %ldus - %ldus (sysfs) = %s: the reschedule IPI, from the waker "
			 "sending it to the target's handler running",
			 s->cpu_a, s->cpu_b, idle->s[i].name, id, idle->s[p].name, po, idle->s[i].latency_us,
			 idle->s[p].latency_us, r);
		derived(&s->ipi, ipi, how, stamp);
		add_warning(&s->wake_to_run, "wake_poll", &s->wake_poll);
		add_warning(&s->wake_to_run, "wake_spin", &s->wake_spin);
		add_warning(&s->ipi, "wake_idle", &s->wake_idle);
		add_warning(&s->ipi, "wake_poll", &s->wake_poll);
		return;
	}
	/* not separable: the idle wake-up's sum into wake_to_run */
	{
		char why[400], r[32];
		double wtr = s->wake_idle.estimate - s->wake_spin.estimate - exit_ns(idle, i);

		if (i >= 0 && idle_polls)
			snprintf(why, sizeof(why),
				 "the idle CPUs rested in %s, which polls: no idle wake-up here sends an IPI, so none was "
				 "timed",
				 idle->s[i].name);
		else if (s->idle_state >= 0 && !idle_idle)
			snprintf(why, sizeof(why),
				 "the CPUs were busy with other work: %" PRIu64 " idle entries for %" PRIu64
				 " sleeps of the waiters, fewer than half (probe again on a quieter machine)",
				 s->entries_idle, s->sleeps_idle);
		else if (!s->wake_poll.measured)
			snprintf(why, sizeof(why), "the polling case was not measured (%s)", s->poll_why);
		else if (s->poll_state >= 0 && !poll_idle)
			snprintf(why, sizeof(why),
				 "the CPUs were busy with other work while polled: %" PRIu64 " idle entries for %" PRIu64
				 " sleeps, fewer than half (probe again on a quieter machine)",
				 s->entries_poll, s->sleeps_poll);
		else if (p >= 0 && !poll_polls)
			snprintf(why, sizeof(why), "with " LATENCY_QOS " at 0 the CPUs still rested in %s, which does not poll",
				 idle->s[p].name);
		else
			snprintf(why, sizeof(why), "which idle state the CPUs rested in is not known (no cpuidle usage "
						   "counters)");
		dfmt(r, sizeof(r), wtr);
		snprintf(how, sizeof(how),
			 "CPUs %" PRIu32 "-%" PRIu32 ": a futex hand-off to a waiter sleeping on an idle CPU%s%s%s %s, "
			 "less the hand-off to a spinning waiter (no sleep, no wake-up) %s, less the state's exit latency "
			 "%ldus (sysfs) = %s: the whole wake-up%s; the IPI is not apart: %s",
			 s->cpu_a, s->cpu_b, i >= 0 ? " (the state entered most: " : "", i >= 0 ? idle->s[i].name : "",
			 i >= 0 ? ")" : "", id, sp, i >= 0 ? idle->s[i].latency_us : 0L, r,
			 i >= 0 && idle_polls ? "" : ", the IPI included", why);
		derived(&s->wake_to_run, wtr, how, stamp);
		add_warning(&s->wake_to_run, "wake_idle", &s->wake_idle);
		add_warning(&s->wake_to_run, "wake_spin", &s->wake_spin);
		if (s->idle_state >= 0 && !idle_idle)
			busy_warning(&s->wake_to_run, s->entries_idle, s->sleeps_idle);
		if (i >= 0 && idle_polls)
			fallback(&s->ipi, "0ns", 0,
				 "not measured: %s; 0 (a wake-up that preempts a busy CPU does send one: not timed here)",
				 why);
		else
			fallback(&s->ipi, "0ns", 0, "not separable on this host (%s): its cost is in wake_to_run", why);
	}
}

/* What the waker pays: the IPI's send, and a woken thread's exit on its CPU. */
static void derive_waker_side(const struct probe_idle *idle, struct probe_sched *s, const char *stamp)
{
	const bool idle_idle = probe_sched_was_idle(s->entries_idle, s->sleeps_idle);
	const int i = idle_idle ? s->idle_state : -1;
	char how[1200], c[200], w[200], r[32];

	memset(&s->ipi_send, 0, sizeof(s->ipi_send));
	memset(&s->thread_exit, 0, sizeof(s->thread_exit));
	if (!s->cross || !s->wake_call_idle.measured || !s->futex_wake.measured)
		fallback(&s->ipi_send, "0ns", 0, "not measured (%s): 0, the IPI's send in sched.wake_up",
			 s->cross ? "the cross-CPU ping-pong did not run" : "one CPU: no IPI to send");
	else if (i < 0 || idle->s[i].polls)
		fallback(&s->ipi_send, "0ns", 0,
			 "not measured: %s; 0, the IPI's send in sched.wake_up",
			 i < 0 ? "which idle state wake_idle's CPUs rested in is not known, or they were busy with other "
				 "work (so whether its wake-ups sent an IPI is not known)"
			       : "wake_idle's CPUs rested in a state that polls: its wake-ups sent no IPI");
	else {
		double x = s->wake_call_idle.estimate - s->futex_wake.estimate;

		brief(c, sizeof(c), &s->wake_call_idle, NAN);
		brief(w, sizeof(w), &s->futex_wake, NAN);
		dfmt(r, sizeof(r), x);
		snprintf(how, sizeof(how),
			 "CPUs %" PRIu32 "-%" PRIu32 ": the waker's FUTEX_WAKE of a waiter asleep on an idle CPU (in %s, "
			 "which does not poll) %s, less a FUTEX_WAKE finding no waiter %s = %s: the try_to_wake_up of a "
			 "remote sleeper with the reschedule IPI's send (sched.wake_up is not measured apart: 0)",
			 s->cpu_a, s->cpu_b, idle->s[i].name, c, w, r);
		derived(&s->ipi_send, x, how, stamp);
		add_warning(&s->ipi_send, "wake_call_idle", &s->wake_call_idle);
		add_warning(&s->ipi_send, "futex_wake", &s->futex_wake);
	}
	if (!s->exit_cold.measured || !s->context_switch.derived || s->context_switch.label != 'M')
		fallback(&s->thread_exit, "0ns", 0, "not measured (%s): 0, no exit cost",
			 s->exit_cold.measured ? "the context switch was not measured" : "the exit case did not run");
	else {
		double x = s->exit_cold.estimate - s->context_switch.ns;
		char sw[32];

		dfmt(c, sizeof(c), s->exit_cold.estimate);
		dfmt(sw, sizeof(sw), s->context_switch.ns);
		dfmt(r, sizeof(r), x);
		snprintf(how, sizeof(how),
			 "CPU %" PRIu32 ": a thread woken after 0.1 s asleep on its waker's CPU, from its FUTEX_WAIT's "
			 "return to the waker back from pthread_join, %s (the median of %d, min-max %.1f-%.1fus; it "
			 "preempted the waker in %.0f%%), less one context switch %s = %s: the thread's return to user "
			 "space and its exit (pthread_exit, do_exit, the last switch away), with what 0.1 s of sleep "
			 "left cold, as perf bench futex's wake suites meet it",
			 s->cpu_a, c, PROBE_EXIT_SAMPLES, s->exit_cold.lo / 1000, s->exit_cold.hi / 1000,
			 100 * s->exit_preempted, sw, r);
		derived(&s->thread_exit, x, how, stamp);
	}
}

void probe_sched_derive(const struct probe_idle *idle, struct probe_sched *s, const char *stamp)
{
	derive_wakeups(idle, s, stamp);
	derive_waker_side(idle, s, stamp);
}

/* ---- the file and the terminal ------------------------------------------------------ */

static void derived_line(FILE *f, const char *key, const struct probe_derived *d)
{
	if (d->warning[0])
		fprintf(f, "  # [warning] unstable: %s: %s; the lowest low tails kept\n", key, d->warning);
	probe_yaml_line(f, "  ", key, d->value, "[%c] %s", d->label ? d->label : 'A', d->how);
}

void probe_sched_render(FILE *f, const struct probe_topology *t, const struct probe_results *r)
{
	const struct probe_idle *d = &t->idle;
	const struct probe_sched *s = &r->sched;
	long lat = 0, res = 0;
	uint32_t written = 0;

	fprintf(f, "sched:                    # [M] sleeping and waking on this machine: its idle states read and the "
		   "costs measured by futexsim probe (docs/probe.md, \"Sleeping and waking\")\n");
	if (!d->present) {
		probe_yaml_line(f, "  ", "idle_states", "",
				"[A] no cpuidle states in %s/devices/system/cpu/cpu%" PRIu32 "/cpuidle (no cpuidle driver): "
				"the architecture's default idle, taken as one state that does not poll and whose exit cost "
				"is in the measured wake-up",
				"/sys", d->cpu);
		fprintf(f, "    - {name: \"default idle\", exit_latency: 0us, target_residency: 0us, polls: false}  # [A] "
			   "no table to read: its exit latency is in wake_to_run\n");
	} else {
		probe_yaml_line(f, "  ", "idle_states", "",
				"[M] read by futexsim probe: %s/devices/system/cpu/cpu%" PRIu32
				"/cpuidle/stateN/{name,desc,latency,residency} (cpuidle driver %s, governor %s), shallowest "
				"first, exit latency and target residency as the driver tabulates them; polls: whether a CPU "
				"resting there watches TIF_POLLING_NRFLAG, so that a remote wake-up sends no reschedule IPI "
				"(tip commit 26baa1f1c4bd)",
				"/sys", d->cpu, d->driver[0] ? d->driver : "unknown", d->governor[0] ? d->governor : "unknown");
		for (uint32_t k = 0; k < d->n; k++) {
			const struct probe_idle_state *st = &d->s[k];
			char row[160], raised[120] = "";
			int n;

			if (st->disabled) {
				fprintf(f, "    # state%" PRIu32 " (%s, %ld/%ld us) left out: disabled (stateN/disable is 1), the "
					   "governor never picks it\n",
					st->index, st->name, st->latency_us, st->residency_us);
				continue;
			}
			if (written && (st->latency_us < lat || st->residency_us < res))
				snprintf(raised, sizeof(raised), "; raised to %ld/%ld us, the previous state's (the schema wants "
								 "them non-decreasing)",
					 st->latency_us < lat ? lat : st->latency_us, st->residency_us < res ? res : st->residency_us);
			lat = st->latency_us > lat ? st->latency_us : lat;
			res = st->residency_us > res ? st->residency_us : res;
			n = snprintf(row, sizeof(row), "    - {name: \"%s\", exit_latency: %ldus, target_residency: %ldus, polls: %s}",
				     st->name, lat, res, st->polls ? "true" : "false");
			fprintf(f, "%s%*s# [M] state%" PRIu32 " (%s): latency %ld us, residency %ld us%s; polls: %s\n", row,
				n < 80 ? 80 - n : 1, "", st->index, st->desc[0] ? st->desc : "no description", st->latency_us,
				st->residency_us, raised, st->why);
			written++;
		}
		if (!written)
			fprintf(f, "    - {name: \"default idle\", exit_latency: 0us, target_residency: 0us, polls: false}  # [A] "
				   "every state disabled: the architecture's default idle\n");
	}
	derived_line(f, "ipi_send", &s->ipi_send);
	derived_line(f, "ipi", &s->ipi);
	derived_line(f, "wake_to_run", &s->wake_to_run);
	derived_line(f, "context_switch", &s->context_switch);
	derived_line(f, "thread_exit", &s->thread_exit);
}

static void print_one(FILE *f, const char *what, const struct probe_value *v, double scale, const char *unit)
{
	if (!v->measured)
		return;
	fprintf(f, "    %-22s %9.2f %s low tail, median %.2f, p10-p90 %.2f-%.2f, %" PRIu32 " rounds%s\n", what,
		v->estimate / scale, unit, v->median / scale, v->lo / scale, v->hi / scale, v->n,
		v->unstable ? "; UNSTABLE" : "");
}

void probe_sched_print(const struct probe_topology *t, const struct probe_results *r, FILE *f)
{
	const struct probe_sched *s = &r->sched;

	fprintf(f, "  sleeping and waking (one way unless said):\n");
	print_one(f, "futex_wake (no waiter)", &s->futex_wake, 1, "ns");
	print_one(f, "futex_wait (EAGAIN)", &s->futex_wait, 1, "ns");
	print_one(f, "handoff, one CPU", &s->handoff, 1000, "us");
	print_one(f, "wake_spin", &s->wake_spin, 1000, "us");
	print_one(f, "wake_idle", &s->wake_idle, 1000, "us");
	if (s->idle_state >= 0)
		fprintf(f, "      the CPUs rested in %s most (%" PRIu64 " idle entries for %" PRIu64 " sleeps)\n",
			t->idle.s[s->idle_state].name, s->entries_idle, s->sleeps_idle);
	else if (s->cross && s->wake_idle.measured)
		fprintf(f, "      the CPUs entered no idle state (%" PRIu64 " sleeps): busy with other work\n", s->sleeps_idle);
	if (s->wake_poll.measured) {
		print_one(f, "wake_poll", &s->wake_poll, 1000, "us");
		if (s->poll_state >= 0)
			fprintf(f, "      the CPUs rested in %s most (%" PRIu64 " idle entries for %" PRIu64 " sleeps)\n",
				t->idle.s[s->poll_state].name, s->entries_poll, s->sleeps_poll);
	} else if (s->cross) {
		fprintf(f, "    %-22s not measured: %s\n", "wake_poll", s->poll_why);
	}
	print_one(f, "wake_call_idle", &s->wake_call_idle, 1000, "us");
	if (s->exit_cold.measured)
		fprintf(f, "    %-22s %9.2f us median, min-max %.2f-%.2f, %" PRIu32 " samples, the wakee preempted in %.0f%%\n",
			"exit (after 0.1 s)", s->exit_cold.estimate / 1000, s->exit_cold.lo / 1000, s->exit_cold.hi / 1000,
			s->exit_cold.n, 100 * s->exit_preempted);
	print_one(f, "pipe round trip, 1 CPU", &s->pipe_same, 1000, "us");
	print_one(f, "pipe round trip, 2 CPUs", &s->pipe_cross, 1000, "us");
	if (!isnan(s->perf_pipe_us))
		fprintf(f, "    %-22s %9.2f us/op (%s, its two processes unpinned)\n", "perf bench sched pipe", s->perf_pipe_us,
			s->perf_pipe_why);
	else if (s->perf_pipe_why[0])
		fprintf(f, "    %-22s not run: %s\n", "perf bench sched pipe", s->perf_pipe_why);
	fprintf(f, "  sched: ipi_send %s [%c], ipi %s [%c], wake_to_run %s [%c], context_switch %s [%c], thread_exit %s [%c]\n",
		s->ipi_send.value, s->ipi_send.label, s->ipi.value, s->ipi.label, s->wake_to_run.value,
		s->wake_to_run.label, s->context_switch.value, s->context_switch.label, s->thread_exit.value,
		s->thread_exit.label);
}
