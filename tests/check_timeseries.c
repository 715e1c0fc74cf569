/* SPDX-License-Identifier: MIT */
/* Tests of sim/timeseries.c with a scripted engine: ops reported ahead of the
 * engine land in the interval of their completion time, transfers in the
 * interval the sampler saw them in, rows reach the sink a chunk at a time, and
 * an interrupted run closes only the intervals it reached. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "sim/timeseries.h"
#include "tests/testutil.h"

#define US 1000000ull

/* What the sink received, row by row. */
struct captured {
	uint32_t calls, rows, nthreads;
	uint64_t time[64], ops[64][32], transfers[64][XFER_NCLASSES];
	int fail;
};

static int sink(void *ctx, const struct series_rows *r, struct fs_error *e)
{
	struct captured *c = ctx;

	if (c->fail)
		return fs_fail(e, FS_ERR_OUTPUT, "disk full (test)");
	c->calls++;
	ck_assert_uint_eq(r->nthreads, c->nthreads);
	ck_assert_uint_le(r->nthreads, 32);
	for (uint32_t i = 0; i < r->n; i++, c->rows++) {
		ck_assert_uint_lt(c->rows, 64);
		c->time[c->rows] = r->time[i];
		memcpy(c->ops[c->rows], &r->ops[(size_t)i * r->nthreads], r->nthreads * sizeof(uint64_t));
		memcpy(c->transfers[c->rows], r->transfers[i], sizeof(c->transfers[0]));
	}
	return 0;
}

/* A scripted model: at each step's time, report ops and bump transfer totals. */
struct step {
	simtime_t at;
	uint32_t task;
	simtime_t done;      /* op completion time reported (0: no op) */
	uint64_t transfers;  /* added to the node-class total */
};

struct script {
	struct timeseries *series;
	struct coherence *coh;
	const struct step *steps;
};

static void on_step(void *ctx, uint32_t i)
{
	struct script *sc = ctx;
	const struct step *s = &sc->steps[i];

	if (s->done)
		series_note_op(sc->series, s->task, s->done);
	sc->coh->total_transfers[XFER_NODE] += s->transfers;
}

struct rig {
	struct engine eng;
	struct coherence coh;
	struct timeseries series;
	struct captured cap;
	struct script script;
};

/* Window [10us, 10us + 45us) in intervals of `interval`. */
static void rig_init_every(struct rig *r, simtime_t interval, uint32_t nthreads, const struct step *steps,
			   uint32_t nsteps)
{
	memset(r, 0, sizeof(*r));
	ck_assert_int_eq(engine_init(&r->eng), 0);
	ck_assert_int_eq(series_init(&r->series, &r->eng, &r->coh, nthreads, 10 * US, 55 * US, interval), 0);
	r->cap.nthreads = nthreads;
	series_set_sink(&r->series, sink, &r->cap);
	r->script = (struct script){ &r->series, &r->coh, steps };
	{
		uint32_t kind = engine_register(&r->eng, on_step, &r->script);

		for (uint32_t i = 0; i < nsteps; i++)
			engine_schedule(&r->eng, steps[i].at, kind, i);
	}
	series_start(&r->series);
}

/* In 10us intervals: rows at 10, 20, 30, 40, 50us, the last one 5us long. */
static void rig_init(struct rig *r, uint32_t nthreads, const struct step *steps, uint32_t nsteps)
{
	rig_init_every(r, 10 * US, nthreads, steps, nsteps);
}

static void rig_free(struct rig *r)
{
	series_free(&r->series);
	engine_free(&r->eng);
}

