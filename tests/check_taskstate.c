/* SPDX-License-Identifier: MIT */
/* Tests of the task executor's state machine (models/task.h: TASK_TRANSITIONS,
 * task_set_state): the table is well formed (every state reachable from TS_IDLE,
 * every state with a way back to TS_RUN, no row twice), task_transition_valid
 * (what the debug check uses) accepts exactly its rows, and, in FUTEXSIM_DEBUG
 * builds (make sanitize), an invalid change aborts and every row is reached by
 * the scenarios below. Release builds check none of this at run time (the state
 * change is one store on the hot path), so the last two tests exist there only. */
#include <check.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "models/futex_table.h"
#include "models/spinlock.h"
#include "models/task.h"
#include "models/task_lock.h"
#include "tests/testutil.h"

START_TEST(test_table_well_formed)
{
	bool in[TS_NSTATES] = { false }, out[TS_NSTATES] = { false }, reach[TS_NSTATES] = { false };
	bool grew = true;

	ck_assert_uint_gt(task_ntransitions, 0);
	for (uint32_t s = 0; s < TS_NSTATES; s++)
		ck_assert_msg(task_state_names[s] != NULL, "state %u has no name", s);
	for (uint32_t i = 0; i < task_ntransitions; i++) {
		const struct task_transition *r = &task_transitions[i];

		ck_assert_uint_lt(r->from, TS_NSTATES);
		ck_assert_uint_lt(r->to, TS_NSTATES);
		ck_assert_msg(r->when && *r->when, "row %u has no description", i);
		for (uint32_t j = 0; j < i; j++)
			ck_assert_msg(task_transitions[j].from != r->from || task_transitions[j].to != r->to,
				      "row %s -> %s twice", task_state_names[r->from], task_state_names[r->to]);
		out[r->from] = in[r->to] = true;
	}
	/* every state is entered and left (TS_IDLE too: a stopped task may be restarted) */
	for (uint32_t s = 0; s < TS_NSTATES; s++) {
		ck_assert_msg(in[s], "no way into %s", task_state_names[s]);
		ck_assert_msg(out[s], "no way out of %s", task_state_names[s]);
	}
	/* from a new task (TS_IDLE) every state can be reached */
	reach[TS_IDLE] = true;
	while (grew) {
		grew = false;
		for (uint32_t i = 0; i < task_ntransitions; i++)
			if (reach[task_transitions[i].from] && !reach[task_transitions[i].to])
				reach[task_transitions[i].to] = grew = true;
	}
	for (uint32_t s = 0; s < TS_NSTATES; s++)
		ck_assert_msg(reach[s], "%s cannot be reached from TS_IDLE", task_state_names[s]);
	/* and from every state a task gets back to running: no state traps it */
	for (uint32_t s = 0; s < TS_NSTATES; s++) {
		bool back[TS_NSTATES] = { false };

		back[s] = grew = true;
		while (grew && !back[TS_RUN]) {
			grew = false;
			for (uint32_t i = 0; i < task_ntransitions; i++)
				if (back[task_transitions[i].from] && !back[task_transitions[i].to])
					back[task_transitions[i].to] = grew = true;
		}
		ck_assert_msg(back[TS_RUN], "%s never gets back to TS_RUN", task_state_names[s]);
	}
}
END_TEST

/* task_transition_valid is the table: true for its rows, false for every other pair
 * and for values out of range. */
START_TEST(test_valid_is_the_table)
{
	for (uint32_t from = 0; from < TS_NSTATES; from++)
		for (uint32_t to = 0; to < TS_NSTATES; to++) {
			bool row = false;

			for (uint32_t i = 0; i < task_ntransitions; i++)
				row |= task_transitions[i].from == from && task_transitions[i].to == to;
			ck_assert_msg(task_transition_valid(from, to) == row, "%s -> %s: valid %d, a row %d",
				      task_state_names[from], task_state_names[to], task_transition_valid(from, to), row);
		}
	/* a few that must stay invalid: sleeping without running, a grant's wait entered
	 * from another wait, waking into a wait */
	ck_assert(!task_transition_valid(TS_IDLE, TS_SLEEP));
	ck_assert(!task_transition_valid(TS_ACCESS, TS_LOCK_ACCESS));
	ck_assert(!task_transition_valid(TS_SLEEP, TS_ACCESS));
	ck_assert(!task_transition_valid(TS_READY, TS_SLEEP));
	ck_assert(!task_transition_valid(TS_NSTATES, TS_RUN));
	ck_assert(!task_transition_valid(TS_RUN, TS_NSTATES));
}
END_TEST

