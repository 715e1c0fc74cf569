/* SPDX-License-Identifier: MIT */
/* The scheduler's pieces on hand-worked sequences (models/sched/): the fair class's
 * placement, eligibility, pick, wake-up preemption and slice end (EEVDF and fifo),
 * the idle governors and what a wake-up of an idle CPU costs, and where a woken
 * task runs (select_task_rq_fair). Every expected value is worked out in the
 * comment above it from the kernel's rules as the headers of models/sched/ state them. */
#include <check.h>
#include <string.h>

#include "models/sched/fair.h"
#include "models/sched/idle.h"
#include "models/sched/select.h"
#include "sim/core/config.h"
#include "tests/testutil.h"

#define US ((int64_t)PS_PER_US)
#define MS ((int64_t)PS_PER_MS)

static const struct fair_params eevdf = { .policy = FAIR_EEVDF, .slice = 3 * MS, .tick = 4 * MS,
					  .run_to_parity = true, .delay_dequeue = false };

/* A queue walked in array order (fair_next_fn over a NULL-terminated array). */
static const struct fair_entity *array_next(const void *ctx, const struct fair_entity *prev)
{
	const struct fair_entity *const *v = ctx;

	if (!prev)
		return v[0];
	for (size_t i = 0; v[i]; i++)
		if (v[i] == prev)
			return v[i + 1];
	return NULL;
}

START_TEST(base_slice_scales_with_log2_cpus)
{
	/* 0.75 ms x (1 + ilog2(min(n, 8))): 1 -> 0.75, 2 -> 1.5, 3 -> 1.5, 4 -> 2.25, 8+ -> 3 ms */
	ck_assert_uint_eq(fair_base_slice(750 * US, 1), 750 * US);
	ck_assert_uint_eq(fair_base_slice(750 * US, 2), 1500 * US);
	ck_assert_uint_eq(fair_base_slice(750 * US, 3), 1500 * US);
	ck_assert_uint_eq(fair_base_slice(750 * US, 4), 2250 * US);
	ck_assert_uint_eq(fair_base_slice(750 * US, 8), 3 * MS);
	ck_assert_uint_eq(fair_base_slice(750 * US, 1024), 3 * MS);
}
END_TEST

START_TEST(eevdf_new_tasks_and_eligibility)
{
	/* Two new tasks on an empty queue: both at V = 0 with half a slice to their
	 * deadline (1.5 ms). A runs 1 ms: vA = 1 ms, sum 1 ms, V = 0.5 ms: A is not
	 * eligible (1 x 2 > 1), B is; B's deadline 1.5 ms is the pick. */
	struct fair_rq rq = { 0 };
	struct fair_entity a = { 0 }, b = { 0 };
	const struct fair_entity *queue[] = { &b, NULL };

	fair_enqueue(&eevdf, &rq, &a, true);
	fair_enqueue(&eevdf, &rq, &b, true);
	ck_assert_int_eq(a.vruntime, 0);
	ck_assert_int_eq(a.deadline, 1500 * US);
	ck_assert_uint_eq(rq.nr, 2);
	fair_picked(&a, 0);
	fair_account(&rq, &a, 1 * MS);
	ck_assert_int_eq(rq.sum, 1 * MS);
	ck_assert_int_eq(fair_avg(&rq), 500 * US);
	ck_assert(!fair_eligible(&rq, &a));
	ck_assert(fair_eligible(&rq, &b));
	/* protected, but not eligible: RUN_TO_PARITY does not keep it */
	ck_assert_ptr_eq(fair_pick(&eevdf, &rq, &a, array_next, queue), &b);
}
END_TEST

START_TEST(eevdf_eligible_first)
{
	/* X at v 4 ms with deadline 5 ms and Y at 0 with deadline 6 ms: V = 2 ms, X is
	 * not eligible: Y is the pick although X's deadline is earlier. */
	struct fair_rq rq = { .sum = 4 * MS, .nr = 2 };
	struct fair_entity x = { .vruntime = 4 * MS, .deadline = 5 * MS }, y = { .vruntime = 0, .deadline = 6 * MS };
	const struct fair_entity *queue[] = { &x, &y, NULL };

	ck_assert_ptr_eq(fair_pick(&eevdf, &rq, NULL, array_next, queue), &y);
}
END_TEST

