/* SPDX-License-Identifier: MIT */
#include "sim/sim.h"

#include "sim/estimate.h"

#include <string.h>

/* The measuring window starts: counters restart from zero. */
static void on_control(void *ctx, uint32_t target)
{
	struct sim *s = ctx;

	(void)target;
	coh_reset_stats(&s->coh);
	spinlocks_reset_stats(&s->locks);
	rwsems_reset_stats(&s->rwsems);
	tasks_reset_stats(&s->tasks);
}

/* Called for every op counted (a program, or what the workload counts itself) at
 * its completion time t->clock (models/task.h); the time series takes exactly the
 * ones task->ops counts: those inside the window (an op may complete past its
 * end, and would land in a last interval shorter than output.interval). */
static void op_counted(void *ctx, struct task *t)
{
	struct sim *s = ctx;

	if (t->id < s->nthreads && task_in_window(&s->tasks, t))
		series_note_op(&s->series, t->id, t->clock);
}

int sim_build(struct sim *s, const struct scenario *sc, struct fs_error *e)
{
	uint32_t ntasks = sc->wl_type->ntasks(sc->wl_params);
	struct estimate est;

	memset(s, 0, sizeof(*s));
	/* refused before anything is allocated, rather than killed by the OS halfway */
	estimate_memory(sc, &est);
	if (estimate_check_sums(sc, e) < 0 || estimate_check_memory(sc, &est, e) < 0)
		return -1;
	s->sc = sc;
	s->nthreads = sc->wl_type->nthreads(sc->wl_params);
	s->m = &sc->machine;
	s->k = &sc->kernel;
	s->warmup_end = sc->warmup;
	s->end = sc->warmup + sc->duration;
	if (engine_init_queue(&s->eng, sc->event_queue) < 0 || tasks_init(&s->tasks, &s->eng, s->m, ntasks) < 0 ||
	    series_init(&s->series, &s->eng, &s->coh, s->nthreads, s->warmup_end, s->end, sc->interval) < 0 ||
	    coh_init(&s->coh, s->m, &s->eng, ntasks, tasks_on_grant, &s->tasks) < 0 ||
	    spinlocks_init(&s->locks, ntasks, s->k->spinlock) < 0 || rwsems_init(&s->rwsems, ntasks) < 0 ||
	    memmap_init(&s->mem, &s->coh, s->m->nodes, sc->user_base) < 0)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory building the simulation");
	s->rng = gsl_rng_alloc(gsl_rng_mt19937);
	if (!s->rng)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory building the simulation");
	gsl_rng_set(s->rng, sc->seed);
	s->control_kind = engine_register(&s->eng, on_control, s);
	if (futex_tables_init(&s->ft, s->k, s->m, &s->mem, &s->locks, &s->rwsems, e) < 0)
		return -1;
	tasks_attach(&s->tasks, &s->coh, &s->locks, &s->rwsems, s->ft.qnode_lines);
	tasks_configure(&s->tasks, s->k, s->rng, s->warmup_end, s->end, op_counted, s);
	s->world = (struct world){ .m = s->m, .k = s->k, .eng = &s->eng, .coh = &s->coh, .mem = &s->mem,
				   .ft = &s->ft, .tasks = &s->tasks, .rng = s->rng };
	if (sc->wl_type->setup(&s->world, sc->wl_params, &s->wl, e) < 0)
		return -1;
	/* each completed program goes straight to the workload, which sets the next */
	tasks_set_program_done(&s->tasks, sc->wl_type->program_done, s->wl);
	/* Lines the threads share (buckets, mostly), touched at random: when their
	 * states outgrow a host's L2 (16384 of them: 2 MiB of line state, and their
	 * locks), each event's are fetched while the one before it runs. Below that the
	 * hooks only cost (a private hash of 1024 buckets for 1024 threads: 10% slower). */
	s->eng.prefetch_next = coh_shared_lines(&s->coh) >= 16384;
	/* built (cheap next to the run): its programs bound the events */
	estimate_events(sc, &s->tasks, s->series.nintervals, &est);
	return estimate_check_events(sc, &est, e);
}

void sim_start(struct sim *s)
{
	if (s->warmup_end > 0)
		engine_schedule(&s->eng, s->warmup_end, s->control_kind, 0);
	series_start(&s->series);
}

void sim_advance(struct sim *s, simtime_t until)
{
	engine_run(&s->eng, until < s->end ? until : s->end);
}

int sim_run(struct sim *s, struct fs_error *e)
{
	sim_start(s);
	sim_advance(s, s->end);
	return sim_finish(s, e);
}

int sim_finish(struct sim *s, struct fs_error *e)
{
	if (s->eng.out_of_memory)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory while simulating");
	if (s->tasks.stalled)
		return fs_fail(e, FS_ERR_INPUT,
			       "simulated time stopped at %.6g ms: a thread completed %u operations in a row that "
			       "took no simulated time (expected costs that add up to more than 0 on every loop)",
			       (double)s->eng.now / 1e9, TASK_MAX_PROGRAMS_SAME_TIME);
	/* stopped by the flag with work left before the end (not just flagged late) */
	s->interrupted = s->eng.interrupt && *s->eng.interrupt && engine_next_time(&s->eng) < s->end;
	return series_finish(&s->series, s->interrupted || s->tasks.finished, e);
}

void sim_free(struct sim *s)
{
	if (s->wl && s->sc)
		s->sc->wl_type->free_state(s->wl);
	if (s->rng)
		gsl_rng_free(s->rng);
	futex_tables_free(&s->ft);
	memmap_free(&s->mem);
	spinlocks_free(&s->locks);
	rwsems_free(&s->rwsems);
	coh_free(&s->coh);
	tasks_free(&s->tasks);
	series_free(&s->series);
	engine_free(&s->eng);
	memset(s, 0, sizeof(*s));
}

void sim_release_models(struct sim *s)
{
	if (s->wl && s->sc)
		s->sc->wl_type->free_state(s->wl);
	s->wl = NULL;
	futex_tables_free(&s->ft);
	spinlocks_free(&s->locks);
	rwsems_free(&s->rwsems);
	coh_free(&s->coh);
	tasks_free(&s->tasks);
}

simtime_t sim_window_ps(const struct sim *s)
{
	/* interrupted, or the workload finished early (perf's repeated-run suites) */
	simtime_t stop = s->interrupted || s->tasks.finished ? s->eng.now : s->end;

	return stop > s->warmup_end ? stop - s->warmup_end : 0;
}

simtime_t sim_window_stop(const struct sim *s)
{
	return s->warmup_end + sim_window_ps(s);
}

double sim_window_secs(const struct sim *s)
{
	return (double)sim_window_ps(s) / 1e12;
}
