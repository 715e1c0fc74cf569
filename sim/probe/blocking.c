/* SPDX-License-Identifier: MIT */
/* futexsim probe --check, the blocking suites' real side (docs/probe.md, "The
 * blocking rows"): futexsim's own copy of schbench's -L message/worker loop, run
 * in a child process of its own (a fresh mm, as a schbench run has), and perf's
 * blocking suites (perf bench futex wake, wake-parallel, requeue, lock-pi) when
 * perf has them.
 *
 * schbench -L's protocol (schbench.c, Chris Mason's scheduler benchmark; the
 * simulated side is models/workloads/schbench.c): every thread has a futex word
 * used as a binary semaphore, post(w) = CAS w 0 -> 1, then FUTEX_WAKE_PRIVATE(w, 1)
 * only if the CAS succeeded; wait(w) = loop { CAS w 1 -> 0: return; else
 * FUTEX_WAIT_PRIVATE(w, 0) }. A worker, per request: stores 0 to its own word,
 * pushes itself on its message thread's lock-free list, posts the message thread's
 * word and waits on its own; woken, it takes its wake-up latency (now - the stamp
 * its message thread gave it) and counts a request (-n 0 -s 0: no other work). A
 * message thread: stores 0 to its own word, takes the whole list with one atomic
 * exchange, stamps the pass and posts each worker on it (most recent first), then
 * waits on its own word. Message thread i is pinned to cpus[i]; the workers may
 * run on every CPU of cpus: schbench -M auto as it behaves (its pinning function
 * gives the workers every CPU), as the simulation's default pinning: auto. */
#define _GNU_SOURCE /* sched_setaffinity, syscall */
#include "sim/probe/probe.h"

#include "sim/perfbench.h"
#include "sim/perfstat.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/futex.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SB_WARMUP_S 0.1            /* requests before this are not counted */
#define SB_HIST_US 10000u          /* wake-up latency histogram: 1 us bins up to 10 ms */
#define SB_WAIT_SLICE_NS 100000000L
#define SB_STOP_S 5.0              /* the threads must be gone this long after the stop */
#define CHILD_GRACE_S 15.0         /* beyond the run's seconds, before the child is killed */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- the protocol ------------------------------------------------------------------ */