START_TEST(eevdf_run_to_parity)
{
	/* C alone ran 2 ms (v 2 ms, deadline 3 ms from its pick at v 0). W wakes with lag
	 * 0: placed at V = 2 ms, deadline 5 ms; V stays 2 ms, C is eligible (2 x 2 <= 4).
	 * RUN_TO_PARITY: C keeps its CPU, W does not preempt. Without it, the pick is
	 * the earlier deadline: C's 3 ms again. Once C's slice is over (unprotected)
	 * and it ran to v 6 ms (deadline moved to 9 ms), V = 4 ms: only W is eligible. */
	struct fair_params nop = eevdf;
	struct fair_rq rq = { 0 };
	struct fair_entity c = { 0 }, w = { 0 };
	const struct fair_entity *queue[] = { &w, NULL };

	nop.run_to_parity = false;
	fair_enqueue(&eevdf, &rq, &c, false);
	c.deadline = 3 * MS;
	fair_picked(&c, 0);
	fair_account(&rq, &c, 2 * MS);
	w.vlag = 0;
	fair_enqueue(&eevdf, &rq, &w, false);
	ck_assert_int_eq(w.vruntime, 2 * MS);
	ck_assert_int_eq(w.deadline, 5 * MS);
	ck_assert(!fair_wakeup_preempts(&eevdf, &rq, &c, &w, array_next, queue));
	ck_assert_ptr_eq(fair_pick(&nop, &rq, &c, array_next, queue), &c);
	fair_account(&rq, &c, 4 * MS);
	c.deadline = 9 * MS;
	c.protect = false;
	ck_assert_ptr_eq(fair_pick(&eevdf, &rq, &c, array_next, queue), &w);
}
END_TEST

START_TEST(eevdf_lag_placement_preempts)
{
	/* C alone at v 2 ms (sum 2 ms, n 1). W slept owed 1 ms (vlag +1 ms): its lag
	 * is inflated by (n + 1) / n = 2 to 2 ms, so vW = V - 2 ms = 0, deadline 3 ms.
	 * Then sum 2 ms, n 2, V = 1 ms: C (2 ms) is not eligible, W is: W preempts. */
	struct fair_rq rq = { 0 };
	struct fair_entity c = { 0 }, w = { 0 };
	const struct fair_entity *queue[] = { &w, NULL };

	fair_enqueue(&eevdf, &rq, &c, false);
	fair_picked(&c, 0);
	fair_account(&rq, &c, 2 * MS);
	w.vlag = 1 * MS;
	fair_enqueue(&eevdf, &rq, &w, false);
	ck_assert_int_eq(w.vruntime, 0);
	ck_assert_int_eq(w.deadline, 3 * MS);
	ck_assert_int_eq(fair_avg(&rq), 1 * MS);
	ck_assert(fair_wakeup_preempts(&eevdf, &rq, &c, &w, array_next, queue));
}
END_TEST

START_TEST(eevdf_dequeue_lag)
{
	/* A at 0 and B at 4 ms: V = 2 ms. B sleeps with lag 2 - 4 = -2 ms (kept without
	 * DELAY_DEQUEUE; 0 with it: worked off on the queue). A sleeps from a queue of
	 * itself at V: lag 0. The clamp: with a 1 ms slice and a 4 ms tick the bound is
	 * max(2 ms, 4 ms) = 4 ms, so a lag of -10 ms is kept as -4 ms. */
	struct fair_params delay = eevdf, small = eevdf;
	struct fair_rq rq = { .sum = 4 * MS, .nr = 2 };
	struct fair_entity a = { .vruntime = 0 }, b = { .vruntime = 4 * MS };

	delay.delay_dequeue = true;
	small.slice = 1 * MS;
	fair_dequeue(&eevdf, &rq, &b);
	ck_assert_int_eq(b.vlag, -2 * MS);
	ck_assert_int_eq(rq.sum, 0);
	ck_assert_uint_eq(rq.nr, 1);
	fair_dequeue(&eevdf, &rq, &a);
	ck_assert_int_eq(a.vlag, 0);
	rq = (struct fair_rq){ .sum = 4 * MS, .nr = 2 };
	b.vruntime = 4 * MS;
	fair_dequeue(&delay, &rq, &b);
	ck_assert_int_eq(b.vlag, 0);
	rq = (struct fair_rq){ .sum = 20 * MS, .nr = 2 };
	b.vruntime = 20 * MS;
	fair_dequeue(&small, &rq, &b);
	ck_assert_int_eq(b.vlag, -4 * MS);
}
END_TEST