START_TEST(test_ops_land_in_their_interval)
{
	/* task 1 runs ahead: at 12us it reports ops done at 13, 27 and 51us */
	static const struct step steps[] = {
		{ 11 * US, 0, 11 * US, 0 },
		{ 12 * US, 1, 13 * US, 0 },
		{ 12 * US, 1, 27 * US, 0 },
		{ 12 * US, 1, 51 * US, 0 },
		{ 20 * US, 0, 20 * US, 0 }, /* exactly on a boundary: the later interval */
		{ 39 * US, 0, 44 * US, 0 },
		{ 54 * US, 0, 54 * US, 0 },
	};
	static const uint64_t expect[5][2] = { { 1, 1 }, { 1, 1 }, { 0, 0 }, { 1, 0 }, { 1, 1 } };
	struct rig r;
	struct fs_error e = { 0 };

	rig_init(&r, 2, steps, sizeof(steps) / sizeof(steps[0]));
	engine_run(&r.eng, 55 * US);
	ck_assert_int_eq(series_finish(&r.series, false, &e), 0);
	ck_assert_uint_eq(r.cap.rows, 5);
	for (uint32_t i = 0; i < 5; i++) {
		ck_assert_uint_eq(r.cap.time[i], (10 + 10 * i) * US);
		ck_assert_uint_eq(r.cap.ops[i][0], expect[i][0]);
		ck_assert_uint_eq(r.cap.ops[i][1], expect[i][1]);
	}
	ck_assert_uint_eq(r.series.ops_clamped, 0);
	rig_free(&r);
}
END_TEST

START_TEST(test_transfers_per_interval)
{
	static const struct step steps[] = {
		{ 15 * US, 0, 0, 3 }, { 25 * US, 0, 0, 4 }, { 29 * US, 0, 0, 1 }, { 52 * US, 0, 0, 7 },
	};
	static const uint64_t expect[5] = { 3, 5, 0, 0, 7 };
	struct rig r;
	struct fs_error e = { 0 };

	rig_init(&r, 1, steps, 4);
	engine_run(&r.eng, 55 * US);
	ck_assert_int_eq(series_finish(&r.series, false, &e), 0);
	ck_assert_uint_eq(r.cap.rows, 5);
	for (uint32_t i = 0; i < 5; i++) {
		ck_assert_uint_eq(r.cap.transfers[i][XFER_NODE], expect[i]);
		ck_assert_uint_eq(r.cap.transfers[i][XFER_SMT], 0);
	}
	rig_free(&r);
}
END_TEST

/* One task that runs far ahead (as a task sharing no line does): the ring grows
 * from its first 4 slots, and every op still lands in its own interval. */
START_TEST(test_ring_grows)
{
	struct step steps[45];
	struct rig r;
	struct fs_error e = { 0 };

	for (uint32_t i = 0; i < 45; i++)
		steps[i] = (struct step){ 10 * US, 0, 10 * US + i * US, 0 };
	/* 1us intervals this time: 45 rows, ops up to 44 intervals ahead */
	rig_init_every(&r, 1 * US, 1, steps, 45);
	engine_run(&r.eng, 55 * US);
	ck_assert_int_eq(series_finish(&r.series, false, &e), 0);
	ck_assert_uint_ge(r.series.ring_slots, 45);
	ck_assert_uint_eq(r.cap.rows, 45);
	for (uint32_t i = 0; i < 45; i++)
		ck_assert_uint_eq(r.cap.ops[i][0], 1);
	rig_free(&r);
}
END_TEST

/* Beyond TS_MAX_AHEAD_BYTES of ring the op is kept in the farthest interval
 * the ring holds, and counted as clamped: sums stay exact. */
START_TEST(test_clamp_beyond_horizon)
{
	const uint32_t n = 1u << 17; /* 64 MiB / (n * 8) = 64 slots at most */
	struct engine eng;
	struct coherence coh;
	struct timeseries series;
	struct fs_error e = { 0 };

	memset(&coh, 0, sizeof(coh));
	ck_assert_int_eq(engine_init(&eng), 0);
	ck_assert_int_eq(series_init(&series, &eng, &coh, n, 0, 1000 * US, 1 * US), 0);
	series_note_op(&series, 5, 10 * US);
	series_note_op(&series, 5, 500 * US);
	ck_assert_uint_eq(series.ops_clamped, 1);
	ck_assert_uint_eq(series.ring_slots, 64);
	ck_assert_uint_eq(series.ring[(10 % 64) * n + 5], 1);
	ck_assert_uint_eq(series.ring[(63 % 64) * n + 5], 1);
	ck_assert_int_eq(series_finish(&series, true, &e), 0);
	series_free(&series);
	engine_free(&eng);
}
END_TEST