bool probe_sb_post(_Atomic uint32_t *w, uint64_t *calls)
{
	uint32_t zero = 0;

	if (!atomic_compare_exchange_strong(w, &zero, 1))
		return false;
	syscall(SYS_futex, (uint32_t *)w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	(*calls)++;
	return true;
}

bool probe_sb_try_wait(_Atomic uint32_t *w)
{
	uint32_t one = 1;

	return atomic_compare_exchange_strong(w, &one, 0);
}

int probe_sb_wait(_Atomic uint32_t *w, _Atomic int *stop, uint64_t *calls)
{
	const struct timespec slice = { 0, SB_WAIT_SLICE_NS };

	while (!probe_sb_try_wait(w)) {
		if (atomic_load_explicit(stop, memory_order_relaxed))
			return 1;
		syscall(SYS_futex, (uint32_t *)w, FUTEX_WAIT_PRIVATE, 0, &slice, NULL, 0);
		(*calls)++;
	}
	return 0;
}

void probe_sb_push(struct probe_sb_node *_Atomic *head, struct probe_sb_node *n)
{
	struct probe_sb_node *old = atomic_load(head);

	do
		n->next = old;
	while (!atomic_compare_exchange_weak(head, &old, n));
}

struct probe_sb_node *probe_sb_take(struct probe_sb_node *_Atomic *head)
{
	return atomic_exchange(head, NULL);
}

/* ---- one run ------------------------------------------------------------------------ */

/* A thread's record: its word on a line of its own; a message thread's list head
 * on another. */
struct sb_thread {
	_Alignas(128) struct probe_sb_node node; /* node.word: its futex word */
	_Alignas(128) struct probe_sb_node *_Atomic head; /* a message thread's list */
	_Alignas(128) double stamp;              /* a worker: the pass that posted it */
	pthread_t th;
	uint32_t cpu;                            /* a message thread's */
	const uint32_t *run_cpus;                /* a worker's: any of them (-M auto) */
	uint32_t ncpus;
	bool msg;
	struct sb_thread *group;                 /* a worker's message thread */
	struct sb_run *run;
	int pin_err;
	uint64_t requests, calls;
	uint32_t *hist;                          /* a worker's latency histogram */
};

struct sb_run {
	_Alignas(128) _Atomic int stop;
	_Atomic int counting;
	_Atomic uint32_t exited;
	pthread_barrier_t start;
};

/* The calling thread allowed on every CPU of cpus[0..n); 0 or an errno. */
static int pin_all(const uint32_t *cpus, uint32_t n)
{
	uint32_t top = 0;
	cpu_set_t *set;
	size_t size;
	int rc;

	for (uint32_t i = 0; i < n; i++)
		top = cpus[i] > top ? cpus[i] : top;
	set = CPU_ALLOC(top + 1);
	size = CPU_ALLOC_SIZE(top + 1);
	if (!set)
		return ENOMEM;
	CPU_ZERO_S(size, set);
	for (uint32_t i = 0; i < n; i++)
		CPU_SET_S(cpus[i], size, set);
	rc = sched_setaffinity(0, size, set) ? errno : 0;
	CPU_FREE(set);
	return rc;
}

static void *sb_main(void *arg)
{
	struct sb_thread *me = arg;
	struct sb_run *run = me->run;
	uint64_t calls = 0, requests = 0;

	me->pin_err = me->msg ? probe_pin_self(me->cpu) : pin_all(me->run_cpus, me->ncpus);
	pthread_barrier_wait(&run->start);
	if (me->pin_err)
		goto out;
	while (!atomic_load_explicit(&run->stop, memory_order_relaxed)) {
		if (me->msg) {
			struct probe_sb_node *n;
			double t;

			atomic_store(&me->node.word, 0);
			n = probe_sb_take(&me->head);
			t = now_s();
			while (n) {
				struct probe_sb_node *next = n->next; /* before the post: the worker reuses it */
				struct sb_thread *w = (struct sb_thread *)n;

				w->stamp = t;
				probe_sb_post(&n->word, &calls);
				n = next;
			}
		} else {
			atomic_store(&me->node.word, 0);
			probe_sb_push(&me->group->head, &me->node);
			probe_sb_post(&me->group->node.word, &calls);
		}
		if (probe_sb_wait(&me->node.word, &run->stop, &calls))
			break;
		if (!me->msg && atomic_load_explicit(&run->counting, memory_order_relaxed) &&
		    !atomic_load_explicit(&run->stop, memory_order_relaxed)) {
			double us = (now_s() - me->stamp) * 1e6;

			me->hist[us < 0 ? 0 : us >= SB_HIST_US ? SB_HIST_US : (uint32_t)us]++;
			requests++;
		}
	}
out:
	me->calls = calls;
	me->requests = requests;
	atomic_fetch_add(&run->exited, 1);
	return NULL;
}

/* What a child reports first: how it went. */
struct child_status {
	int status; /* 0 ran, 2 a pin refused (cpu, err), 3 other failure (err, what) */
	int err;
	uint32_t cpu;
	char what[80];
};

static void child_failed(struct child_status *st, int err, const char *what)
{
	st->status = 3;
	st->err = err;
	snprintf(st->what, sizeof(st->what), "%s", what);
}

struct sb_report {
	struct child_status st;
	struct probe_schbench_result res;
};

static double hist_quantile(const uint64_t *h, uint64_t total, double q)
{
	uint64_t want = (uint64_t)ceil(q * (double)total), seen = 0;

	for (uint32_t b = 0; b <= SB_HIST_US; b++) {
		seen += h[b];
		if (seen >= want && want)
			return b + 0.5;
	}
	return NAN;
}

/* A thread's pin that failed with `err` (0: it did not) into st, the first one. */
static void pin_refused(struct child_status *st, int err, uint32_t cpu)
{
	if (err && !st->status) {
		st->status = 2;
		st->err = err;
		st->cpu = cpu;
	}
}

static void sb_child(const void *ctx, void *report)
{
	const struct probe_schbench_run *r = ctx;
	struct sb_report *rep = report;
	uint32_t n = r->m * (r->t + 1), created = 0;
	struct sb_thread *th = NULL;
	struct sb_run *run = NULL;
	uint64_t *hist = calloc(SB_HIST_US + 1, sizeof(*hist));
	double t0, t1, stop_at;

	if (!hist || posix_memalign((void **)&th, 128, n * sizeof(*th)) != 0 ||
	    posix_memalign((void **)&run, 128, sizeof(*run)) != 0) {
		child_failed(&rep->st, ENOMEM, "allocating the threads");
		return;
	}
	memset(th, 0, n * sizeof(*th));
	memset(run, 0, sizeof(*run));
	if ((errno = pthread_barrier_init(&run->start, NULL, n + 1)) != 0) {
		child_failed(&rep->st, errno, "pthread_barrier_init");
		return;
	}
	for (uint32_t k = 0; k < n; k++) {
		th[k].cpu = r->cpus[k % r->ncpus];
		th[k].run_cpus = r->cpus;
		th[k].ncpus = r->ncpus;
		th[k].msg = k < r->m;
		th[k].group = th[k].msg ? NULL : &th[(k - r->m) / r->t];
		th[k].run = run;
		if (!th[k].msg && !(th[k].hist = calloc(SB_HIST_US + 1, sizeof(uint32_t)))) {
			child_failed(&rep->st, ENOMEM, "allocating the latency histograms");
			return; /* the child exits: nothing started waits */
		}
	}
	for (uint32_t k = 0; k < n; k++) {
		int err = pthread_create(&th[k].th, NULL, sb_main, &th[k]);

		if (err) {
			/* the started ones wait at the barrier for ever: the child exits */
			child_failed(&rep->st, err, "starting a thread");
			return;
		}
		created++;
	}
	pthread_barrier_wait(&run->start);
	t0 = now_s();
	while (now_s() - t0 < SB_WARMUP_S)
		usleep(10000);
	atomic_store(&run->counting, 1);
	t0 = now_s();
	while ((t1 = now_s()) - t0 < r->seconds)
		usleep(10000);
	atomic_store(&run->stop, 1);
	/* everyone waits on its word or is about to: post every word until all are gone */
	stop_at = now_s();
	while (atomic_load(&run->exited) < created && now_s() - stop_at < SB_STOP_S) {
		for (uint32_t k = 0; k < n; k++) {
			atomic_store(&th[k].node.word, 1);
			syscall(SYS_futex, (uint32_t *)&th[k].node.word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
		}
		usleep(1000);
	}
	if (atomic_load(&run->exited) < created) {
		child_failed(&rep->st, ETIMEDOUT, "stopping its threads");
		return;
	}
	for (uint32_t k = 0; k < n; k++) {
		pthread_join(th[k].th, NULL);
		pin_refused(&rep->st, th[k].pin_err, th[k].cpu);
		rep->res.requests += th[k].requests;
		rep->res.futex_calls += th[k].calls;
		for (uint32_t b = 0; th[k].hist && b <= SB_HIST_US; b++)
			hist[b] += th[k].hist[b];
	}
	rep->res.seconds = t1 - t0;
	rep->res.rps = rep->res.seconds > 0 ? (double)rep->res.requests / rep->res.seconds : 0;
	rep->res.p50_us = hist_quantile(hist, rep->res.requests, 0.50);
	rep->res.p99_us = hist_quantile(hist, rep->res.requests, 0.99);
}

/* Runs fn(ctx, report) in a child process of its own (a fresh mm, as each run of
 * the real benchmark has) and reads `size` bytes of report back, the child's
 * struct child_status first. Bounded: a child silent for `timeout_s` is killed (it
 * is ours, by its pid). -1 with `e` set. */
static int in_child(void (*fn)(const void *ctx, void *report), const void *ctx, void *report, size_t size,
		    double timeout_s, const char *what, struct fs_error *e)
{
	struct child_status *st = report;
	int fds[2], status = 0;
	size_t got = 0;
	double deadline;
	pid_t pid;

	if (pipe(fds) < 0)
		return fs_fail(e, FS_ERR_RUNTIME, "pipe: %s", strerror(errno));
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return fs_fail(e, FS_ERR_RUNTIME, "cannot start a process for %s: fork: %s", what, strerror(errno));
	}
	if (pid == 0) {
		const char *p = report;
		size_t left = size;

		close(fds[0]);
		memset(report, 0, size);
		fn(ctx, report);
		while (left) {
			ssize_t k = write(fds[1], p, left);

			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0)
				_exit(1);
			p += k;
			left -= (size_t)k;
		}
		_exit(0);
	}
	close(fds[1]);
	deadline = now_s() + timeout_s;
	while (got < size) {
		struct pollfd pfd = { fds[0], POLLIN, 0 };
		double left = deadline - now_s();
		ssize_t k;

		if (left <= 0 || poll(&pfd, 1, (int)(left * 1000) + 1) == 0) {
			kill(pid, SIGKILL);
			break;
		}
		k = read(fds[0], (char *)report + got, size - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	close(fds[0]);
	waitpid(pid, &status, 0);
	if (got < size)
		return fs_fail(e, FS_ERR_RUNTIME, "the process of %s %s before reporting", what,
			       WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL ? "hung and was killed" : "died");
	if (st->status == 2)
		return probe_pin_failed(e, st->cpu, st->err, "futexsim probe --check pins the benchmark's threads");
	if (st->status)
		return fs_fail(e, FS_ERR_RUNTIME, "%s failed %s: %s", what, st->what, strerror(st->err));
	return 0;
}

int probe_schbench_run(const struct probe_schbench_run *r, struct probe_schbench_result *out, struct fs_error *e)
{
	struct sb_report rep;

	memset(out, 0, sizeof(*out));
	if (!r->m || !r->t || !r->ncpus)
		return fs_fail(e, FS_ERR_RUNTIME, "schbench loop: no threads or no CPUs");
	if (in_child(sb_child, r, &rep, sizeof(rep), SB_WARMUP_S + r->seconds + CHILD_GRACE_S, "the schbench loop", e) < 0)
		return -1;
	*out = rep.res;
	return 0;
}

/* ---- perf's blocking suites, when perf has no such suite ------------------------------ */

#define PW_SETTLE_S 0.1  /* perf's usleep(100000): every thread blocked before the timing */
#define PW_STUCK_S 5.0   /* a run that makes no progress for this long fails */

int probe_suite_from_line(const char *line, uint32_t ncpus, struct probe_suite_run *r, char *msg, size_t size)
{
	struct perfbench_sets *sets = calloc(1, sizeof(*sets));
	enum perfbench_figure fig;
	int rc = 0;

	memset(r, 0, sizeof(*r));
	r->threads = ncpus;
	r->runs = 10;
	r->nwake = r->nrequeue = 1;
	r->wakers = 2;
	if (!sets) {
		snprintf(msg, size, "out of memory");
		return -1;
	}
	if (perfbench_line_sets(line, "m", "k", NULL, sets, &fig, msg, size) < 0) {
		free(sets);
		return -1;
	}
	for (size_t i = 0; i < sets->n && rc == 0; i++) {
		const char *v = sets->v[i], *eq = strchr(v, '=');
		unsigned long long x = eq ? strtoull(eq + 1, NULL, 10) : 0;

		if (!strncmp(v, "workload={type: ", 16))
			snprintf(r->suite, sizeof(r->suite), "%.*s", (int)strcspn(v + 16, "}"), v + 16);
		else if (!strncmp(v, "workload.threads=", 17))
			r->threads = (uint32_t)x;
		else if (!strncmp(v, "workload.runs=", 14))
			r->runs = (uint32_t)x;
		else if (!strncmp(v, "workload.nwake=", 15))
			r->nwake = (uint32_t)x;
		else if (!strncmp(v, "workload.wakers=", 16))
			r->wakers = (uint32_t)x;
		else if (!strncmp(v, "workload.nrequeue=", 18))
			r->nrequeue = (uint32_t)x;
		else if (!strcmp(v, "workload.shared=true"))
			r->shared = true;
		else if (!strcmp(v, "workload.multi=true"))
			r->multi = true;
		else if (!strncmp(v, "run.duration=", 13))
			r->seconds = (double)x * 1e-9;
		else if (!strcmp(v, "workload.broadcast=true") || !strcmp(v, "workload.pi=true")) {
			snprintf(msg, size, "requeue's -B and -p are not in futexsim's own loop");
			rc = -1;
		}
	}
	free(sets);
	if (rc == 0 && (!r->threads || !r->runs || !r->nwake || !r->wakers || !r->nrequeue)) {
		snprintf(msg, size, "%s: a count is 0", line);
		rc = -1;
	}
	if (rc == 0 && !strcmp(r->suite, "wake-parallel") && r->threads % r->wakers) {
		snprintf(msg, size, "%s: the wakers must divide the threads (perf: \"Must be perfectly divisible\")", line);
		rc = -1;
	}
	if (rc == 0 && strcmp(r->suite, "wake") && strcmp(r->suite, "wake-parallel") && strcmp(r->suite, "requeue") &&
	    strcmp(r->suite, "lock-pi")) {
		snprintf(msg, size, "%s: not one of perf's blocking suites", line);
		rc = -1;
	}
	return rc;
}

struct pw_shared {
	_Alignas(128) _Atomic uint32_t futex2; /* adjacent, futex2 first, as a gcc build of perf lays them out */
	_Atomic uint32_t futex1;
	_Alignas(128) _Atomic uint32_t woken;
	int flag;                              /* FUTEX_PRIVATE_FLAG, or 0 (-S) */
	_Atomic int done;                      /* lock-pi */
	pthread_barrier_t barrier;
	/* perf's start: each blocked thread counts itself off under the mutex and waits
	 * on the condition until the main thread has seen them all */
	pthread_mutex_t lock;
	pthread_cond_t parent, worker;
	uint32_t starting;
};

struct pw_thread {
	pthread_t th;
	uint32_t cpu;
	int pin_err;
	struct pw_shared *sh;
	uint32_t nwake;                        /* a waker's share */
	_Atomic uint32_t *word;                /* lock-pi's */
	uint64_t ops;
	double secs;
};

static long sys_futex(_Atomic uint32_t *w, int op, uint32_t val, const void *arg, _Atomic uint32_t *w2, uint32_t val3)
{
	return syscall(SYS_futex, (uint32_t *)w, op, val, arg, (uint32_t *)w2, val3);
}

/* A blocked thread, as perf's workerfn: counted off under the mutex, released by
 * the condition, then FUTEX_WAIT(futex1, 0) until woken (after a requeue, on
 * futex2). Pinned by its creator (pthread_attr_setaffinity_np), as perf's are. */
static void *pw_blocked(void *arg)
{
	struct pw_thread *w = arg;
	struct pw_shared *sh = w->sh;

	pthread_mutex_lock(&sh->lock);
	if (--sh->starting == 0)
		pthread_cond_signal(&sh->parent);
	pthread_cond_wait(&sh->worker, &sh->lock);
	pthread_mutex_unlock(&sh->lock);
	while (sys_futex(&sh->futex1, FUTEX_WAIT | sh->flag, 0, NULL, NULL, 0) != 0 && errno == EINTR)
		;
	atomic_fetch_add(&sh->woken, 1);
	return NULL;
}

/* pthread_create of fn(w) pinned to Linux CPU w->cpu by its attributes; an errno. */
static int create_pinned(struct pw_thread *w, void *(*fn)(void *))
{
	cpu_set_t *set = CPU_ALLOC(w->cpu + 1);
	size_t size = CPU_ALLOC_SIZE(w->cpu + 1);
	pthread_attr_t attr;
	int err;

	if (!set)
		return ENOMEM;
	CPU_ZERO_S(size, set);
	CPU_SET_S(w->cpu, size, set);
	pthread_attr_init(&attr);
	err = pthread_attr_setaffinity_np(&attr, size, set);
	if (!err)
		err = pthread_create(&w->th, &attr, fn, w);
	pthread_attr_destroy(&attr);
	CPU_FREE(set);
	return err;
}

/* A waker of wake-parallel: FUTEX_WAKE(futex1, its share) once, timed, from the
 * barrier on. Not pinned, as perf's. */
static void *pw_waker(void *arg)
{
	struct pw_thread *w = arg;
	double t0;

	pthread_barrier_wait(&w->sh->barrier);
	t0 = now_s();
	sys_futex(&w->sh->futex1, FUTEX_WAKE | w->sh->flag, w->nwake, NULL, NULL, 0);
	w->secs = now_s() - t0;
	return NULL;
}

struct pw_report {
	struct child_status st;
	double figure;
};

/* Waits for `*counter` to reach n, looking each ms (and with `wake_left` waking
 * whoever still waits on either futex); false after PW_STUCK_S. */
static bool pw_until(_Atomic uint32_t *counter, uint32_t n, struct pw_shared *sh, bool wake_left)
{
	double t0 = now_s();

	while (atomic_load(counter) < n) {
		if (now_s() - t0 > PW_STUCK_S)
			return false;
		if (wake_left) {
			sys_futex(&sh->futex1, FUTEX_WAKE | sh->flag, INT_MAX, NULL, NULL, 0);
			sys_futex(&sh->futex2, FUTEX_WAKE | sh->flag, INT_MAX, NULL, NULL, 0);
		}
		usleep(1000);
	}
	return true;
}

/* One run of wake, wake-parallel or requeue: its times (seconds) added to *sum, *n. */
static int pw_one_run(const struct probe_suite_run *r, struct pw_shared *sh, struct pw_thread *bl, struct pw_thread *wk,
		      double *sum, uint32_t *n, struct pw_report *rep)
{
	uint32_t created = 0, done = 0;
	double t0;
	bool ok = true;

	atomic_store(&sh->futex1, 0);
	atomic_store(&sh->futex2, 0);
	atomic_store(&sh->woken, 0);
	sh->starting = r->threads;
	for (uint32_t i = 0; i < r->threads; i++, created++) {
		int err;

		bl[i].cpu = r->cpus[i % r->ncpus];
		bl[i].sh = sh;
		if ((err = create_pinned(&bl[i], pw_blocked)) != 0) {
			/* the started ones wait on the condition: the child exits */
			if (err == EINVAL)
				pin_refused(&rep->st, err, bl[i].cpu);
			else
				child_failed(&rep->st, err, "starting a thread");
			return -1;
		}
	}
	pthread_mutex_lock(&sh->lock);
	while (sh->starting)
		pthread_cond_wait(&sh->parent, &sh->lock);
	pthread_cond_broadcast(&sh->worker);
	pthread_mutex_unlock(&sh->lock);
	usleep((useconds_t)(PW_SETTLE_S * 1e6));
	if (ok && !strcmp(r->suite, "wake-parallel")) {
		if ((errno = pthread_barrier_init(&sh->barrier, NULL, r->wakers + 1)) != 0) {
			child_failed(&rep->st, errno, "pthread_barrier_init");
			ok = false;
		}
		for (uint32_t k = 0; ok && k < r->wakers; k++) {
			wk[k].sh = sh;
			wk[k].nwake = r->threads / r->wakers;
			if ((errno = pthread_create(&wk[k].th, NULL, pw_waker, &wk[k])) != 0) {
				child_failed(&rep->st, errno, "starting a waker");
				ok = false; /* the started wakers wait at the barrier: the child exits */
				break;
			}
		}
		if (ok) {
			pthread_barrier_wait(&sh->barrier);
			for (uint32_t k = 0; k < r->wakers; k++) {
				pthread_join(wk[k].th, NULL);
				*sum += wk[k].secs;
				(*n)++;
			}
			pthread_barrier_destroy(&sh->barrier);
		}
	} else if (ok) {
		t0 = now_s();
		while (ok && done < r->threads) {
			long k = !strcmp(r->suite, "wake")
					 ? sys_futex(&sh->futex1, FUTEX_WAKE | sh->flag, r->nwake, NULL, NULL, 0)
					 : sys_futex(&sh->futex1, FUTEX_CMP_REQUEUE | sh->flag, 0,
						     (const void *)(uintptr_t)r->nrequeue, &sh->futex2, 0);

			done += k > 0 ? (uint32_t)k : 0;
			if (now_s() - t0 > PW_STUCK_S) {
				child_failed(&rep->st, ETIMEDOUT, "its wake or requeue loop");
				ok = false;
			}
		}
		if (ok) {
			*sum += now_s() - t0;
			(*n)++;
		}
	}
	/* everyone back (requeue: woken from futex2), then joined */
	if (created && !pw_until(&sh->woken, created, sh, true)) {
		child_failed(&rep->st, ETIMEDOUT, "waking its threads at the end of a run");
		return -1; /* some still blocked: the child exits */
	}
	for (uint32_t i = 0; i < created; i++)
		pthread_join(bl[i].th, NULL);
	return ok && !rep->st.status ? 0 : -1;
}

static void *lp_main(void *arg)
{
	struct pw_thread *w = arg;
	struct pw_shared *sh = w->sh;
	uint64_t ops = 0;
	double t0;

	w->pin_err = probe_pin_self(w->cpu);
	pthread_barrier_wait(&sh->barrier);
	t0 = now_s();
	while (!w->pin_err && !atomic_load_explicit(&sh->done, memory_order_relaxed)) {
		/* perf's loop: both syscalls every time, usleep(1) holding the lock */
		while (sys_futex(w->word, FUTEX_LOCK_PI | sh->flag, 0, NULL, NULL, 0) != 0)
			if (atomic_load(&sh->done))
				goto out;
		usleep(1);
		sys_futex(w->word, FUTEX_UNLOCK_PI | sh->flag, 0, NULL, NULL, 0);
		ops++;
	}
out:
	w->secs = now_s() - t0;
	w->ops = ops;
	return NULL;
}

static void lp_child(const struct probe_suite_run *r, struct pw_shared *sh, struct pw_thread *th, struct pw_report *rep)
{
	uint64_t *per = calloc(r->threads, sizeof(*per));
	_Atomic uint32_t *words = calloc(r->threads, 64);
	uint32_t created = 0;

	if (!per || !words || (errno = pthread_barrier_init(&sh->barrier, NULL, r->threads + 1)) != 0) {
		child_failed(&rep->st, per && words ? errno : ENOMEM, "setting up its threads");
		return;
	}
	for (uint32_t i = 0; i < r->threads; i++, created++) {
		th[i].cpu = r->cpus[i % r->ncpus];
		th[i].sh = sh;
		th[i].word = r->multi ? &words[i * 16] : &sh->futex1; /* -M: a futex each, on lines of their own */
		if ((errno = pthread_create(&th[i].th, NULL, lp_main, &th[i])) != 0) {
			child_failed(&rep->st, errno, "starting a thread");
			return; /* the started ones wait at the barrier: the child exits */
		}
	}
	pthread_barrier_wait(&sh->barrier);
	usleep((useconds_t)(r->seconds * 1e6));
	atomic_store(&sh->done, 1);
	for (uint32_t i = 0; i < created; i++) {
		pthread_join(th[i].th, NULL);
		pin_refused(&rep->st, th[i].pin_err, th[i].cpu);
		per[i] = perf_ops_per_sec(th[i].ops, th[i].secs);
	}
	rep->figure = (double)perf_average(per, r->threads).mean;
}

static void pw_child(const void *ctx, void *report)
{
	const struct probe_suite_run *r = ctx;
	struct pw_report *rep = report;
	struct pw_shared *sh = NULL;
	struct pw_thread *bl = calloc(r->threads, sizeof(*bl)), *wk = calloc(r->wakers, sizeof(*wk));
	double sum = 0;
	uint32_t n = 0;

	if (!bl || !wk || posix_memalign((void **)&sh, 128, sizeof(*sh)) != 0) {
		child_failed(&rep->st, ENOMEM, "allocating its threads");
		return;
	}
	memset(sh, 0, sizeof(*sh));
	sh->flag = r->shared ? 0 : FUTEX_PRIVATE_FLAG;
	if (pthread_mutex_init(&sh->lock, NULL) || pthread_cond_init(&sh->parent, NULL) ||
	    pthread_cond_init(&sh->worker, NULL)) {
		child_failed(&rep->st, EAGAIN, "initialising its mutex and conditions");
		return;
	}
	if (!strcmp(r->suite, "lock-pi")) {
		lp_child(r, sh, bl, rep);
		return;
	}
	for (uint32_t run = 0; run < r->runs; run++)
		if (pw_one_run(r, sh, bl, wk, &sum, &n, rep) < 0)
			return;
	rep->figure = n ? sum / n * 1e3 : NAN; /* ms, as perf prints it */
}

int probe_suite_run(const struct probe_suite_run *r, double *figure, struct fs_error *e)
{
	struct pw_report rep;
	double timeout = CHILD_GRACE_S + (!strcmp(r->suite, "lock-pi") ? r->seconds : r->runs * (PW_SETTLE_S + 0.5));
	char what[64];

	*figure = NAN;
	if (!r->threads || !r->ncpus)
		return fs_fail(e, FS_ERR_RUNTIME, "perf's %s loop: no threads or no CPUs", r->suite);
	snprintf(what, sizeof(what), "futexsim's loop of perf's futex %s", r->suite);
	if (in_child(pw_child, r, &rep, sizeof(rep), timeout, what, e) < 0)
		return -1;
	*figure = rep.figure;
	return 0;
}