START_TEST(eevdf_slice_end_seen_at_tick)
{
	/* Picked at 0 with v 0, deadline 3 ms, ticks every 4 ms. At 3.5 ms (v 3.5 ms) v
	 * passed the deadline at 3 ms, but the next tick is at 4 ms: not yet. At 4 ms:
	 * over; the deadline moves to v + slice = 7 ms and the protection ends. */
	struct fair_entity c = { .vruntime = 0, .deadline = 3 * MS };

	fair_picked(&c, 0);
	c.vruntime = 2 * MS;
	ck_assert(!fair_slice_over(&eevdf, &c, 2 * MS));
	c.vruntime = 3500 * US;
	ck_assert(!fair_slice_over(&eevdf, &c, 3500 * US));
	ck_assert(c.protect);
	c.vruntime = 4 * MS;
	ck_assert(fair_slice_over(&eevdf, &c, 4 * MS));
	ck_assert_int_eq(c.deadline, 7 * MS);
	ck_assert(!c.protect);
}
END_TEST

START_TEST(fifo_queue_order_and_slices)
{
	/* fifo: the first queued runs next whatever the virtual times, a woken task
	 * never preempts, a slice is over when it has been run since the pick. */
	static const struct fair_params fifo = { .policy = FAIR_FIFO, .slice = 3 * MS, .tick = 4 * MS };
	struct fair_rq rq = { 0 };
	struct fair_entity c = { 0 }, x = { .vruntime = 9 * MS }, w = { .vlag = 5 * MS };
	const struct fair_entity *queue[] = { &x, &w, NULL };

	fair_enqueue(&fifo, &rq, &c, false);
	fair_picked(&c, 1 * MS);
	fair_account(&rq, &c, 2 * MS);
	fair_enqueue(&fifo, &rq, &w, false);
	ck_assert_ptr_eq(fair_pick(&fifo, &rq, &c, array_next, queue), &x);
	ck_assert(!fair_wakeup_preempts(&fifo, &rq, &c, &w, array_next, queue));
	ck_assert(!fair_slice_over(&fifo, &c, 3999 * US));
	ck_assert(fair_slice_over(&fifo, &c, 4 * MS));
}
END_TEST

/* An Intel-like state table: POLL, C1 2/2, C1E 10/20, C6 133/400 us; a VM's HLT. */
static struct machine_sched intel_states(void)
{
	struct machine_sched s = { .governor = IDLE_GOV_MENU, .nidle = 4, .ipi_ps = 1100 * US / 1000,
				   .halt_poll_ps = 200 * US };

	s.idle[0] = (struct idle_state){ "POLL", 0, 0, true };
	s.idle[1] = (struct idle_state){ "C1", 2 * US, 2 * US, true };
	s.idle[2] = (struct idle_state){ "C1E", 10 * US, 20 * US, true };
	s.idle[3] = (struct idle_state){ "C6", 133 * US, 400 * US, false };
	return s;
}