#ifdef FUTEXSIM_DEBUG
/* An invalid change trips the debug check (an abort). */
START_TEST(test_invalid_change_aborts)
{
	struct task t = { .id = 3, .state = TS_IDLE };

	task_set_state(&t, TS_RUN); /* valid: passes */
	ck_assert_uint_eq(t.state, TS_RUN);
	task_set_state(&t, TS_LOCK_TAKE); /* never from TS_RUN: aborts */
}
END_TEST

/* The scenarios that reach every row: the hash bench (global and private hash,
 * contended buckets: MCS queues), more threads than CPUs (run queues, preemption),
 * PREEMPT_RT with a short slice (fifo: ended when used, not at a tick) on an oversubscribed machine (rtlock spinning,
 * sleeping and preemption inside the section), 2.6.18's mmap_sem with mm writes
 * (rwsem sleeps), the blocking workloads (walks, sleeps, user atomics), lock-pi. */
static const char *const runs[][6] = {
	{ "scenarios/quickstart.yaml" },
	{ "scenarios/e5-2650-hashbench.yaml", "kernel.private_hash.buckets=2" },
	{ "scenarios/claims/preempt-rt.yaml", "kernel=linux-6.18-rt", "kernel.private_hash.buckets=16" },
	{ "scenarios/claims/preempt-rt.yaml", "kernel=linux-6.18-rt", "workload.cpus=0-3", "kernel.timeslice=2us",
	  "kernel.scheduler.policy=fifo" },
	/* a holder preempted in its section with its top waiter spinning on it */
	{ "scenarios/claims/preempt-rt.yaml", "kernel=linux-6.18-rt", "workload.cpus=0-7", "kernel.timeslice=1us",
	  "kernel.private_hash.buckets=2", "kernel.scheduler.policy=fifo" },
	{ "scenarios/claims/preempt-rt.yaml", "kernel=linux-6.18-rt", "workload.cpus=0-3", "kernel.timeslice=1us",
	  "kernel.private_hash.buckets=2", "kernel.scheduler.policy=fifo" },
	{ "scenarios/claims/preempt-rt.yaml", "kernel=linux-6.18-rt", "workload.cpus=0-7", "kernel.timeslice=3us",
	  "kernel.private_hash.buckets=2", "kernel.scheduler.policy=fifo" },
	{ "scenarios/claims/mmap-sem-2.6.18.yaml", "workload.mm_writes={rate: 200000, hold: 2us}" },
	{ "scenarios/workloads/mutex.yaml" },
	{ "scenarios/workloads/barrier.yaml" },
	{ "scenarios/workloads/producer-consumer.yaml" },
	{ "scenarios/workloads/churn.yaml" },
	{ "scenarios/workloads/wake.yaml" },
	{ "scenarios/workloads/lock-pi.yaml" },
	{ "scenarios/workloads/schbench.yaml" },
};

static void no_grant(void *ctx, uint32_t requester, uint32_t line)
{
	(void)ctx;
	(void)requester;
	(void)line;
}

/* TS_LOCK_SPIN -> TS_RUN: a spinner whose CPU holds the lock's line Modified when
 * it sees the lock free takes it with a hit (take() in models/task_lock.c). No
 * shipped scenario gets there (the owner's unlock store leaves the line shared with
 * the spinner's re-read, so the take waits: TS_LOCK_TAKE), so it is staged, as
 * tests/check_grant.c's test_lock_spin_sees_free_takes stages it: task 0 the
 * pending waiter of a lock task 1 released, its CPU holding the line after its RMW. */