/* Interrupted at 32us: rows up to the interval holding 32us, or further when a
 * task already completed ops there. */
START_TEST(test_interrupted_rows)
{
	static const struct step quiet[] = { { 32 * US, 0, 32 * US, 2 } };
	static const struct step ahead[] = { { 32 * US, 0, 47 * US, 2 } };
	struct rig r;
	struct fs_error e = { 0 };

	rig_init(&r, 1, quiet, 1);
	engine_run(&r.eng, 33 * US);
	ck_assert_int_eq(series_finish(&r.series, true, &e), 0);
	ck_assert_uint_eq(r.cap.rows, 3);
	ck_assert_uint_eq(r.cap.ops[2][0], 1);
	ck_assert_uint_eq(r.cap.transfers[2][XFER_NODE], 2);
	rig_free(&r);

	rig_init(&r, 1, ahead, 1);
	engine_run(&r.eng, 33 * US);
	ck_assert_int_eq(series_finish(&r.series, true, &e), 0);
	ck_assert_uint_eq(r.cap.rows, 4);
	ck_assert_uint_eq(r.cap.ops[2][0], 0);
	ck_assert_uint_eq(r.cap.ops[3][0], 1);
	ck_assert_uint_eq(r.cap.transfers[2][XFER_NODE], 2);
	rig_free(&r);
}
END_TEST

/* Rows go out a chunk at a time: with 8192 threads a chunk is one row. */
START_TEST(test_chunks_and_sink_failure)
{
	struct rig r;
	struct fs_error e = { 0 };

	ck_assert_uint_eq(series_chunk_rows(1), 8192);
	ck_assert_uint_eq(series_chunk_rows(28), 292);
	ck_assert_uint_eq(series_chunk_rows(8192), 1);
	ck_assert_uint_eq(series_chunk_rows(1u << 16), 1);

	rig_init(&r, 1, NULL, 0);
	engine_run(&r.eng, 55 * US);
	ck_assert_uint_eq(r.cap.calls, 0); /* 5 rows, chunks of 8192: all at the end */
	ck_assert_int_eq(series_finish(&r.series, false, &e), 0);
	ck_assert_uint_eq(r.cap.calls, 1);
	ck_assert_uint_eq(r.cap.rows, 5);
	rig_free(&r);

	/* a failing sink stops the engine and the error comes back from series_finish */
	rig_init(&r, 1, NULL, 0);
	r.cap.fail = 1;
	engine_run(&r.eng, 55 * US);
	ck_assert_int_eq(series_finish(&r.series, false, &e), -1);
	ck_assert_int_eq(e.status, FS_ERR_OUTPUT);
	ck_assert_str_eq(e.msg, "disk full (test)");
	ck_assert(r.eng.stop);
	rig_free(&r);
}
END_TEST

/* In a real run every task's ops sum over the rows to task->ops, and the
 * transfers to the coherence totals, also for one thread, which runs ahead
 * of the engine for the whole window; its ops spread over every interval.
 * The 28-thread runs end in a short interval, and a thread there completes
 * an op just past the window's end, which neither counts. */