START_TEST(menu_typical_interval)
{
	/* At first the 8 intervals are 0: 0 predicted, POLL. Seven of 10 us and one 0:
	 * mean 8.75 us, variance (8.75^2 + 7 x 1.25^2) / 8 = 10.9 us^2: 8.75 us, C1.
	 * Eight of 10 us: 10 us, C1 (C1E's 20 us residency does not fit). Seven of 10 us
	 * and one of 1 ms: the
	 * spread is too wide, the 1 ms outlier is dropped (8 x 4 > 24: enough remain),
	 * then 10 us. 10, 20, ..., 80 us: mean 45, variance 525 us^2 > 400 and 45^2 <
	 * 36 x 525: 80 dropped; 10..70: mean 40, variance (900 + 400 + 100) x 2 / 7 =
	 * 400 us^2: 40 us, C1E. */
	struct machine_sched s = intel_states();
	struct idle_history h = { 0 };

	ck_assert_uint_eq(idle_typical_interval(&h), 0);
	ck_assert_uint_eq(idle_governors[IDLE_GOV_MENU].state_at_wake(&s, &h, 0), 0);
	for (int i = 0; i < 7; i++)
		idle_record(&h, 10 * US);
	ck_assert_uint_eq(idle_typical_interval(&h), 8750 * US / 1000);
	ck_assert_uint_eq(idle_governors[IDLE_GOV_MENU].state_at_wake(&s, &h, 0), 1);
	idle_record(&h, 10 * US);
	ck_assert_uint_eq(idle_typical_interval(&h), 10 * US);
	ck_assert_uint_eq(idle_governors[IDLE_GOV_MENU].state_at_wake(&s, &h, 0), 1);
	idle_record(&h, 1 * MS); /* overwrites the oldest */
	ck_assert_uint_eq(idle_typical_interval(&h), 10 * US);
	memset(&h, 0, sizeof(h));
	for (int i = 1; i <= 8; i++)
		idle_record(&h, (simtime_t)(10 * i) * US);
	ck_assert_uint_eq(idle_typical_interval(&h), 40 * US);
	ck_assert_uint_eq(idle_deepest_fitting(&s, 40 * US), 2);
	/* 100, 200, ..., 800 us: too spread with 8 (variance 52,500 us^2), 7 (40,000) and
	 * 6 (29,167) of them, and 6 of 8 is not more than 3/4: no pattern, the deepest.
	 * 1 us and 1 ms alternating: the four 1 ms are dropped at once, the four 1 us
	 * agree (variance 0): 1 us. */
	memset(&h, 0, sizeof(h));
	for (int i = 1; i <= 8; i++)
		idle_record(&h, (simtime_t)(100 * i) * US);
	ck_assert_uint_eq(idle_typical_interval(&h), SIMTIME_MAX);
	ck_assert_uint_eq(idle_governors[IDLE_GOV_MENU].state_at_wake(&s, &h, 0), 3);
	for (int i = 0; i < 8; i++)
		idle_record(&h, (i % 2 ? 1000 : 1) * US);
	ck_assert_uint_eq(idle_typical_interval(&h), 1 * US);
	memset(&h, 0, sizeof(h));
	for (int i = 1; i <= 8; i++)
		idle_record(&h, (simtime_t)(100 * i) * US);
	ck_assert_uint_eq(idle_typical_interval(&h), SIMTIME_MAX);
	ck_assert_uint_eq(idle_governors[IDLE_GOV_MENU].state_at_wake(&s, &h, 0), 3);
	ck_assert_uint_eq(idle_deepest_fitting(&s, 1 * US), 0);
	ck_assert_uint_eq(idle_deepest_fitting(&s, 400 * US), 3);
}
END_TEST

START_TEST(haltpoll_and_wake_cost)
{
	/* haltpoll: idle 100 us < 200 us: still polling (state 0); idle 300 us: halted
	 * (the deepest). A wake-up of a polling state costs its exit only; of C6 (not
	 * polling) from another CPU, the IPI too: 1.1 + 133 us; its own timer: 133 us. */
	struct machine_sched s = intel_states();
	struct idle_history h = { 0 };

	s.governor = IDLE_GOV_HALTPOLL;
	ck_assert_uint_eq(idle_governors[IDLE_GOV_HALTPOLL].state_at_wake(&s, &h, 100 * US), 0);
	ck_assert_uint_eq(idle_governors[IDLE_GOV_HALTPOLL].state_at_wake(&s, &h, 300 * US), 3);
	ck_assert_uint_eq(idle_wake_cost(&s, 0, true), 0);
	ck_assert_uint_eq(idle_wake_cost(&s, 2, true), 10 * US);
	ck_assert_uint_eq(idle_wake_cost(&s, 3, true), 1100 * US / 1000 + 133 * US);
	ck_assert_uint_eq(idle_wake_cost(&s, 3, false), 133 * US);
}
END_TEST