static void stage_spin_take_hits(void)
{
	static const struct uop prog[] = {
		{ .kind = UOP_LOCK, .operand = OPND_BUCKET_LOCK },
		{ .kind = UOP_SLEEP, .operand = OPND_NONE },
	};
	const char *sets[] = { "workload.threads=2" };
	struct tu_run r;
	struct fs_error e = { 0 };
	struct task *t;
	coh_grant_fn grant;
	simtime_t cost;
	uint32_t lock, line;

	ck_assert_msg(scenario_load(&r.sc, "scenarios/quickstart.yaml", sets, 1, &e) == 0, "%s", e.msg);
	ck_assert_msg(sim_build(&r.s, &r.sc, &e) == 0, "%s", e.msg);
	for (uint32_t i = 0; i < r.s.tasks.n; i++)
		r.s.tasks.v[i].state = TS_IDLE; /* stopped before their first op: their start events do nothing */
	engine_run(&r.s.eng, 1);
	t = &r.s.tasks.v[0];
	lock = t->target.table->lock0 + t->target.bucket;
	line = futex_table_line(t->target.table, t->target.bucket, BF_LOCK);
	grant = r.s.coh.grant;
	r.s.coh.grant = no_grant;
	if (coh_access(&r.s.coh, line, 0, t->cpu, ACCESS_RMW, &cost) == COH_WAIT)
		engine_run(&r.s.eng, SIMTIME_MAX);
	r.s.coh.grant = grant;
	ck_assert_int_eq(spinlock_try(&r.s.locks, lock, 1, r.s.eng.now), SPIN_ACQUIRED);
	ck_assert_int_eq(spinlock_try(&r.s.locks, lock, 0, r.s.eng.now), SPIN_HEAD);
	spinlock_release(&r.s.locks, lock, 1);
	t->prog = prog;
	t->nuops = 2;
	t->pc = 0;
	t->clock = r.s.eng.now;
	t->lock = lock;
	t->lock_line = line;
	t->lock_stage = LS_CMPXCHG;
	t->state = TS_LOCK_SPIN;
	tasks_on_grant(&r.s.tasks, 0, line);
	ck_assert_uint_eq(t->locks_held, 1); /* taken at once, and on into the sleep */
	ck_assert_uint_eq(t->state, TS_SLEEP);
	tu_run_free(&r);
}

START_TEST(test_every_row_reached)
{
	uint32_t missing = 0;

	stage_spin_take_hits();
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		const char *sets[8] = { "run.duration=1ms", "run.warmup=200us" };
		size_t n = 2;
		struct tu_run r;

		for (size_t j = 1; j < 6 && runs[i][j]; j++)
			sets[n++] = runs[i][j];
		tu_run(&r, runs[i][0], sets, n);
		tu_run_free(&r);
	}
	for (uint32_t i = 0; i < task_ntransitions; i++) {
		const struct task_transition *row = &task_transitions[i];

		if (!task_transition_seen(row->from, row->to)) {
			fprintf(stderr, "check_taskstate: never reached: %s -> %s (%s)\n", task_state_names[row->from],
				task_state_names[row->to], row->when);
			missing++;
		}
	}
	ck_assert_msg(missing == 0, "%u rows of TASK_TRANSITIONS never reached", missing);
}
END_TEST
#endif

static Suite *suite(void)
{
	Suite *s = suite_create("task state");
	TCase *table = tcase_create("table");

	tcase_add_test(table, test_table_well_formed);
	tcase_add_test(table, test_valid_is_the_table);
#ifdef FUTEXSIM_DEBUG
	TCase *debug = tcase_create("debug check");

	tcase_set_timeout(debug, 600);
	tcase_add_test_raise_signal(debug, test_invalid_change_aborts, SIGABRT);
	tcase_add_test(debug, test_every_row_reached);
	suite_add_tcase(s, debug);
#else
	printf("check_taskstate: the run-time check and its coverage are FUTEXSIM_DEBUG's (make sanitize)\n");
#endif
	suite_add_tcase(s, table);
	return s;
}

int main(void)
{
	return tu_run_suite(suite());
}
