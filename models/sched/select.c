/* SPDX-License-Identifier: MIT */
#include "models/sched/select.h"

#define NO_CPU UINT32_MAX

void wakee_record_wake(struct wakee_record *waker, uint32_t wakee, simtime_t now)
{
	if (now >= waker->decay_at) {
		waker->flips >>= 1;
		waker->decay_at = now + PS_PER_S;
	}
	if (waker->last_wakee != wakee) {
		waker->last_wakee = wakee;
		waker->flips++;
	}
}

bool wake_wide(const struct wakee_record *waker, const struct wakee_record *wakee, uint32_t llc_size)
{
	uint32_t master = waker->flips, slave = wakee->flips;

	if (master < slave) {
		uint32_t t = master;

		master = slave;
		slave = t;
	}
	return !(slave < llc_size || master < (uint64_t)slave * llc_size);
}

static bool share_llc(const struct machine *m, uint32_t a, uint32_t b)
{
	return m->cpu_cluster[a] == m->cpu_cluster[b];
}

static uint32_t wake_affine(const struct machine *m, const struct cpu_view *v, const struct wake_request *r)
{
	uint32_t this = r->waker_cpu, prev = r->prev;

	/* wake_affine_idle */
	if (v->idle(v->ctx, this) && share_llc(m, this, prev))
		return v->idle(v->ctx, prev) ? prev : this;
	if (r->sync && v->nr_running(v->ctx, this) == 1)
		return this;
	if (v->idle(v->ctx, prev))
		return prev;
	/* wake_affine_weight, by queue lengths; a sync waker's own load does not count */
	return v->nr_running(v->ctx, this) - (r->sync ? 1 : 0) < v->nr_running(v->ctx, prev) ? this : prev;
}

static bool core_idle(const struct machine *m, const struct cpu_view *v, uint32_t cpu)
{
	for (uint32_t smt = 0; smt < m->threads_per_core; smt++)
		if (!v->idle(v->ctx, machine_cpu_of(m, m->cpu_core[cpu], smt)))
			return false;
	return true;
}

/* select_idle_cpu over target's LLC (and the allowed CPUs), from target + 1. */
static uint32_t scan_llc(const struct machine *m, const struct cpu_view *v, const struct wake_request *r,
			 uint32_t target)
{
	uint32_t idle_cpu = NO_CPU;

	for (uint32_t k = 1; k <= m->ncpus; k++) {
		uint32_t cpu = (target + k) % m->ncpus;

		if (!share_llc(m, cpu, target) || !cpu_mask_has(r->allowed, cpu) || !v->idle(v->ctx, cpu))
			continue;
		if (core_idle(m, v, cpu))
			return cpu;
		if (idle_cpu == NO_CPU)
			idle_cpu = cpu;
	}
	return idle_cpu;
}

static uint32_t select_idle_sibling(const struct machine *m, const struct cpu_view *v, const struct wake_request *r,
				    uint32_t target)
{
	uint32_t prev = r->prev, recent = r->recent_used_cpu, cpu;

	if (v->idle(v->ctx, target))
		return target;
	if (prev != target && share_llc(m, prev, target) && v->idle(v->ctx, prev))
		return prev;
	if (recent != NO_CPU && recent != prev && recent != target && share_llc(m, recent, target) &&
	    cpu_mask_has(r->allowed, recent) && v->idle(v->ctx, recent))
		return recent;
	cpu = scan_llc(m, v, r, target);
	return cpu != NO_CPU ? cpu : target;
}

uint32_t select_task_rq(const struct machine *m, const struct cpu_view *v, const struct wake_request *r)
{
	uint32_t target = r->prev;

	if (r->want_affine && r->waker_cpu != r->prev)
		target = wake_affine(m, v, r);
	return select_idle_sibling(m, v, r, target);
}