/* 2 nodes x 3 cores x 2 SMT, cores-first: node 0 is cores 0-2 (CPUs 0-2 and their
 * siblings 6-8), node 1 cores 3-5 (CPUs 3-5, 9-11); one LLC per node. */
#define SELECT_MACHINE                                                                                 \
	"{name: sel, topology: {nodes: 2, cores_per_node: 3, threads_per_core: 2}, frequency: 2GHz,"     \
	" distance: [[10, 21], [21, 10]], costs: {line_hit: 1ns, atomic_hit: 1ns, transfer_smt: 1ns,"    \
	" transfer_node: 1ns, transfer_remote: 1ns, memory_local: 1ns, memory_remote: 1ns, syscall: 1ns," \
	" line_hold: 0, smt_slowdown: 1.0}}"

struct cpus_state {
	uint32_t nr[12]; /* running + queued per CPU */
};
static bool view_idle(const void *ctx, uint32_t cpu)
{
	return ((const struct cpus_state *)ctx)->nr[cpu] == 0;
}
static uint32_t view_nr(const void *ctx, uint32_t cpu)
{
	return ((const struct cpus_state *)ctx)->nr[cpu];
}
static void set_busy(struct cpus_state *st, const uint32_t *cpus, size_t n)
{
	memset(st, 0, sizeof(*st));
	for (size_t i = 0; i < n; i++)
		st->nr[cpus[i]] = 1;
}

START_TEST(select_idle_sibling_order)
{
	static const uint32_t cores_busy[] = { 0, 1, 2 }, mixed[] = { 0, 7 }, node0[] = { 0, 1, 2, 6, 7, 8 };
	struct machine m;
	struct cpus_state st = { { 0 } };
	struct cpu_view v = { view_idle, view_nr, &st };
	struct cpu_mask all = { { 0xfff } };
	struct wake_request r = { .allowed = &all, .prev = 0, .waker_cpu = 0, .recent_used_cpu = UINT32_MAX };

	tu_machine(&m, SELECT_MACHINE);
	/* the previous CPU idle: there */
	ck_assert_uint_eq(select_task_rq(&m, &v, &r), 0);
	/* CPUs 0-2 busy: no idle core in node 0; the scan from CPU 1 over node 0's
	 * CPUs 1, 2, 6, 7, 8, 0: CPU 6 is the first idle one */
	set_busy(&st, cores_busy, 3);
	ck_assert_uint_eq(select_task_rq(&m, &v, &r), 6);
	/* CPUs 0 and 7 busy: CPU 1 is idle but its core (1, 7) is not; core 2 (2, 8) is
	 * wholly idle: an idle core first, CPU 2 */
	set_busy(&st, mixed, 2);
	ck_assert_uint_eq(select_task_rq(&m, &v, &r), 2);
	/* ... unless the task's recent_used_cpu (6) is idle and shares the LLC: it wins */
	r.recent_used_cpu = 6;
	ck_assert_uint_eq(select_task_rq(&m, &v, &r), 6);
	r.recent_used_cpu = UINT32_MAX;
	/* CPUs 2 and 8 not allowed: no idle core left; the first idle allowed CPU, 1 */
	all.bits[0] = 0xfff & ~((1u << 2) | (1u << 8));
	ck_assert_uint_eq(select_task_rq(&m, &v, &r), 1);
	/* all of node 0 busy: stays on the previous CPU (no scan beyond the LLC) */
	all.bits[0] = 0xfff;
	set_busy(&st, node0, 6);
	ck_assert_uint_eq(select_task_rq(&m, &v, &r), 0);
	machine_free(&m);
}
END_TEST