START_TEST(test_sums_in_a_run)
{
	static const struct {
		const char *scenario;
		const char *sets[4];
		uint32_t rows;
	} runs[] = {
		{ "scenarios/quickstart.yaml",
		  { "run.duration=300us", "run.warmup=30us", "workload.threads=1", "output.interval=10us" }, 30 },
		{ "scenarios/quickstart.yaml", { "run.duration=300us", "run.warmup=30us", "output.interval=7us" }, 43 },
		{ "scenarios/e5-2650-hashbench.yaml",
		  { "run.duration=300us", "run.warmup=50us", "output.interval=200us" }, 2 },
		{ "scenarios/e5-2650-hashbench.yaml",
		  { "run.duration=500us", "run.warmup=50us", "output.interval=200us" }, 3 },
	};

	for (size_t k = 0; k < sizeof(runs) / sizeof(runs[0]); k++) {
		struct tu_run r;
		struct captured *cap = calloc(1, sizeof(*cap));
		struct fs_error e = { 0 };
		uint64_t xfer = 0;
		size_t nsets = 0;

		while (nsets < 4 && runs[k].sets[nsets])
			nsets++;
		ck_assert_ptr_nonnull(cap);
		ck_assert_msg(scenario_load(&r.sc, runs[k].scenario, runs[k].sets, nsets, &e) == 0, "%s", e.msg);
		ck_assert_msg(sim_build(&r.s, &r.sc, &e) == 0, "%s", e.msg);
		cap->nthreads = r.s.tasks.n;
		series_set_sink(&r.s.series, sink, cap);
		ck_assert_msg(sim_run(&r.s, &e) == 0, "%s", e.msg);
		ck_assert_uint_eq(cap->rows, runs[k].rows);
		for (uint32_t t = 0; t < r.s.tasks.n; t++) {
			uint64_t sum = 0;

			for (uint32_t i = 0; i < cap->rows; i++) {
				sum += cap->ops[i][t];
				/* 1 thread does ~3 ops/us: every interval has some */
				if (k == 0)
					ck_assert_uint_gt(cap->ops[i][t], 10);
			}
			ck_assert_msg(sum == r.s.tasks.v[t].ops, "%s run %zu thread %u: %llu ops in the rows, %llu counted",
				      runs[k].scenario, k, t, (unsigned long long)sum,
				      (unsigned long long)r.s.tasks.v[t].ops);
		}
		for (uint32_t i = 0; i < cap->rows; i++)
			for (int c = 0; c < XFER_NCLASSES; c++)
				xfer += cap->transfers[i][c];
		ck_assert_uint_eq(xfer, r.s.coh.total_transfers[0] + r.s.coh.total_transfers[1] +
					       r.s.coh.total_transfers[2]);
		tu_run_free(&r);
		free(cap);
	}
}
END_TEST

/* Sampling is observation: the sampler's events may stop tasks from running
 * ahead past a boundary (they wait for an event instead), which the task model
 * says gives the same result. Every interval, or none at all, the same run. */
START_TEST(test_interval_does_not_change_the_run)
{
	static const char *const fine[] = { "run.duration=300us", "run.warmup=50us", "output.interval=1us" };
	static const char *const none[] = { "run.duration=300us", "run.warmup=50us", "output.interval=300us" };
	struct tu_run a, b;

	tu_run(&a, "scenarios/e5-2650-hashbench.yaml", fine, 3);
	tu_run(&b, "scenarios/e5-2650-hashbench.yaml", none, 3);
	ck_assert_uint_eq(a.s.series.nintervals, 300);
	ck_assert_uint_eq(b.s.series.nintervals, 1);
	for (uint32_t t = 0; t < a.s.tasks.n; t++)
		ck_assert_uint_eq(a.s.tasks.v[t].ops, b.s.tasks.v[t].ops);
	ck_assert_mem_eq(a.s.coh.total_transfers, b.s.coh.total_transfers, sizeof(a.s.coh.total_transfers));
	ck_assert_uint_eq(a.s.coh.total_fills, b.s.coh.total_fills);
	tu_run_free(&a);
	tu_run_free(&b);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("timeseries");
	TCase *tc = tcase_create("sampler");

	tcase_add_test(tc, test_ops_land_in_their_interval);
	tcase_add_test(tc, test_transfers_per_interval);
	tcase_add_test(tc, test_ring_grows);
	tcase_add_test(tc, test_clamp_beyond_horizon);
	tcase_add_test(tc, test_interrupted_rows);
	tcase_add_test(tc, test_chunks_and_sink_failure);
	tcase_add_test(tc, test_sums_in_a_run);
	tcase_add_test(tc, test_interval_does_not_change_the_run);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(suite());
}
