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
 * waits on its own word. Thread k (the message threads first, then each one's
 * workers) is pinned to cpus[k mod ncpus], as the simulation places them. */
#define _GNU_SOURCE /* sched_setaffinity, syscall */
#include "sim/probe/probe.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/futex.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
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
	uint32_t cpu;
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

static void *sb_main(void *arg)
{
	struct sb_thread *me = arg;
	struct sb_run *run = me->run;
	uint64_t calls = 0, requests = 0;

	me->pin_err = probe_pin_self(me->cpu);
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

/* What the child reports. */
struct sb_report {
	int status; /* 0 ran, 2 a pin refused (cpu, err), 3 other failure (err, what) */
	int err;
	uint32_t cpu;
	char what[80];
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

static void sb_child(const struct probe_schbench_run *r, struct sb_report *rep)
{
	uint32_t n = r->m * (r->t + 1), created = 0;
	struct sb_thread *th = NULL;
	struct sb_run *run = NULL;
	uint64_t *hist = calloc(SB_HIST_US + 1, sizeof(*hist));
	double t0, t1, stop_at;

	if (!hist || posix_memalign((void **)&th, 128, n * sizeof(*th)) != 0 ||
	    posix_memalign((void **)&run, 128, sizeof(*run)) != 0) {
		rep->status = 3;
		rep->err = ENOMEM;
		snprintf(rep->what, sizeof(rep->what), "allocating the threads");
		return;
	}
	memset(th, 0, n * sizeof(*th));
	memset(run, 0, sizeof(*run));
	if ((rep->err = pthread_barrier_init(&run->start, NULL, n + 1)) != 0) {
		rep->status = 3;
		snprintf(rep->what, sizeof(rep->what), "pthread_barrier_init");
		return;
	}
	for (uint32_t k = 0; k < n; k++) {
		th[k].cpu = r->cpus[k % r->ncpus];
		th[k].msg = k < r->m;
		th[k].group = th[k].msg ? NULL : &th[(k - r->m) / r->t];
		th[k].run = run;
		if (!th[k].msg && !(th[k].hist = calloc(SB_HIST_US + 1, sizeof(uint32_t)))) {
			rep->status = 3;
			rep->err = ENOMEM;
			snprintf(rep->what, sizeof(rep->what), "allocating the latency histograms");
			return; /* the child exits: nothing started waits */
		}
	}
	for (uint32_t k = 0; k < n; k++) {
		int err = pthread_create(&th[k].th, NULL, sb_main, &th[k]);

		if (err) {
			/* the started ones wait at the barrier for ever: the child exits */
			rep->status = 3;
			rep->err = err;
			snprintf(rep->what, sizeof(rep->what), "starting thread %" PRIu32, k);
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
		rep->status = 3;
		rep->err = ETIMEDOUT;
		snprintf(rep->what, sizeof(rep->what), "stopping its threads");
		return;
	}
	for (uint32_t k = 0; k < n; k++) {
		pthread_join(th[k].th, NULL);
		if (th[k].pin_err && !rep->status) {
			rep->status = 2;
			rep->err = th[k].pin_err;
			rep->cpu = th[k].cpu;
		}
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

int probe_schbench_run(const struct probe_schbench_run *r, struct probe_schbench_result *out, struct fs_error *e)
{
	struct sb_report rep;
	int fds[2], status = 0;
	size_t got = 0;
	double deadline;
	pid_t pid;

	memset(out, 0, sizeof(*out));
	if (!r->m || !r->t || !r->ncpus)
		return fs_fail(e, FS_ERR_RUNTIME, "schbench loop: no threads or no CPUs");
	if (pipe(fds) < 0)
		return fs_fail(e, FS_ERR_RUNTIME, "pipe: %s", strerror(errno));
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return fs_fail(e, FS_ERR_RUNTIME, "cannot start a process for the schbench loop: fork: %s", strerror(errno));
	}
	if (pid == 0) {
		const char *p = (const char *)&rep;
		size_t left = sizeof(rep);

		close(fds[0]);
		memset(&rep, 0, sizeof(rep));
		sb_child(r, &rep);
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
	/* bounded: a child that hangs is killed (it is ours: its pid) */
	deadline = now_s() + SB_WARMUP_S + r->seconds + CHILD_GRACE_S;
	while (got < sizeof(rep)) {
		struct pollfd pfd = { fds[0], POLLIN, 0 };
		double left = deadline - now_s();
		ssize_t k;

		if (left <= 0 || poll(&pfd, 1, (int)(left * 1000) + 1) == 0) {
			kill(pid, SIGKILL);
			break;
		}
		k = read(fds[0], (char *)&rep + got, sizeof(rep) - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	close(fds[0]);
	waitpid(pid, &status, 0);
	if (got < sizeof(rep))
		return fs_fail(e, FS_ERR_RUNTIME, "the schbench loop's process %s before reporting",
			       WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL ? "hung and was killed" : "died");
	if (rep.status == 2)
		return probe_pin_failed(e, rep.cpu, rep.err, "futexsim probe --check pins the schbench loop's threads");
	if (rep.status)
		return fs_fail(e, FS_ERR_RUNTIME, "the schbench loop failed %s: %s", rep.what, strerror(rep.err));
	*out = rep.res;
	return 0;
}