START_TEST(select_wake_affine)
{
	/* Node 0 full, the previous CPU 0 among it; the waker on CPU 3 (node 1) alone:
	 * wake_affine_weight compares 1 < 1: no, the previous CPU (node 0 has no idle
	 * CPU: 0). With 2 on CPU 0: the waker's CPU, then its LLC from CPU 4: CPU 4, a
	 * wholly idle core. Not affine: the previous CPU. The previous CPU idle: it
	 * (wake_affine_idle). Sync with the waker alone on its CPU: the waker's CPU. */
	static const uint32_t busy[] = { 0, 1, 2, 6, 7, 8, 3 };
	struct machine m;
	struct cpus_state st = { { 0 } };
	struct cpu_view v = { view_idle, view_nr, &st };
	struct cpu_mask all = { { 0xfff } };
	struct wake_request r = { .allowed = &all, .prev = 0, .waker_cpu = 3, .want_affine = true,
				  .recent_used_cpu = UINT32_MAX };

	tu_machine(&m, SELECT_MACHINE);
	set_busy(&st, busy, 7);
	ck_assert_uint_eq(select_task_rq(&m, &v, &r), 0);
	st.nr[0] = 2;
	ck_assert_uint_eq(select_task_rq(&m, &v, &r), 4);
	r.want_affine = false;
	ck_assert_uint_eq(select_task_rq(&m, &v, &r), 0);
	r.want_affine = true;
	st.nr[0] = 0;
	ck_assert_uint_eq(select_task_rq(&m, &v, &r), 0);
	/* sync: CPU 3 runs only the waker (1 < 2 would pick it anyway: make them equal) */
	st.nr[0] = 1;
	ck_assert_uint_eq(select_task_rq(&m, &v, &r), 0);
	r.sync = true;
	ck_assert_uint_eq(select_task_rq(&m, &v, &r), 4);
	machine_free(&m);
}
END_TEST

START_TEST(wake_wide_flips)
{
	/* record_wakee: a different wakee each time adds a flip; the same one does not;
	 * a second later the flips halve first. wake_wide with an LLC of 8: flips 100
	 * and 10: 10 >= 8 and 100 >= 80: wide; 100 and 7: no (7 < 8); 70 and 10: no. */
	struct wakee_record w = { .last_wakee = UINT32_MAX }, x = { 0 };

	wakee_record_wake(&w, 1, 0);
	wakee_record_wake(&w, 1, 10);
	wakee_record_wake(&w, 2, 20);
	ck_assert_uint_eq(w.flips, 2);
	wakee_record_wake(&w, 3, PS_PER_S + 30);
	ck_assert_uint_eq(w.flips, 2); /* halved to 1, then + 1 */
	w.flips = 100;
	x.flips = 10;
	ck_assert(wake_wide(&w, &x, 8));
	ck_assert(wake_wide(&x, &w, 8));
	x.flips = 7;
	ck_assert(!wake_wide(&w, &x, 8));
	w.flips = 70;
	x.flips = 10;
	ck_assert(!wake_wide(&w, &x, 8));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sched");
	TCase *fair = tcase_create("fair"), *idle = tcase_create("idle"), *sel = tcase_create("select");

	tcase_add_test(fair, base_slice_scales_with_log2_cpus);
	tcase_add_test(fair, eevdf_new_tasks_and_eligibility);
	tcase_add_test(fair, eevdf_eligible_first);
	tcase_add_test(fair, eevdf_run_to_parity);
	tcase_add_test(fair, eevdf_lag_placement_preempts);
	tcase_add_test(fair, eevdf_dequeue_lag);
	tcase_add_test(fair, eevdf_slice_end_seen_at_tick);
	tcase_add_test(fair, fifo_queue_order_and_slices);
	tcase_add_test(idle, menu_typical_interval);
	tcase_add_test(idle, haltpoll_and_wake_cost);
	tcase_add_test(sel, select_idle_sibling_order);
	tcase_add_test(sel, select_wake_affine);
	tcase_add_test(sel, wake_wide_flips);
	suite_add_tcase(s, fair);
	suite_add_tcase(s, idle);
	suite_add_tcase(s, sel);
	return tu_run_suite(s);
}
