/* SPDX-License-Identifier: MIT */
/* Recorded futex traces (docs/trace.md): the format's reader refuses each kind of
 * damage with FILE:LINE:COL, writes back what it read; the causal links follow the
 * kernel's FIFO queues (the traces of tests/traces/, worked by hand in their comments and
 * below); the replay keeps each thread's user-space time to the picosecond, blocks
 * a woken wait until its wake, holds a wake until its waiter is queued, and counts
 * what it cannot honour; the tracers' output parses into the trace it describes;
 * and, where strace may trace, a real program recorded, replayed, written and
 * read back (skipped loudly otherwise). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "models/workloads/trace.h"
#include "models/workloads/tracefile.h"
#include "sim/record.h"
#include "tests/testutil.h"

#define PS_PER_NS 1000ull

static int read_text(const char *text, struct trace *t, struct fs_error *e)
{
	return trace_read_mem(text, strlen(text), "t.trace", t, e);
}

/* The index of the event on `line` of its file. */
static uint32_t at_line(const struct trace *t, uint32_t line)
{
	for (uint32_t i = 0; i < t->nevents; i++)
		if (t->events[i].line == line)
			return i;
	ck_abort_msg("no event on line %u", line);
	return 0;
}

/* --- the reader --- */

START_TEST(test_read_basic)
{
	struct trace t;
	struct fs_error e = { 0 };
	const struct trace_event *ev;

	ck_assert_msg(trace_read_file("tests/traces/basic.trace", &t, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(t.nthreads, 3);
	ck_assert_uint_eq(t.nprocs, 1);
	ck_assert_uint_eq(t.nevents, 10);
	ck_assert_str_eq(t.tracer, "hand");
	ck_assert(!t.cpus_recorded);
	ck_assert_uint_eq(t.end_ns, 50000);
	ev = &t.events[at_line(&t, 13)];
	ck_assert_uint_eq(ev->op, FX_WAIT | FX_PRIVATE_FLAG);
	ck_assert_uint_eq(ev->uaddr, 0x2000);
	ck_assert_uint_eq(ev->val, 1);
	ck_assert_int_eq(ev->ret, -11);
	/* a child starts when its creator's clone returns */
	ck_assert_uint_eq(t.threads[1].start, 1000);
	ck_assert_uint_eq(t.threads[2].start, 2000);
	trace_free(&t);
}
END_TEST

/* Written back, the trace reads the same and writes the same text. */
START_TEST(test_round_trip)
{
	static const char *const files[] = { "tests/traces/basic.trace", "tests/traces/requeue.trace",
					     "tests/traces/unhonoured.trace" };

	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		struct trace a, b;
		struct fs_error e = { 0 };
		char *ta = NULL, *tb = NULL;
		size_t la = 0, lb = 0;
		FILE *fa = open_memstream(&ta, &la), *fb = open_memstream(&tb, &lb);

		ck_assert_msg(trace_read_file(files[f], &a, &e) == 0, "%s", e.msg);
		ck_assert_int_eq(trace_write(&a, fa), 0);
		fclose(fa);
		ck_assert_msg(read_text(ta, &b, &e) == 0, "%s: %s", files[f], e.msg);
		ck_assert_int_eq(trace_write(&b, fb), 0);
		fclose(fb);
		ck_assert_str_eq(ta, tb);
		ck_assert_uint_eq(a.nevents, b.nevents);
		for (uint32_t i = 0; i < a.nevents; i++) {
			ck_assert_uint_eq(a.events[i].t, b.events[i].t);
			ck_assert_uint_eq(a.events[i].dur, b.events[i].dur);
			ck_assert_uint_eq(a.events[i].op, b.events[i].op);
			ck_assert_int_eq(a.events[i].ret, b.events[i].ret);
			ck_assert_uint_eq(a.link.calls[i].fate, b.link.calls[i].fate);
		}
		trace_free(&a);
		trace_free(&b);
		free(ta);
		free(tb);
	}
}
END_TEST

#define HEAD "futexsim-trace 1\ncpus absent\nthread 1 1\n"

/* Each damage refused at its line and column, with what is wrong. */
START_TEST(test_refusals)
{
	static const struct {
		const char *text, *where, *what;
	} bad[] = {
		{ "", "t.trace:1:1:", "empty" },
		{ "# only a comment\n", "t.trace:1:1:", "empty" },
		{ "futexsim-trace\n", "t.trace:1:1:", "not a futexsim trace" },
		{ "strace 6.1\n", "t.trace:1:1:", "not a futexsim trace" },
		{ "futexsim-trace 2\n", "t.trace:1:16:", "version '2'" },
		{ "futexsim-trace 1\nhello\n", "t.trace:2:1:", "unknown line 'hello'" },
		{ "futexsim-trace 1\ncpus maybe\n", "t.trace:2:6:", "recorded" },
		{ "futexsim-trace 1\n", "t.trace:1:1:", "no threads" },
		{ HEAD "thread 1 1\n", "t.trace:4:1:", "declared twice" },
		{ HEAD "thread 2 1 parent=7\n", "t.trace:4:1:", "not declared before it" },
		{ HEAD "thread 0 1\n", "t.trace:4:8:", "at least 1" },
		{ HEAD "thread 2 1 color=red\n", "t.trace:4:12:", "unexpected 'color=red'" },
		{ HEAD "10 2 exit\n", "t.trace:4:4:", "thread 2 is not declared" },
		{ HEAD "10 1 exit\n5 1 exit\n", "t.trace:5:1:", "time goes back" },
		{ HEAD "10 1 nap\n", "t.trace:4:6:", "unknown event 'nap'" },
		{ HEAD "10 1 futex SLEEP 0x1000 0 dur=1 ret=0\n", "t.trace:4:12:", "unknown futex op 'SLEEP'" },
		{ HEAD "10 1 futex WAIT|PRIVATE|PRIVATE 0x1000 0 dur=1 ret=0\n", "t.trace:4:12:", "unknown futex op" },
		{ HEAD "10 1 futex WAIT 4096 0 dur=1 ret=0\n", "t.trace:4:17:", "hex address" },
		{ HEAD "10 1 futex WAIT 0x1000 -1 dur=1 ret=0\n", "t.trace:4:24:", "val" },
		{ HEAD "10 1 futex WAIT 0x1000 0 dur=1\n", "t.trace:4:", "needs ret=" },
		{ HEAD "10 1 futex WAIT 0x1000 0 ret=0\n", "t.trace:4:", "needs dur=" },
		{ HEAD "10 1 futex WAIT 0x1000 0 dur=5 ret=?\n", "t.trace:4:", "has no dur=" },
		{ HEAD "10 1 futex WAIT 0x1000 0 dur=1 ret=-EWHAT\n", "t.trace:4:32:", "unknown error '-EWHAT'" },
		{ HEAD "10 1 futex WAIT 0x1000 0 dur=1 dur=2 ret=0\n", "t.trace:4:32:", "repeated or unknown" },
		{ HEAD "10 1 futex WAIT 0x1000 0 val3=1 dur=1 ret=0\n", "t.trace:4:", "val3= given" },
		{ HEAD "99999999999999999999 1 exit\n", "t.trace:4:1:", "time (ns)" },
		{ HEAD "3600000000000 1 sleep dur=1\n", "t.trace:4:1:", "at most an hour" },
		{ HEAD "10 1 futex WAKE 0x1000 1 dur=1 ret=5\n", "t.trace:4:1:", "more than it can" },
		{ HEAD "10 1 futex WAIT 0x1001 0 dur=1 ret=0\n", "t.trace:4:1:", "not 4-byte aligned" },
		{ HEAD "10 1 futex CMP_REQUEUE 0x1000 1 dur=1 ret=0\n", "t.trace:4:1:", "needs uaddr2= and val2=" },
		{ HEAD "10 1 futex WAKE_BITSET 0x1000 1 val3=0 dur=1 ret=0\n", "t.trace:4:1:", "bitset 0" },
		{ HEAD "10 1 exit\n20 1 exit\n", "t.trace:5:1:", "after its exit" },
		{ HEAD "10 1 futex WAIT 0x1000 0 ret=?\n20 1 exit\n", "t.trace:5:1:", "never returned" },
		{ HEAD "10 1 exit cpu=1\n", "t.trace:4:1:", "cpus absent" },
		{ HEAD "thread 2 1 parent=1 cpu=3\n10 1 clone 2 dur=1\n", "t.trace:4:1:", "thread 2: cpu= given" },
		{ HEAD "10 1 exit\ntracer late\n", "t.trace:5:1:", "after the first event" },
		{ HEAD "thread 2 1 parent=1\n10 2 exit\n", "t.trace:5:1:", "before the clone that creates it" },
		{ HEAD "thread 2 1 parent=1\n", "t.trace:4:1:", "no clone creates it" },
		{ HEAD "thread 2 1\n10 1 clone 2 dur=1\n", "t.trace:5:1:", "not declared with this parent" },
		{ HEAD "thread 2 1 parent=1\n10 1 clone 2 dur=1\n20 1 clone 2 dur=1\n", "t.trace:6:1:", "created twice" },
		{ HEAD "10 1 clone 9 dur=1\n", "t.trace:4:12:", "not declared" },
		{ HEAD "1 1 exit a b c d e f g h i j k l m n o p q r s t u v w x y z 1 2 3 4 5 6\n", "t.trace:4:1:", "fields" },
		{ "futexsim-trace 1\ntracer " "0123456789012345678901234567890123456789012345678901234567890123456789\n",
		  "t.trace:2:8:", "at most 63" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct trace t;
		struct fs_error e = { 0 };

		ck_assert_msg(read_text(bad[i].text, &t, &e) < 0, "case %zu accepted: %s", i, bad[i].text);
		ck_assert_int_eq(e.status, FS_ERR_INPUT);
		ck_assert_msg(strstr(e.msg, bad[i].where) == e.msg && strstr(e.msg, bad[i].what),
			      "case %zu: '%s' (expected %s ... %s)", i, e.msg, bad[i].where, bad[i].what);
	}
}
END_TEST

/* What is not text: a NUL byte, a line past 4 KiB. */
START_TEST(test_refusals_binary)
{
	char nul[] = HEAD "10 1 exit\0\n";
	char *big = malloc(TRACE_MAX_LINE + 64);
	struct trace t;
	struct fs_error e = { 0 };

	ck_assert(trace_read_mem(nul, sizeof(nul) - 1, "t.trace", &t, &e) < 0);
	ck_assert_msg(strstr(e.msg, "t.trace:4:1:") && strstr(e.msg, "NUL"), "%s", e.msg);
	snprintf(big, TRACE_MAX_LINE + 64, HEAD "# ");
	memset(big + strlen(big), 'x', TRACE_MAX_LINE);
	big[strlen(HEAD) + 2 + TRACE_MAX_LINE] = '\0';
	ck_assert(read_text(big, &t, &e) < 0);
	ck_assert_msg(strstr(e.msg, "t.trace:4:1:") && strstr(e.msg, "longer than"), "%s", e.msg);
	free(big);
}
END_TEST

/* --- the causal links --- */

/* Two waiters, two wakes of one: FIFO. The waiter queued first goes with the first wake. */
START_TEST(test_link_fifo)
{
	struct trace t;
	struct fs_error e = { 0 };
	const struct trace_call *w2, *w3, *k1, *k2;

	ck_assert(trace_read_file("tests/traces/basic.trace", &t, &e) == 0);
	w2 = &t.link.calls[at_line(&t, 10)];
	w3 = &t.link.calls[at_line(&t, 11)];
	k1 = &t.link.calls[at_line(&t, 12)];
	k2 = &t.link.calls[at_line(&t, 14)];
	ck_assert_uint_eq(w2->fate, TF_WAIT_BLOCK);
	ck_assert_uint_eq(w3->fate, TF_WAIT_BLOCK);
	ck_assert_uint_eq(t.link.calls[at_line(&t, 13)].fate, TF_WAIT_EAGAIN);
	/* each wake its own class, the class of the waiter it woke */
	ck_assert_uint_eq(k1->take.cls, w2->cls);
	ck_assert_uint_eq(k2->take.cls, w3->cls);
	ck_assert_uint_ne(w2->cls, w3->cls);
	ck_assert_uint_eq(k1->take.n, 1);
	ck_assert_uint_eq(k1->unmatched, 0);
	/* one word, one key; the EAGAIN's another */
	ck_assert_uint_eq(w2->key, w3->key);
	ck_assert_uint_eq(t.link.nkeys, 2);
	trace_free(&t);
}
END_TEST

/* A wake of bitset 2 passes a waiter of bitset 1 over; a waiter that returned
 * before the wake began cannot be its; one that entered while it ran can. */
START_TEST(test_link_bitset_stale_lookahead)
{
	static const char text[] = HEAD "thread 2 1 parent=1\nthread 3 1 parent=1\n"
				   "0 1 clone 2 dur=10\n0 1 clone 3 dur=10\n"
				   "100 2 futex WAIT_BITSET|PRIVATE 0x1000 0 val3=0x1 dur=10000 ret=0\n"  /* line 8 */
				   "200 3 futex WAIT_BITSET|PRIVATE 0x1000 0 val3=0x2 dur=800 ret=0\n"    /* line 9 */
				   "1000 1 futex WAKE_BITSET|PRIVATE 0x1000 1 val3=0x2 dur=100 ret=1\n"   /* line 10 */
				   "2000 1 futex WAKE_BITSET|PRIVATE 0x1000 1 val3=0x1 dur=3000 ret=1\n"; /* line 11 */
	static const char stale[] = HEAD "thread 2 1 parent=1\n0 1 clone 2 dur=10\n"
				    "100 2 futex WAIT|PRIVATE 0x1000 0 dur=400 ret=0\n"   /* returns at 500 */
				    "1000 1 futex WAKE|PRIVATE 0x1000 1 dur=100 ret=1\n"; /* begins at 1000 */
	static const char ahead[] = HEAD "thread 2 1 parent=1\n0 1 clone 2 dur=10\n"
				    "1000 1 futex WAKE|PRIVATE 0x1000 1 dur=500 ret=1\n"
				    "1200 2 futex WAIT|PRIVATE 0x1000 0 dur=400 ret=0\n";
	struct trace t;
	struct fs_error e = { 0 };

	ck_assert_msg(read_text(text, &t, &e) == 0, "%s", e.msg);
	/* thread 3 (bitset 2) returned at 1000 + 0: the first wake, bitset 2, takes it although thread 2 queued first */
	ck_assert_uint_eq(t.link.calls[at_line(&t, 10)].take.cls, t.link.calls[at_line(&t, 9)].cls);
	ck_assert_uint_eq(t.link.calls[at_line(&t, 11)].take.cls, t.link.calls[at_line(&t, 8)].cls);
	trace_free(&t);

	ck_assert_msg(read_text(stale, &t, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(t.link.calls[at_line(&t, 6)].fate, TF_WAIT_UNMATCHED);
	ck_assert_uint_eq(t.link.calls[at_line(&t, 7)].unmatched, 1);
	ck_assert_uint_eq(t.link.unmatched_woken, 1);
	trace_free(&t);

	ck_assert_msg(read_text(ahead, &t, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(t.link.calls[at_line(&t, 7)].fate, TF_WAIT_BLOCK);
	ck_assert_uint_eq(t.link.calls[at_line(&t, 6)].take.cls, t.link.calls[at_line(&t, 7)].cls);
	ck_assert_uint_eq(t.link.calls[at_line(&t, 6)].unmatched, 0);
	trace_free(&t);
}
END_TEST

/* tests/traces/requeue.trace: the requeue wakes thread 2, moves 3 and 4 (in their
 * queueing order) to the second word, whose wakes take 3, then 4. The first word's
 * three waiters are one ranked class (woken first, then moved); the moved ones on
 * the second word another, taken by two wakes in turn. Thread 2's exit wakes the
 * join, whose word is its clear_child_tid. */
START_TEST(test_link_requeue_and_exit)
{
	struct trace t;
	struct fs_error e = { 0 };
	const struct trace_call *w2, *w3, *w4, *rq, *k1, *k2, *join, *ex;

	ck_assert(trace_read_file("tests/traces/requeue.trace", &t, &e) == 0);
	w2 = &t.link.calls[at_line(&t, 13)];
	w3 = &t.link.calls[at_line(&t, 14)];
	w4 = &t.link.calls[at_line(&t, 15)];
	rq = &t.link.calls[at_line(&t, 16)];
	k1 = &t.link.calls[at_line(&t, 17)];
	k2 = &t.link.calls[at_line(&t, 18)];
	join = &t.link.calls[at_line(&t, 19)];
	ex = &t.link.calls[at_line(&t, 20)];
	ck_assert(w2->cls == w3->cls && w3->cls == w4->cls);
	ck_assert_uint_eq(w2->rank, 0);
	ck_assert_uint_eq(w3->rank, 1);
	ck_assert_uint_eq(w4->rank, 2);
	ck_assert_uint_eq(t.link.classes[w2->cls].nranks, 3);
	ck_assert_uint_eq(rq->take.cls, w2->cls);
	ck_assert_uint_eq(rq->take.rank_hi, 2);
	ck_assert_uint_eq(rq->woken, 1);
	ck_assert_uint_eq(rq->moved, 2);
	ck_assert_uint_eq(rq->ycls, k1->take.cls);
	ck_assert_uint_eq(k1->take.cls, k2->take.cls);
	ck_assert_uint_eq(k1->take.ordinal, 0);
	ck_assert_uint_eq(k2->take.ordinal, 1);
	ck_assert_uint_eq(k1->take.rank_hi, 0);
	ck_assert_uint_eq(k2->take.rank_hi, 1);
	ck_assert_uint_eq(join->fate, TF_WAIT_BLOCK);
	ck_assert_uint_eq(ex->take.cls, join->cls);
	ck_assert_uint_eq(t.link.exit_wakes, 1);
	ck_assert(t.link.keys[join->key].shared);
	trace_free(&t);
}
END_TEST

/* Without clear_child_tid (perf cannot see it), the word of a wait whose value is a
 * thread's TID is taken for it (glibc's pthread_join); a wait never returned is
 * left waiting (not matched). */
START_TEST(test_link_inferred_cleartid_and_limbo)
{
	static const char text[] = HEAD "thread 7 1 parent=1\n0 1 clone 7 dur=10\n"
				   "100 1 futex WAIT 0x7f00 7 dur=900 ret=0\n"
				   "200 7 futex WAIT|PRIVATE 0x1000 0 ret=?\n"
				   "300 7 exit\n";
	static const char limbo[] = HEAD "thread 7 1 parent=1\n0 1 clone 7 dur=10\n"
				    "100 1 futex WAIT 0x7f00 7 dur=900 ret=0\n"
				    "200 7 futex WAIT|PRIVATE 0x1000 0 ret=?\n";
	struct trace t;
	struct fs_error e = { 0 };

	/* an exit after a call that never returned: refused */
	ck_assert(read_text(text, &t, &e) < 0);
	ck_assert_msg(read_text(limbo, &t, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(t.threads[1].cleartid, 0x7f00);
	ck_assert(t.threads[1].cleartid_inferred);
	ck_assert_uint_eq(t.link.cleartid_inferred, 1);
	ck_assert_uint_eq(t.link.calls[at_line(&t, 7)].fate, TF_WAIT_LIMBO);
	/* thread 7 never exits: the join's wake is not in the trace */
	ck_assert_uint_eq(t.link.calls[at_line(&t, 6)].fate, TF_WAIT_UNMATCHED);
	trace_free(&t);
}
END_TEST

/* --- the replay --- */

/* A scenario replaying tests/traces/NAME.trace on the small machine (a core per
 * thread: no SMT slowdown), user RMWs off, with `extra` YAML lines of the workload. */
static void replay(struct tu_run *r, const char *name, const char *extra)
{
	char text[1024];
	char *path;

	snprintf(text, sizeof(text),
		 "machine: small-1node\nkernel: linux-6.18\nworkload:\n  type: trace\n  trace: tests/traces/%s.trace\n"
		 "  user_rmw: false\n%s\nrun:\n  duration: 1s\n  warmup: 0\n",
		 name, extra ? extra : "");
	path = tu_write_temp(text);
	tu_run(r, path, NULL, 0);
	unlink(path);
	free(path);
}

static void times(const struct tu_run *r, uint32_t line, simtime_t *start, simtime_t *end)
{
	const struct trace *t = trace_replay_trace(r->s.wl);

	ck_assert_msg(trace_replay_times(r->s.wl, at_line(t, line), start, end), "line %u not replayed", line);
}

/* tests/traces/basic.trace by hand (ns of the trace; ps of the replay):
 *   thread 1: clone 2 [0, 1000): the child from 1 us; clone 3 [1000, 2000): from 2 us;
 *     user time 8 us, so its first wake starts at 10 us exactly; then the EAGAIN at
 *     once (0 user time), then 7.5 us (20000 - 12500), the second wake; 28 us after
 *     it (50000 - 22000), exit_group: the run's end;
 *   thread 2: 4 us after its start (5000 - 1000): its wait at 5 us exactly, woken by
 *     the first wake; thread 3: 4 us after 2 us: its wait at 6 us, woken by the second.
 * Blocked: the two waits; recorded 20 + 30 us. */
START_TEST(test_replay_basic)
{
	struct tu_run r;
	simtime_t s_w2, e_w2, s_w3, e_w3, s_k1, e_k1, s_ea, e_ea, s_k2, e_k2;

	replay(&r, "basic", NULL);
	times(&r, 10, &s_w2, &e_w2);
	times(&r, 11, &s_w3, &e_w3);
	times(&r, 12, &s_k1, &e_k1);
	times(&r, 13, &s_ea, &e_ea);
	times(&r, 14, &s_k2, &e_k2);
	ck_assert_uint_eq(s_w2, 5000 * PS_PER_NS);
	ck_assert_uint_eq(s_w3, 6000 * PS_PER_NS);
	ck_assert_uint_eq(s_k1, 10000 * PS_PER_NS);
	ck_assert_uint_eq(s_ea, e_k1);
	ck_assert_uint_eq(s_k2, e_ea + 7500 * PS_PER_NS);
	/* causal: each waiter back after the wake the trace says woke it, the second not before the second wake */
	ck_assert(e_w2 > s_k1 && e_w2 < s_k2);
	ck_assert(e_w3 > s_k2);
	/* the EAGAIN did not sleep: a path's length, not a wake-up's */
	ck_assert(e_ea - s_ea < 2000 * PS_PER_NS);
	ck_assert_uint_eq(r.s.tasks.v[0].stats.wakeups, 0);
	ck_assert_uint_eq(r.s.tasks.v[1].stats.wakeups, 1);
	ck_assert_uint_eq(r.s.tasks.v[2].stats.wakeups, 1);
	ck_assert_double_eq(tu_figure(&r, "calls_recorded"), 5);
	ck_assert_double_eq(tu_figure(&r, "calls_replayed"), 5);
	ck_assert_double_eq(tu_figure(&r, "run_time"), (double)(e_k2 + 28000 * PS_PER_NS));
	ck_assert_double_eq(tu_figure(&r, "run_time_recorded"), 50000.0 * PS_PER_NS);
	ck_assert_double_eq(tu_figure(&r, "blocked_time"), (double)(e_w2 - s_w2 + e_w3 - s_w3));
	ck_assert_double_eq(tu_figure(&r, "blocked_time_recorded"), 50000.0 * PS_PER_NS);
	ck_assert_double_eq(tu_figure(&r, "waits_woken"), 2);
	ck_assert_double_eq(tu_figure(&r, "waits_eagain"), 1);
	ck_assert_double_eq(tu_figure(&r, "causal_holds"), 0);
	ck_assert_double_eq(tu_figure(&r, "threads_stuck"), 0);
	/* the ops counted: a replayed call each */
	ck_assert_uint_eq(r.s.tasks.v[0].ops + r.s.tasks.v[1].ops + r.s.tasks.v[2].ops, 5);
	tu_run_free(&r);
}
END_TEST

/* cpu_speed 2 halves user-space time, a tracer overhead comes off each gap:
 * thread 1's first wake at 2 us + 8 us / 2, or 2 us + (8 - 1) us. */
START_TEST(test_replay_speed_and_overhead)
{
	struct tu_run r;
	simtime_t s, e;

	replay(&r, "basic", "  cpu_speed: 2.0");
	times(&r, 12, &s, &e);
	ck_assert_uint_eq(s, 6000 * PS_PER_NS);
	times(&r, 10, &s, &e);
	ck_assert_uint_eq(s, 3000 * PS_PER_NS); /* thread 2: 1 us + 4 us / 2 */
	tu_run_free(&r);
	replay(&r, "basic", "  tracer_overhead: 1us");
	times(&r, 12, &s, &e);
	ck_assert_uint_eq(s, 9000 * PS_PER_NS);
	tu_run_free(&r);
}
END_TEST

/* The requeue's three, in the trace's order: thread 2 woken by the requeue, 3 by the
 * first wake of the second word, 4 by the second; the join back after thread 2's exit. */
START_TEST(test_replay_requeue)
{
	struct tu_run r;
	simtime_t s2, e2, s3, e3, s4, e4, srq, erq, sk1, ek1, sk2, ek2, sj, ej, sx, ex;
	uint64_t requeued = 0;

	replay(&r, "requeue", NULL);
	times(&r, 13, &s2, &e2);
	times(&r, 14, &s3, &e3);
	times(&r, 15, &s4, &e4);
	times(&r, 16, &srq, &erq);
	times(&r, 17, &sk1, &ek1);
	times(&r, 18, &sk2, &ek2);
	times(&r, 19, &sj, &ej);
	times(&r, 20, &sx, &ex);
	ck_assert(e2 > srq && e2 < sk1);
	ck_assert(e3 > sk1 && e3 < sk2);
	ck_assert(e4 > sk2);
	ck_assert(ej > sx);
	for (uint32_t i = 0; i < r.s.tasks.n; i++)
		requeued += r.s.tasks.v[i].stats.requeued;
	ck_assert_uint_eq(requeued, 2);
	ck_assert_double_eq(tu_figure(&r, "exit_wakes"), 1);
	ck_assert_double_eq(tu_figure(&r, "waits_woken"), 4);
	ck_assert_double_eq(tu_figure(&r, "requeues"), 1);
	ck_assert_double_eq(tu_figure(&r, "calls_replayed"), 7);
	ck_assert_double_eq(tu_figure(&r, "threads_stuck"), 0);
	tu_run_free(&r);
}
END_TEST

/* The wake came before its waiter queued: held until it did, then it woke it. */
START_TEST(test_replay_hold)
{
	struct tu_run r;
	simtime_t sk, ek, sw, ew;

	replay(&r, "hold", NULL);
	times(&r, 9, &sk, &ek);
	times(&r, 10, &sw, &ew);
	ck_assert_uint_eq(sw, 10500 * PS_PER_NS);
	ck_assert(sk > sw);
	ck_assert(ew > sk);
	ck_assert_double_eq(tu_figure(&r, "causal_holds"), 1);
	ck_assert_double_eq(tu_figure(&r, "causal_hold_time"), (double)(sk - 10000 * PS_PER_NS));
	ck_assert_uint_eq(r.s.tasks.v[1].stats.wakeups, 1);
	tu_run_free(&r);
}
END_TEST

/* Counted, not dropped: the timeout (the EAGAIN path, then asleep its recorded
 * 50 us), the wake of one with nobody waiting, the PI op (its 4 us as work). */
START_TEST(test_replay_unhonoured)
{
	struct tu_run r;
	simtime_t st, et, sk, ek, sp, ep;

	replay(&r, "unhonoured", NULL);
	times(&r, 7, &st, &et);
	times(&r, 8, &sk, &ek);
	times(&r, 9, &sp, &ep);
	ck_assert_uint_eq(st, 1000 * PS_PER_NS);
	ck_assert(et - st >= 50000 * PS_PER_NS && et - st < 52000 * PS_PER_NS);
	ck_assert_uint_eq(sk, et + 9000 * PS_PER_NS);
	ck_assert_uint_eq(ep - sp, 4000 * PS_PER_NS);
	ck_assert_double_eq(tu_figure(&r, "timeouts"), 1);
	ck_assert_double_eq(tu_figure(&r, "woken_without_waiter"), 1);
	ck_assert_double_eq(tu_figure(&r, "unsupported_calls"), 1);
	ck_assert_double_eq(tu_figure(&r, "calls_recorded"), 3);
	ck_assert_double_eq(tu_figure(&r, "calls_replayed"), 2);
	ck_assert_double_eq(tu_figure(&r, "blocked_time"), (double)(et - st));
	tu_run_free(&r);
}
END_TEST

/* Impossible traces end the run: two threads each asleep for the other's wake
 * (stuck, counted), or a wake held for a waiter that cannot come first (the hold
 * broken, counted: the wake finds nobody; the rest goes on). */
START_TEST(test_replay_deadlocks)
{
	struct tu_run r;

	replay(&r, "stuck", NULL);
	ck_assert_double_eq(tu_figure(&r, "threads_stuck"), 2);
	ck_assert(r.s.tasks.finished);
	tu_run_free(&r);
	replay(&r, "broken", NULL);
	ck_assert_double_eq(tu_figure(&r, "holds_broken"), 1);
	ck_assert_double_eq(tu_figure(&r, "threads_stuck"), 0);
	ck_assert_uint_eq(r.s.tasks.v[1].stats.wakeups, 1);
	ck_assert(r.s.tasks.finished);
	tu_run_free(&r);
}
END_TEST

/* With the trace's CPUs, each thread goes where most of its calls ran. */
START_TEST(test_replay_placement)
{
	static const char text[] = "futexsim-trace 1\ncpus recorded\nthread 1 1\nthread 2 1 parent=1\n"
				   "0 1 clone 2 dur=1000 cpu=3\n"
				   "5000 2 futex WAIT|PRIVATE 0x1000 1 dur=500 ret=-EAGAIN cpu=6\n"
				   "6000 2 futex WAIT|PRIVATE 0x1000 1 dur=500 ret=-EAGAIN cpu=6\n"
				   "7000 2 futex WAIT|PRIVATE 0x1000 1 dur=500 ret=-EAGAIN cpu=2\n"
				   "8000 2 exit cpu=6\n9000 1 exit_group cpu=3\n";
	char *tp = tu_write_temp(text), yaml[512], *sp;
	struct tu_run r;

	snprintf(yaml, sizeof(yaml),
		 "machine: small-1node\nkernel: linux-6.18\nworkload: {type: trace, trace: %s}\nrun: {duration: 1s, warmup: 0}\n",
		 tp);
	sp = tu_write_temp(yaml);
	tu_run(&r, sp, NULL, 0);
	ck_assert_uint_eq(r.s.tasks.v[0].cpu, 3);
	ck_assert_uint_eq(r.s.tasks.v[1].cpu, 6);
	tu_run_free(&r);
	{
		const char *sets[] = { "workload.placement=spread" };

		tu_run(&r, sp, sets, 1);
		ck_assert_uint_eq(r.s.tasks.v[0].cpu, 0);
		ck_assert_uint_eq(r.s.tasks.v[1].cpu, 1);
		tu_run_free(&r);
	}
	unlink(tp);
	unlink(sp);
	free(tp);
	free(sp);
}
END_TEST

/* --- the tracers' output --- */

/* strace -f -ttt -T -e raw=futex, as it prints (tests/traces: a program of three
 * threads, a requeue, a timeout; the threads killed in calls by exit_group). */
static const char strace_text[] =
	"500 1000.000100 execve(\"./p\", [\"./p\"], 0x7ffc /* 41 vars */) = 0 <0.000400>\n"
	"500 1000.001000 clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS"
	"|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID, child_tid=0x7f10, parent_tid=0x7f10, exit_signal=0, stack=0x7e00, "
	"stack_size=0x7fff80, tls=0x7f00} => {parent_tid=[501]}, 88) = 501 <0.000100>\n"
	"501  1000.001200 futex(0x5000, 0x80, 0, 0, 0, 0 <unfinished ...>\n"
	"500  1000.002000 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, "
	"child_tidptr=0x7f20) = 502 <0.000050>\n"
	"500  1000.003000 futex(0x5000, 0x84, 0x1, 0x7fffffff, 0x5004, 0) = 0x1 <0.000020>\n"
	"501  1000.003010 <... futex resumed>) = 0 <0.001810>\n"
	"501  1000.003100 futex(0x5004, 0x80, 0x1, 0, 0, 0) = -1 EAGAIN (Resource temporarily unavailable) <0.000005>\n"
	"500  1000.004000 futex(0x5008, 0x189, 0, 0x7ffd, 0, 0xffffffff) = -1 ETIMEDOUT (Connection timed out) <0.001000>\n"
	"500  1000.005000 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED} ---\n"
	"501  1000.006000 futex(0x5000, 0x80, 0, 0, 0, 0 <unfinished ...>\n"
	"502  1000.006500 exit_group(0)          = ?\n"
	"502  1000.006600 +++ exited with 0 +++\n"
	"500  1000.007000 exit_group(0)          = ?\n"
	"501  1000.007100 <... futex resumed>)   = ?\n"
	"501  1000.007200 +++ exited with 0 +++\n"
	"500  1000.007300 +++ exited with 0 +++\n";

START_TEST(test_parse_strace)
{
	FILE *f = fmemopen((void *)strace_text, sizeof(strace_text) - 1, "r");
	struct trace t;
	struct fs_error e = { 0 };
	const struct trace_event *ev;
	uint32_t child;

	ck_assert_msg(record_parse_strace(f, "s.txt", &t, &e) == 0, "%s", e.msg);
	fclose(f);
	ck_assert_msg(trace_finish(&t, "s.txt", &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(t.nthreads, 3);
	ck_assert_uint_eq(t.nprocs, 2); /* 502 is a fork: its own process */
	child = trace_thread_of(&t, 501);
	ck_assert_uint_eq(t.threads[child].pid, 500);
	ck_assert_uint_eq(t.threads[child].cleartid, 0x7f10);
	ck_assert_uint_eq(t.threads[trace_thread_of(&t, 502)].pid, 502);
	ck_assert_uint_eq(t.threads[trace_thread_of(&t, 502)].cleartid, 0x7f20);
	/* times from the exec's return (1000.000500) */
	ev = &t.events[at_line(&t, 2)];
	ck_assert_uint_eq(ev->kind, TEV_CLONE);
	ck_assert_uint_eq(ev->t, 500000);
	ck_assert_uint_eq(ev->dur, 100000);
	ev = &t.events[at_line(&t, 3)]; /* the first wait: resumed, woken */
	ck_assert_uint_eq(ev->t, 700000);
	ck_assert_uint_eq(ev->dur, 1810000);
	ck_assert_int_eq(ev->ret, 0);
	ev = &t.events[at_line(&t, 5)];
	ck_assert_uint_eq(ev->op, FX_CMP_REQUEUE | FX_PRIVATE_FLAG);
	ck_assert_uint_eq(ev->val2, 0x7fffffff);
	ck_assert_uint_eq(ev->uaddr2, 0x5004);
	ck_assert_int_eq(ev->ret, 1);
	ck_assert_int_eq(t.events[at_line(&t, 7)].ret, -11);
	ev = &t.events[at_line(&t, 8)];
	ck_assert_uint_eq(ev->op, FX_WAIT_BITSET | FX_PRIVATE_FLAG | FX_CLOCK_REALTIME);
	ck_assert(ev->timeout);
	ck_assert_int_eq(ev->ret, -110);
	ck_assert_uint_eq(ev->val3, FX_BITSET_MATCH_ANY);
	/* killed in its wait by exit_group: never returned, and no exit after it */
	ev = &t.events[at_line(&t, 10)];
	ck_assert_int_eq(ev->ret, TRACE_RET_UNFINISHED);
	ck_assert_uint_eq(t.threads[child].n, 3); /* wait, EAGAIN, the wait it died in */
	ck_assert_uint_eq(t.link.fates[TF_WAIT_BLOCK], 1);
	ck_assert_uint_eq(t.link.fates[TF_WAIT_LIMBO], 1);
	ev = &t.events[at_line(&t, 11)]; /* exit_group, to its +++ exited 100 us later */
	ck_assert_uint_eq(ev->kind, TEV_EXIT_GROUP);
	ck_assert_uint_eq(ev->dur, 100000);
	trace_free(&t);
}
END_TEST

static const char perf_text[] =
	"  700/700   [001] 50.000000100:           sched:sched_process_exec: filename=./p pid=700 old_pid=700\n"
	"  700/700   [001] 50.000001000:          syscalls:sys_enter_clone3: uargs: 0x7ffe, size: 0x00000058\n"
	"  700/700   [001] 50.000002000:           syscalls:sys_exit_clone3: 0x2bd\n"
	"  700/701   [000] 50.000002100:           syscalls:sys_exit_clone3: 0x0\n"
	"  700/701   [000] 50.000002200: PERF_RECORD_SWITCH OUT preempt\n"
	"  700/701   [001] 50.000002500: PERF_RECORD_SWITCH IN         \n"
	"  700/701   [001] 50.000002600: PERF_RECORD_SWITCH OUT        \n"
	"  700/701   [001] 50.000002800: PERF_RECORD_SWITCH IN         \n"
	"  700/701   [000] 50.000003000:           syscalls:sys_enter_futex: uaddr: 0x5000, op: 0x00000080, val: 0x00000000, "
	"utime: 0x00000000, uaddr2: 0x00000000, val3: 0x00000000\n"
	"  700/700   [001] 50.000009000:           syscalls:sys_enter_futex: uaddr: 0x5000, op: 0x00000081, val: 0x00000001, "
	"utime: 0x00000000, uaddr2: 0x00000000, val3: 0x00000000\n"
	"  700/700   [001] 50.000009500:            syscalls:sys_exit_futex: 0x1\n"
	"  700/701   [000] 50.000010000:            syscalls:sys_exit_futex: 0x0\n"
	"  700/701   [000] 50.000010500:           syscalls:sys_enter_futex: uaddr: 0x5004, op: 0x00000080, val: 0x00000001, "
	"utime: 0x00000000, uaddr2: 0x00000000, val3: 0x00000000\n"
	"  700/701   [000] 50.000010800:            syscalls:sys_exit_futex: 0xfffffffffffffff5\n"
	"  700/701   [000] 50.000011000:           sched:sched_process_exit: comm=p pid=701 prio=120 group_dead=false\n"
	"  700/700   [001] 50.000012000:      syscalls:sys_enter_exit_group: error_code: 0x00000000\n"
	"  700/700   [001] 50.000012500:           sched:sched_process_exit: comm=p pid=700 prio=120 group_dead=true\n";

START_TEST(test_parse_perf)
{
	FILE *f = fmemopen((void *)perf_text, sizeof(perf_text) - 1, "r");
	struct trace t;
	struct fs_error e = { 0 };
	const struct trace_event *ev;

	ck_assert_msg(record_parse_perf(f, "p.txt", &t, &e) == 0, "%s", e.msg);
	fclose(f);
	ck_assert_msg(trace_finish(&t, "p.txt", &e) == 0, "%s", e.msg);
	ck_assert(t.cpus_recorded);
	ck_assert_uint_eq(t.nthreads, 2);
	ck_assert_uint_eq(t.nprocs, 1);
	ck_assert_uint_eq(t.threads[1].pid, 700);
	ev = &t.events[at_line(&t, 2)];
	ck_assert_uint_eq(ev->kind, TEV_CLONE);
	ck_assert_uint_eq(ev->t, 900);
	ck_assert_uint_eq(ev->dur, 1000);
	ev = &t.events[at_line(&t, 9)];
	ck_assert_uint_eq(ev->t, 2900);
	ck_assert_uint_eq(ev->dur, 7000);
	ck_assert_int_eq(ev->cpu, 0);
	/* its gap: 300 ns preempted (2200-2500), 200 ns asleep elsewhere (2600-2800) */
	ck_assert_uint_eq(ev->preempted, 300);
	ck_assert_uint_eq(ev->slept, 200);
	/* 100 ns on CPU 1 by its switch events (2500-2600; nothing else closed): its CPU */
	ck_assert_int_eq(t.threads[1].cpu, 1);
	ck_assert_int_eq(t.events[at_line(&t, 13)].ret, -11);
	ck_assert_uint_eq(t.link.fates[TF_WAIT_BLOCK], 1);
	ck_assert_uint_eq(t.link.fates[TF_WAKE], 1);
	/* the exit from sys_enter_exit_group to sched_process_exit */
	ck_assert_uint_eq(t.events[t.nevents - 1].kind, TEV_EXIT_GROUP);
	ck_assert_uint_eq(t.events[t.nevents - 1].dur, 500);
	trace_free(&t);
}
END_TEST

/* What the parsers refuse, at its line. */
START_TEST(test_parse_refusals)
{
	static const struct {
		bool perf;
		const char *text, *what;
	} bad[] = {
		{ false, "hello\n", "s.txt:1:1: not a line of strace" },
		{ false, "12 notatime futex()\n", "s.txt:1:1: no -ttt timestamp" },
		{ false, "12 1.5 futex(0x1000, FUTEX_WAIT_PRIVATE, 0, NULL) = 0 <0.1>\n", "s.txt:1:1: futex arguments are not numbers" },
		{ false, "12 1.5 <... futex resumed>) = 0 <0.1>\n", "s.txt:1:1: a resumed call with no unfinished" },
		{ false, "12 1.5 futex(0x1000, 0x80, 0, 0, 0, 0)\n", "s.txt:1:1: no result" },
		{ false, "", "recorded nothing" },
		{ true, "hello\n", "p.txt:1:1: not a line of perf script" },
		{ true, "1/1 [x] 1.0: e: f\n", "p.txt:1:1: no [CPU]" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		FILE *f = tmpfile();
		struct trace t;
		struct fs_error e = { 0 };
		int rc;

		fputs(bad[i].text, f);
		rewind(f);
		rc = bad[i].perf ? record_parse_perf(f, "p.txt", &t, &e) : record_parse_strace(f, "s.txt", &t, &e);
		fclose(f);
		ck_assert_msg(rc < 0, "case %zu accepted", i);
		ck_assert_msg(strstr(e.msg, bad[i].what), "case %zu: '%s' (expected '%s')", i, e.msg, bad[i].what);
	}
}
END_TEST

/* A real program recorded under strace, replayed, written and read back: the
 * calls all replayed, the summary's last line, show's figures from the file. */
START_TEST(test_record_round_trip)
{
	char dir[64], *out = NULL;
	int rc;

	if (system("command -v strace >/dev/null 2>&1") != 0) {
		printf("check_trace: record round trip SKIPPED: strace is not installed (apt-get install strace)\n");
		return;
	}
	tu_mkdtemp(dir, "futexsim-record");
	rc = tu_shellf(&out, "cc -O2 -pthread scenarios/traces/mutexloop.c -o %s/mutexloop 2>&1", dir);
	if (rc != 0) {
		printf("check_trace: record round trip SKIPPED: no C compiler to build the program: %s\n", out);
		free(out);
		tu_rmtree(dir);
		return;
	}
	free(out);
	rc = tu_futexsimf(&out, "record --tracer strace --no-calibrate -o %s/m.trace -- %s/mutexloop 3 300 500 100", dir, dir);
	if (rc != 0 && strstr(out, "not permitted")) {
		printf("check_trace: record round trip SKIPPED: ptrace is not permitted here: %s\n", out);
		free(out);
		tu_rmtree(dir);
		return;
	}
	ck_assert_msg(rc == 0, "record failed (%d): %s", rc, out);
	ck_assert_msg(strstr(out, "4 threads in 1 processes"), "%s", out);
	free(out);
	{
		char yaml[512];
		FILE *f;

		snprintf(yaml, sizeof(yaml), "%s/m.yaml", dir);
		f = fopen(yaml, "w");
		ck_assert(f != NULL);
		fprintf(f, "machine: small-1node\nkernel: linux-6.18\nworkload: {type: trace, trace: m.trace}\n"
			   "run: {duration: 1s, warmup: 0}\n");
		fclose(f);
	}
	rc = tu_futexsimf(&out, "run %s/m.yaml -o %s/m.h5", dir, dir);
	ck_assert_msg(rc == 0, "%s", out);
	{
		/* the summary's last line: every recorded call replayed */
		const char *last = strstr(out, "\ntrace: ");
		unsigned replayed = 0, recorded = 1;

		ck_assert_msg(last, "%s", out);
		ck_assert_int_eq(sscanf(last, "\ntrace: %u calls replayed of %u recorded;", &replayed, &recorded), 2);
		ck_assert_uint_eq(replayed, recorded);
		ck_assert(strstr(last, "; run time ") && strstr(last, " s recorded; blocked "));
	}
	free(out);
	rc = tu_futexsimf(&out, "show --csv %s/m.h5", dir);
	ck_assert_msg(rc == 0 && strstr(out, "calls_replayed"), "%s", out);
	free(out);
	ck_assert_int_eq(tu_futexsimf(&out, "explain %s/m.h5", dir), 0);
	free(out);
	ck_assert_int_eq(tu_futexsimf(&out, "c2c %s/m.h5", dir), 0);
	free(out);
	ck_assert_int_eq(tu_futexsimf(&out, "compare %s/m.h5 %s/m.h5", dir, dir), 0);
	ck_assert_msg(strstr(out, "calls_replayed"), "%s", out);
	free(out);
	tu_rmtree(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("trace");
	TCase *tc = tcase_create("trace");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_read_basic);
	tcase_add_test(tc, test_round_trip);
	tcase_add_test(tc, test_refusals);
	tcase_add_test(tc, test_refusals_binary);
	tcase_add_test(tc, test_link_fifo);
	tcase_add_test(tc, test_link_bitset_stale_lookahead);
	tcase_add_test(tc, test_link_requeue_and_exit);
	tcase_add_test(tc, test_link_inferred_cleartid_and_limbo);
	tcase_add_test(tc, test_replay_basic);
	tcase_add_test(tc, test_replay_speed_and_overhead);
	tcase_add_test(tc, test_replay_requeue);
	tcase_add_test(tc, test_replay_hold);
	tcase_add_test(tc, test_replay_unhonoured);
	tcase_add_test(tc, test_replay_deadlocks);
	tcase_add_test(tc, test_replay_placement);
	tcase_add_test(tc, test_parse_strace);
	tcase_add_test(tc, test_parse_perf);
	tcase_add_test(tc, test_parse_refusals);
	tcase_add_test(tc, test_record_round_trip);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
