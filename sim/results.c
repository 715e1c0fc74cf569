/* SPDX-License-Identifier: MIT */
#include "sim/results.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"

static char *capture(void (*print)(void *, FILE *), void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	print(arg, f);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

struct header_arg {
	const struct sim *s;
};

static void print_header(void *arg, FILE *f)
{
	const struct sim *s = ((struct header_arg *)arg)->s;

	s->sc->wl_type->print_header(s->sc->wl_params, s->wl, sim_window_secs(s), f);
}

struct perf_arg {
	const struct sim *s;
	bool summary;
};

static void print_perf(void *arg, FILE *f)
{
	const struct perf_arg *a = arg;

	a->s->sc->wl_type->print_perf(a->s->wl, a->summary, f);
}

struct thread_arg {
	const struct sim *s;
	const struct task *t;
	uint64_t ops_per_sec;
};

static void print_thread(void *arg, FILE *f)
{
	struct thread_arg *a = arg;

	a->s->sc->wl_type->print_thread(a->s->wl, a->t, a->ops_per_sec, f);
}

struct ranked {
	uint64_t key;
	uint64_t index;
};

static int by_key(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->key != y->key)
		return x->key > y->key ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

int results_top(const uint64_t *key, uint64_t n, uint32_t k, uint64_t *idx, uint32_t *count)
{
	struct ranked *rank = malloc((n ? n : 1) * sizeof(*rank));
	uint64_t m = 0;

	if (!rank)
		return -1;
	for (uint64_t i = 0; i < n; i++)
		if (key[i])
			rank[m++] = (struct ranked){ key[i], i };
	qsort(rank, m, sizeof(*rank), by_key);
	*count = m < k ? (uint32_t)m : k;
	for (uint32_t i = 0; i < *count; i++)
		idx[i] = rank[i].index;
	free(rank);
	return 0;
}

int results_rank(struct results *r, uint32_t k, uint32_t kb)
{
	uint64_t *key = malloc((r->nlines > r->nbuckets ? r->nlines : r->nbuckets ? r->nbuckets : 1) * sizeof(*key));
	int rc = -1;

	free(r->hot);
	free(r->hotb);
	r->nhot = r->nhotb = 0;
	r->hot = calloc(k ? k : 1, sizeof(*r->hot));
	r->hotb = calloc(kb ? kb : 1, sizeof(*r->hotb));
	if (!key || !r->hot || !r->hotb)
		goto out;
	/* rows are in line order: ties fall to the lower line */
	for (uint32_t i = 0; i < r->nlines; i++)
		key[i] = r->lines[i].total_transfers;
	if (results_top(key, r->nlines, k, r->hot, &r->nhot) < 0)
		goto out;
	for (uint64_t i = 0; i < r->nbuckets; i++)
		key[i] = r->buckets[i].wait_ps;
	rc = results_top(key, r->nbuckets, kb, r->hotb, &r->nhotb);
out:
	free(key);
	return rc;
}

struct results_text {
	struct results_text *next;
	size_t used, cap;
	char data[];
};

char *results_text(struct results *r, const char *s)
{
	size_t len = strlen(s) + 1;
	struct results_text *t = r->text;
	char *out;

	if (!t || t->cap - t->used < len) {
		size_t cap = len > ((size_t)1 << 20) ? len : (size_t)1 << 20;

		t = malloc(sizeof(*t) + cap);
		if (!t)
			return NULL;
		t->next = r->text;
		t->used = 0;
		t->cap = cap;
		r->text = t;
	}
	out = memcpy(t->data + t->used, s, len);
	t->used += len;
	return out;
}

/* Every line that saw traffic, with what lives on it. */
static int gather_lines(struct results *r, const struct sim *s)
{
	const struct coherence *coh = &s->coh;
	char *fields = NULL; /* the previous line's field names, shared while they repeat */
	const struct line_label *fields_of = NULL;
	uint32_t n = 0;

	for (uint32_t l = 0; l < coh->nlines; l++)
		n += coh_line_traffic(coh, l) != 0;
	r->lines = calloc(n ? n : 1, sizeof(*r->lines));
	if (!r->lines)
		return -1;
	for (uint32_t l = 0; l < coh->nlines; l++) {
		const struct line *ln = &coh->lines[l];
		const struct line_label *lab = &s->mem.labels[l];
		const struct mem_object *obj = &s->mem.objects[lab->object];
		struct line_result *h;
		char buf[512];

		if (!coh_line_traffic(coh, l))
			continue;
		h = &r->lines[r->nlines++];
		h->line = l;
		h->address = ln->addr;
		h->home_node = ln->home_node;
		h->reads = ln->reads;
		h->writes = ln->writes;
		h->fills = ln->stats.fills;
		h->queued_ps = ln->stats.queued_ps;
		memcpy(h->transfers, ln->stats.transfers, sizeof(h->transfers));
		for (int k = 0; k < XFER_NCLASSES; k++)
			h->total_transfers += ln->stats.transfers[k];
		h->object = obj->name;
		h->element = obj->element ? obj->element : "";
		h->first = lab->first;
		h->last = lab->last;
		h->mixed = lab->mixed;
		h->what = results_text(r, memmap_describe(&s->mem, l, buf, sizeof(buf)));
		if (!fields || fields_of->object != lab->object || fields_of->fields != lab->fields)
			fields = results_text(r, memmap_fields(&s->mem, l, buf, sizeof(buf)));
		fields_of = lab;
		h->fields = fields;
		if (!h->what || !h->fields)
			return -1;
	}
	return 0;
}

/* Every futex table and every bucket of each, with its lock's figures. */
static int gather_tables(struct results *r, const struct sim *s)
{
	const struct futex_tables *ft = &s->ft;
	uint64_t nb = 0, row = 0;

	for (uint32_t t = 0; t < ft->ntables; t++)
		nb += ft->tables[t]->size;
	r->tables = calloc(ft->ntables ? ft->ntables : 1, sizeof(*r->tables));
	r->buckets = calloc(nb ? nb : 1, sizeof(*r->buckets));
	if (!r->tables || !r->buckets)
		return -1;
	r->nbuckets = nb;
	for (uint32_t t = 0; t < ft->ntables; t++) {
		const struct futex_table *tab = ft->tables[t];
		struct table_result *tr = &r->tables[r->ntables++];
		uint64_t used = 0;

		tr->name = strdup(tab->name);
		tr->hash = strdup(tab->hash ? tab->hash->name : "");
		if (!tr->name || !tr->hash)
			return -1;
		tr->size = tab->size;
		tr->node = tab->node;
		tr->first_bucket = row;
		for (uint32_t b = 0; b < tab->size; b++, row++) {
			struct bucket_result *br = &r->buckets[row];

			br->table = t;
			br->bucket = b;
			br->hashed = tab->hashed[b];
			tr->futexes += tab->hashed[b];
			used += tab->hashed[b] != 0;
			if (tab->lock0 != SPIN_NONE) {
				const struct spinlock *l = &s->locks.locks[tab->lock0 + b];

				br->acquisitions = l->acquisitions;
				br->contended = l->contended;
				br->wait_ps = l->wait_ps;
			}
		}
		tr->collisions = tr->futexes - used;
	}
	return 0;
}

/* The workload's own figures, its latency histogram and the resizes of the run. */
static int gather_workload(struct results *r, const struct sim *s)
{
	struct workload_figures f = { 0 };

	if (s->sc->wl_type->figures && s->wl)
		s->sc->wl_type->figures(s->wl, &f);
	r->nfigures = f.n;
	memcpy(r->figures, f.v, sizeof(f.v[0]) * f.n);
	if (f.nbins) {
		r->lat_edges = malloc((f.nbins + 1) * sizeof(double));
		r->lat_counts = malloc(f.nbins * sizeof(double));
		if (!r->lat_edges || !r->lat_counts)
			return -1;
		memcpy(r->lat_edges, f.edges, (f.nbins + 1) * sizeof(double));
		memcpy(r->lat_counts, f.counts, f.nbins * sizeof(double));
		r->nlat_bins = f.nbins;
	}
	if (s->ft.nresizes) {
		r->resizes = malloc(s->ft.nresizes * sizeof(*r->resizes));
		if (!r->resizes)
			return -1;
		memcpy(r->resizes, s->ft.resizes, s->ft.nresizes * sizeof(*r->resizes));
		r->nresizes = s->ft.nresizes;
	}
	return 0;
}

char *results_join(const char *const *v, size_t n)
{
	size_t len = 1;
	char *out;

	for (size_t i = 0; i < n; i++)
		len += strlen(v[i]) + 1;
	out = malloc(len);
	if (!out)
		return NULL;
	out[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (i)
			strcat(out, " ");
		strcat(out, v[i]);
	}
	return out;
}

int results_header_from_sim(struct results *r, const struct sim *s)
{
	const struct scenario *sc = s->sc;
	struct header_arg ha = { s };

	memset(r, 0, sizeof(*r));
	r->version = strdup(FUTEXSIM_VERSION);
	r->overrides = results_join(sc->sets, sc->nsets);
	r->incomplete = s->interrupted;
	r->scenario = strdup(sc->name);
	r->machine = strdup(sc->machine.name);
	r->kernel = strdup(sc->kernel.name);
	r->workload = strdup(sc->wl_type->name);
	r->perf_header = capture(print_header, &ha);
	r->seed = sc->seed;
	r->warmup_ps = s->warmup_end;
	r->window_ps = sim_window_ps(s);
	return r->version && r->overrides && r->scenario && r->machine && r->kernel && r->workload && r->perf_header
		       ? 0
		       : -1;
}

int results_from_sim(struct results *r, const struct sim *s, uint32_t nhot, double wall_secs)
{
	double secs = sim_window_secs(s);
	uint64_t *per_thread;
	simtime_t steps[STEP_NSTEPS];

	if (results_header_from_sim(r, s) < 0)
		return -1;
	r->nthreads = s->nthreads;
	r->threads = calloc(r->nthreads ? r->nthreads : 1, sizeof(*r->threads));
	per_thread = calloc(r->nthreads ? r->nthreads : 1, sizeof(*per_thread));
	if (!r->threads || !per_thread) {
		free(per_thread);
		return -1;
	}
	for (uint32_t i = 0; i < r->nthreads; i++) {
		const struct task *t = &s->tasks.v[i];
		struct thread_result *tr = &r->threads[i];
		struct thread_arg ta;

		tr->id = t->id;
		tr->cpu = t->cpu;
		tr->node = t->node;
		if (s->sc->wl_type->role && !(tr->role = results_text(r, s->sc->wl_type->role(s->wl, t)))) {
			free(per_thread);
			return -1;
		}
		tr->ops = t->ops;
		tr->ops_per_sec = perf_ops_per_sec(t->ops, secs);
		tr->futex_calls = t->stats.futex_calls;
		tr->wakeups = t->stats.wakeups;
		tr->chain_walked = t->stats.chain_walked;
		tr->requeued = t->stats.requeued;
		tr->switches = t->stats.switches_in;
		tr->blocked_ps = t->stats.slept_ps;
		tasks_split_work(&s->tasks, t, sim_window_stop(s), tr->time_ps, steps);
		tr->has_time = true;
		for (int k = 0; k < STEP_NSTEPS; k++)
			r->kernel_steps_ps[k] += steps[k];
		ta = (struct thread_arg){ s, t, tr->ops_per_sec };
		tr->perf_line = capture(print_thread, &ta);
		per_thread[i] = tr->ops_per_sec;
		r->total_ops += t->ops;
		r->ops_simulated += t->programs_run;
		if (!tr->perf_line) {
			free(per_thread);
			return -1;
		}
	}
	r->avg = perf_average(per_thread, r->nthreads);
	r->has_steps = true;
	free(per_thread);
	if (s->sc->wl_type->print_perf) {
		struct perf_arg runs = { s, false }, summary = { s, true };

		r->perf_runs = capture(print_perf, &runs);
		r->perf_summary = capture(print_perf, &summary);
		if (!r->perf_runs || !r->perf_summary)
			return -1;
	}
	memcpy(r->transfers, s->coh.total_transfers, sizeof(r->transfers));
	r->fills = s->coh.total_fills;
	r->directory_reads = s->coh.dir.misses;
	r->wall_secs = wall_secs;
	r->events = s->eng.events;
	r->simulated_ps = s->eng.now;
	r->ops_clamped = s->series.ops_clamped;
	r->nodes = s->m->nodes;
	r->node_transfers = malloc((size_t)r->nodes * r->nodes * sizeof(*r->node_transfers));
	if (!r->node_transfers)
		return -1;
	memcpy(r->node_transfers, s->coh.node_transfers, (size_t)r->nodes * r->nodes * sizeof(*r->node_transfers));
	return gather_workload(r, s) < 0 || gather_lines(r, s) < 0 || gather_tables(r, s) < 0 ? -1
											   : results_rank(r, nhot, 0);
}

void results_free(struct results *r)
{
	free(r->version);
	free(r->overrides);
	free(r->scenario);
	free(r->machine);
	free(r->kernel);
	free(r->workload);
	free(r->perf_header);
	free(r->perf_runs);
	free(r->perf_summary);
	for (uint32_t i = 0; r->threads && i < r->nthreads; i++)
		free(r->threads[i].perf_line);
	free(r->threads);
	free(r->lines);
	while (r->text) {
		struct results_text *next = r->text->next;

		free(r->text);
		r->text = next;
	}
	free(r->hot);
	for (uint32_t i = 0; r->tables && i < r->ntables; i++) {
		free(r->tables[i].name);
		free(r->tables[i].hash);
	}
	free(r->tables);
	free(r->buckets);
	free(r->hotb);
	free(r->node_transfers);
	free(r->lat_edges);
	free(r->lat_counts);
	free(r->resizes);
	memset(r, 0, sizeof(*r));
}

/* The blocking figures of every thread, summed. */
struct blocking_totals results_blocking_totals(const struct results *r)
{
	struct blocking_totals b = { 0 };
	double blocked = 0, thread_ps = (double)r->window_ps * r->nthreads;

	for (uint32_t i = 0; i < r->nthreads; i++) {
		const struct thread_result *t = &r->threads[i];

		b.calls += t->futex_calls;
		b.wakeups += t->wakeups;
		b.walked += t->chain_walked;
		b.requeued += t->requeued;
		b.switches += t->switches;
		blocked += (double)t->blocked_ps;
	}
	b.blocked_ps = blocked;
	b.asleep_pct = thread_ps > 0 ? 100.0 * blocked / thread_ps : 0.0;
	return b;
}

/* Line transfers of every class per op in the window. */
double results_transfers_per_op(const struct results *r)
{
	uint64_t all = 0;

	for (int k = 0; k < XFER_NCLASSES; k++)
		all += r->transfers[k];
	return r->total_ops ? (double)all / (double)r->total_ops : 0.0;
}

double results_class_ns_per_op(const struct results *r, int k)
{
	double sum = 0;

	if (!r->nthreads || !r->threads[0].has_time || !r->total_ops)
		return -1;
	for (uint32_t i = 0; i < r->nthreads; i++)
		sum += (double)r->threads[i].time_ps[k];
	return sum / 1e3 / (double)r->total_ops;
}
