/* SPDX-License-Identifier: MIT */
#include "sim/results.h"

#include <stdlib.h>
#include <string.h>

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

/* A figure's value in readable units: times in ns/us/ms, counts whole. */
static void print_value(FILE *out, double v, const char *units)
{
	if (strcmp(units, "ps") == 0) {
		if (v >= 1e9)
			fprintf(out, "%.3f ms", v / 1e9);
		else if (v >= 1e6)
			fprintf(out, "%.3f us", v / 1e6);
		else
			fprintf(out, "%.1f ns", v / 1e3);
	} else if (strcmp(units, "count") == 0) {
		fprintf(out, "%.0f", v);
	} else {
		fprintf(out, "%.4g", v);
	}
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

/* Waits, wakes, switches and resizes; the workload's own figures. Nothing for a
 * run that never blocked, switched or resized (hash-bench). */
static void print_blocking(const struct results *r, FILE *out)
{
	struct blocking_totals b = results_blocking_totals(r);

	if (b.calls || b.wakeups || b.switches || b.blocked_ps > 0)
		fprintf(out,
			"  blocking         %llu futex calls, %llu wake-ups, %llu chain entries walked, %llu requeued; "
			"%.1f%% of thread time asleep; %llu context switches\n",
			(unsigned long long)b.calls, (unsigned long long)b.wakeups, (unsigned long long)b.walked,
			(unsigned long long)b.requeued, b.asleep_pct, (unsigned long long)b.switches);
	if (r->nfigures) {
		fprintf(out, "  %s figures:\n", r->workload);
		for (uint32_t i = 0; i < r->nfigures; i++) {
			fprintf(out, "    %-30s ", r->figures[i].name);
			print_value(out, r->figures[i].value, r->figures[i].units);
			fputc('\n', out);
		}
	}
	for (uint32_t i = 0; i < r->nresizes; i++) {
		const struct futex_resize *z = &r->resizes[i];

		fprintf(out, "  resize %-9u process %u private hash %u -> %u buckets at %.3f ms", i + 1, z->pid, z->from,
			z->to, (double)z->start / 1e9);
		if (z->end == SIMTIME_MAX)
			fprintf(out, ", not published by the end\n");
		else
			fprintf(out, ", in use %.3f ms later\n", (double)(z->end - z->start) / 1e9);
	}
}

/* Line transfers of every class per op in the window. */
double results_transfers_per_op(const struct results *r)
{
	uint64_t all = 0;

	for (int k = 0; k < XFER_NCLASSES; k++)
		all += r->transfers[k];
	return r->total_ops ? (double)all / (double)r->total_ops : 0.0;
}

static void print_si(FILE *out, double v)
{
	if (v >= 1e9)
		fprintf(out, "%.2fG", v / 1e9);
	else if (v >= 1e6)
		fprintf(out, "%.2fM", v / 1e6);
	else if (v >= 1e3)
		fprintf(out, "%.2fk", v / 1e3);
	else
		fprintf(out, "%.0f", v);
}

void results_print_header(const struct results *r, FILE *out)
{
	fprintf(out, "# futexsim %s: scenario %s, machine %s, kernel %s, seed %llu\n", r->version,
		r->scenario, r->machine, r->kernel, (unsigned long long)r->seed);
	if (strcmp(r->workload, "hash-bench") == 0)
		fprintf(out, "# Running 'futex/hash' benchmark (simulated):\n");
	else if (!strcmp(r->workload, "wake") || !strcmp(r->workload, "wake-parallel") ||
		 !strcmp(r->workload, "requeue") || !strcmp(r->workload, "lock-pi")) /* perf's other suites, same names */
		fprintf(out, "# Running 'futex/%s' benchmark (simulated):\n", r->workload);
	else
		fprintf(out, "# Running the '%s' workload (simulated):\n", r->workload);
	fputs(r->perf_header, out);
}

void results_print_figures(const struct results *r, int per_thread, FILE *out)
{
	double secs = (double)r->window_ps / 1e12;

	if (r->perf_summary) {
		if (per_thread)
			fputs(r->perf_runs, out);
		fputs(r->perf_summary, out);
		fputc('\n', out);
		results_print_own_figures(r, out);
		return;
	}
	if (per_thread) {
		for (uint32_t i = 0; i < r->nthreads; i++)
			fputs(r->threads[i].perf_line, out);
		fputc('\n', out);
	}
	fprintf(out, "Averaged %llu operations/sec (+- %.2f%%), total secs = %.6g\n\n",
		(unsigned long long)r->avg.mean, r->avg.stderr_pct, secs);
	results_print_own_figures(r, out);
}

void results_print_perf(const struct results *r, int silent, FILE *out)
{
	if (r->perf_summary) {
		/* print_summary() of futex-wake.c, futex-wake-parallel.c, futex-requeue.c;
		 * the per-run lines unless silent */
		if (!silent)
			fputs(r->perf_runs, out);
		fputs(r->perf_summary, out);
		return;
	}
	if (!silent) {
		for (uint32_t i = 0; i < r->nthreads; i++)
			fputs(r->threads[i].perf_line, out);
	}
	/* print_summary() of tools/perf/bench/futex-hash.c: "%sAveraged %ld operations/sec
	 * (+- %.2f%%), total secs = %d\n", the blank line only after per-thread lines,
	 * the seconds whole (perf's (int)bench__runtime.tv_sec) */
	fprintf(out, "%sAveraged %llu operations/sec (+- %.2f%%), total secs = %d\n", silent ? "" : "\n",
		(unsigned long long)r->avg.mean, r->avg.stderr_pct, (int)(r->window_ps / 1000000000000ull));
}

/* The futex path steps that touch a line, from the fields on it (its `fields`, or
 * the "(a,b)" list its description ends with) or what it is (docs/kernel.md). */
static void steps_of(const struct line_result *l, char *buf, size_t size)
{
	static const struct {
		const char *key, *steps;
	} by_field[] = {
		{ "waiters", "waiters_inc/dec" },
		{ "lock", "lock/unlock" },
		{ "chain", "queue, walks, pi steps" },
		{ "priv", "hash_lookup/put (hb->priv)" },
		{ "users", "hash_lookup/put (rcuref)" },
		{ "hash_mask", "hash_lookup" },
		{ "immutable", "hash_lookup/put" },
		{ "futex_phash", "hash_lookup" },
		{ "futex_ref", "hash_lookup/put (per-CPU ref)" },
		{ "futex_atomic", "hash_lookup/put (atomic mode)" },
		{ "mmap_lock", "mmap_read_lock/unlock" },
		{ "mm_count", "key_ref_get/put" },
		{ "mmap_cache", "find_vma" },
		{ "qnode", "lock (MCS hand-off)" },
	}, by_what[] = {
		{ "pi_state", "pi_attach, pi_fixup, pi_unlock" },
		{ "struct page", "get_key (page refcount)" },
		{ "futex word", "user atomics, read_uval, PI word" },
		{ "mutex", "user atomics, read_uval" },
		{ "cond", "user atomics, read_uval" },
		{ "futexes", "read_uval" },
	};
	const char *list = l->fields && *l->fields ? l->fields : l->what ? strrchr(l->what, '(') : NULL;
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; list && i < sizeof(by_field) / sizeof(by_field[0]); i++) {
		/* a whole field name between the list's separators */
		size_t len = strlen(by_field[i].key);

		for (const char *f = strstr(list, by_field[i].key); f; f = strstr(f + 1, by_field[i].key))
			if (strchr("(,", f > list ? f[-1] : '(') && strchr("),", f[len] ? f[len] : ')')) {
				used += (size_t)snprintf(buf + used, used < size ? size - used : 0, "%s%s",
							 used ? ", " : "", by_field[i].steps);
				break;
			}
	}
	for (size_t i = 0; !used && l->what && i < sizeof(by_what) / sizeof(by_what[0]); i++)
		if (strstr(l->what, by_what[i].key))
			used = (size_t)snprintf(buf, size, "%s", by_what[i].steps);
	if (!used)
		snprintf(buf, size, "-");
}

int results_print_c2c(const struct results *r, uint32_t n, enum c2c_sort sort, FILE *out)
{
	static const char *const sort_names[] = { "transfers", "remote transfers", "waiting" };
	uint64_t *key, *idx, total = 0, remote = 0;
	uint32_t nidx = 0;
	double ops = r->total_ops ? (double)r->total_ops : 1;

	if (!r->nlines)
		return -1;
	key = malloc(r->nlines * sizeof(*key));
	idx = calloc(n ? n : 1, sizeof(*idx));
	if (!key || !idx || !n) {
		free(key);
		free(idx);
		return -1;
	}
	for (uint32_t i = 0; i < r->nlines; i++) {
		const struct line_result *l = &r->lines[i];

		key[i] = sort == C2C_BY_WAITING	 ? l->queued_ps
			 : sort == C2C_BY_REMOTE ? l->transfers[XFER_REMOTE]
						 : l->total_transfers;
		total += l->total_transfers;
		remote += l->transfers[XFER_REMOTE];
	}
	if (results_top(key, r->nlines, n, idx, &nidx) < 0) {
		free(key);
		free(idx);
		return -1;
	}
	fprintf(out, "futexsim c2c: %s on %s, kernel %s, workload %s; %.6g ms measured, %llu ops\n", r->scenario,
		r->machine, r->kernel, r->workload, (double)r->window_ps / 1e9, (unsigned long long)r->total_ops);
	fprintf(out, "  %u lines with traffic: %llu transfers (%.3f per op), %llu across nodes; by %s:\n\n", r->nlines,
		(unsigned long long)total, (double)total / ops, (unsigned long long)remote, sort_names[sort]);
	fprintf(out, "  %3s %-18s %4s %10s %7s %10s %10s %9s %10s %10s %11s  %s\n", "#", "address", "home", "transfers",
		"share", "remote", "node", "smt", "reads", "writes", "waited(us)", "what; path steps");
	for (uint32_t k = 0; k < nidx; k++) {
		const struct line_result *l = &r->lines[idx[k]];
		char steps[256];

		steps_of(l, steps, sizeof(steps));
		fprintf(out, "  %3u 0x%016llx %4u %10llu %6.1f%% %10llu %10llu %9llu %10llu %10llu %11.3f  %s; %s\n",
			k + 1, (unsigned long long)l->address, l->home_node, (unsigned long long)l->total_transfers,
			total ? 100.0 * (double)l->total_transfers / (double)total : 0,
			(unsigned long long)l->transfers[XFER_REMOTE], (unsigned long long)l->transfers[XFER_NODE],
			(unsigned long long)l->transfers[XFER_SMT], (unsigned long long)l->reads,
			(unsigned long long)l->writes, (double)l->queued_ps / 1e6, l->what ? l->what : "?", steps);
	}
	if (!nidx)
		fprintf(out, "  (no line has any: nothing to rank)\n");
	fprintf(out, "\n  transfers: the line moved to another CPU's cache (perf c2c's HITM: remote = across nodes,\n"
		     "  node and smt = within a node, within a core); waited: time requests queued for the line.\n");
	free(key);
	free(idx);
	return 0;
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

/* A thread's column in one of explain's tables: its node, or its role. */
static const char *node_label(const struct thread_result *t, char *buf, size_t size)
{
	snprintf(buf, size, "node %u", t->node);
	return buf;
}

static const char *role_label(const struct thread_result *t, char *buf, size_t size)
{
	(void)buf;
	(void)size;
	return t->role ? t->role : "";
}

/* explain's classes for each group of threads apart, when there are several groups:
 * local and remote threads differ (ns per op of that group's ops), and so do threads
 * with different roles (`of_run`: their time per op of the whole run, as a message
 * thread's ops are counted on the workers it serves). */
static void explain_by(const struct results *r, const char *heading,
		       const char *(*label)(const struct thread_result *t, char *buf, size_t size), bool of_run,
		       FILE *out)
{
	enum { MAX_COLUMNS = 8, LABEL = 24 };
	double t[MAX_COLUMNS][TC_NCLASSES] = { { 0 } }, ops[MAX_COLUMNS] = { 0 };
	char names[MAX_COLUMNS][LABEL], buf[LABEL];
	uint32_t threads[MAX_COLUMNS] = { 0 }, ncol = 0;

	for (uint32_t i = 0; i < r->nthreads; i++) {
		const char *name = label(&r->threads[i], buf, sizeof(buf));
		uint32_t c;

		for (c = 0; c < ncol && strcmp(names[c], name); c++)
			;
		if (c == ncol) {
			if (ncol == MAX_COLUMNS)
				return; /* too many groups for a table: the totals above say it */
			snprintf(names[ncol++], LABEL, "%s", name);
		}
		threads[c]++;
		ops[c] += (double)r->threads[i].ops;
		for (int k = 0; k < TC_NCLASSES; k++)
			t[c][k] += (double)r->threads[i].time_ps[k];
	}
	if (ncol < 2)
		return;
	fprintf(out, "  %s:\n  %-14s", heading, "class");
	for (uint32_t c = 0; c < ncol; c++)
		fprintf(out, "  %11.11s", names[c]);
	fprintf(out, "\n  %-14s", "threads");
	for (uint32_t c = 0; c < ncol; c++)
		fprintf(out, "  %11u", threads[c]);
	fputc('\n', out);
	for (int k = 0; k < TC_NCLASSES; k++) {
		bool any = false;

		for (uint32_t c = 0; c < ncol; c++)
			any |= t[c][k] > 0;
		if (!any)
			continue;
		fprintf(out, "  %-14s", time_class_names[k]);
		for (uint32_t c = 0; c < ncol; c++)
			fprintf(out, "  %11.1f", of_run ? t[c][k] / 1e3 / (double)r->total_ops
						 : ops[c] > 0 ? t[c][k] / 1e3 / ops[c] : 0);
		fputc('\n', out);
	}
}

int results_print_explain(const struct results *r, FILE *out)
{
	double by_class[TC_NCLASSES] = { 0 }, accounted = 0, threads_ps = (double)r->nthreads * (double)r->window_ps;

	if (!r->nthreads || !r->threads[0].has_time || !r->total_ops)
		return -1;
	for (uint32_t i = 0; i < r->nthreads; i++)
		for (int k = 0; k < TC_NCLASSES; k++)
			by_class[k] += (double)r->threads[i].time_ps[k];
	for (int k = 0; k < TC_NCLASSES; k++)
		accounted += by_class[k];
	fprintf(out, "futexsim explain: %s on %s, kernel %s, workload %s\n", r->scenario, r->machine, r->kernel,
		r->workload);
	fprintf(out, "  where the %u threads' time in the %.6g ms window went, per op (%llu ops):\n", r->nthreads,
		(double)r->window_ps / 1e9, (unsigned long long)r->total_ops);
	fprintf(out, "  %-14s %12s %7s\n", "class", "ns per op", "share");
	for (int k = 0; k < TC_NCLASSES; k++) {
		if (by_class[k] <= 0)
			continue;
		fprintf(out, "  %-14s %12.1f %6.1f%%\n", time_class_names[k], by_class[k] / 1e3 / (double)r->total_ops,
			accounted > 0 ? 100 * by_class[k] / accounted : 0);
		/* the kernel's local work by the path step it belongs to */
		for (int step = 0; k == TC_KERNEL_WORK && r->has_steps && step < STEP_NSTEPS; step++)
			if (r->kernel_steps_ps[step] > 0)
				fprintf(out, "    %-16s %10.1f %6.1f%%\n", futex_step_names[step],
					(double)r->kernel_steps_ps[step] / 1e3 / (double)r->total_ops,
					accounted > 0 ? 100 * (double)r->kernel_steps_ps[step] / accounted : 0);
	}
	fprintf(out, "  %-14s %12.1f %6.1f%%\n", "total", accounted / 1e3 / (double)r->total_ops, 100.0);
	fprintf(out, "  measured: %.1f ns per op (threads x window / ops); the classes account for %.1f%% of it\n",
		threads_ps / 1e3 / (double)r->total_ops, threads_ps > 0 ? 100 * accounted / threads_ps : 0);
	explain_by(r, "by the node the threads run on (ns per op of that node's threads)", node_label, false, out);
	if (r->nthreads && r->threads[0].role)
		explain_by(r, "by the threads' role (their time per op of the run: the columns add up to the total)",
			   role_label, true, out);
	/* what the line classes' time was made of */
	fprintf(out, "  line transfers per op: %.3f within a core, %.3f within a node, %.3f across nodes; DRAM fills per "
		     "op: %.3f\n",
		(double)r->transfers[XFER_SMT] / (double)r->total_ops, (double)r->transfers[XFER_NODE] / (double)r->total_ops,
		(double)r->transfers[XFER_REMOTE] / (double)r->total_ops, (double)r->fills / (double)r->total_ops);
	for (uint32_t k = 0; k < r->nhot && k < 3; k++) {
		const struct line_result *l = &r->lines[r->hot[k]];

		fprintf(out, "  %s %s: %.3f transfers per op (%.3f across nodes)\n", k ? "     " : "lines:",
			l->what ? l->what : "?", (double)l->total_transfers / (double)r->total_ops,
			(double)l->transfers[XFER_REMOTE] / (double)r->total_ops);
	}
	if (r->nhot)
		fprintf(out, "  (futexsim c2c FILE.h5: every hot line)\n");
	return 0;
}

void results_print_own_figures(const struct results *r, FILE *out)
{
	fprintf(out, "futexsim: %.6g ms warm-up, %.6g ms measured (simulated time%s)\n", (double)r->warmup_ps / 1e9,
		(double)r->window_ps / 1e9, r->incomplete ? "; the run was interrupted" : "");
	fprintf(out, "  total ops        %llu\n", (unsigned long long)r->total_ops);
	if (r->band_runs)
		fprintf(out, "  band             Averaged %.0f .. %.0f operations/sec (1 sigma of %s, %u runs)\n",
			r->band_lo, r->band_hi, band_basis_text(r->band_basis), r->band_runs);
	fprintf(out, "  line transfers   %llu within SMT core, %llu within node, %llu across nodes (%.3f per op)\n",
		(unsigned long long)r->transfers[XFER_SMT], (unsigned long long)r->transfers[XFER_NODE],
		(unsigned long long)r->transfers[XFER_REMOTE], results_transfers_per_op(r));
	fprintf(out, "  DRAM fills       %llu\n", (unsigned long long)r->fills);
	if (r->directory_reads)
		fprintf(out, "  directory reads  %llu (cross-node transfers that missed the home's directory cache)\n",
			(unsigned long long)r->directory_reads);
	print_blocking(r, out);
	if (r->nhot) {
		fprintf(out, "  hottest lines    transfers (smt/node/remote)  line\n");
		for (uint32_t i = 0; i < r->nhot; i++) {
			const struct line_result *h = &r->lines[r->hot[i]];

			fprintf(out, "    %2u. %10llu (%llu/%llu/%llu)  %s\n", i + 1,
				(unsigned long long)h->total_transfers, (unsigned long long)h->transfers[XFER_SMT],
				(unsigned long long)h->transfers[XFER_NODE],
				(unsigned long long)h->transfers[XFER_REMOTE], h->what);
		}
	}
}

void results_print_summary(const struct results *r, int per_thread, FILE *out)
{
	results_print_header(r, out);
	results_print_figures(r, per_thread, out);
}

void results_print_speed(const struct results *r, FILE *out)
{
	fprintf(out, "  wall time %.3f s for %llu simulated ops and %llu events: ", r->wall_secs,
		(unsigned long long)r->ops_simulated, (unsigned long long)r->events);
	print_si(out, r->wall_secs > 0 ? (double)r->ops_simulated / r->wall_secs : 0);
	fprintf(out, " ops/s, ");
	print_si(out, r->wall_secs > 0 ? (double)r->events / r->wall_secs : 0);
	fprintf(out, " events/s\n");
}

void results_print_buckets(const struct results *r, FILE *out)
{
	if (!r->nhotb) {
		fprintf(out, "  hottest buckets  none waited for its lock\n");
		return;
	}
	fprintf(out, "  hottest buckets  lock wait (us)  acquisitions  contended  futexes  bucket\n");
	for (uint32_t i = 0; i < r->nhotb; i++) {
		const struct bucket_result *b = &r->buckets[r->hotb[i]];

		fprintf(out, "    %2u. %14.3f %13llu %10llu %8llu  %s bucket %u\n", i + 1, (double)b->wait_ps / 1e6,
			(unsigned long long)b->acquisitions, (unsigned long long)b->contended,
			(unsigned long long)b->hashed, r->tables[b->table].name, b->bucket);
	}
}

void results_csv_text(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

/* The columns of show --csv before the workload's figures and "complete"
 * (docs/results-format.md): those up to dram_fills first, where they always were. */
static const char csv_columns[] =
	"scenario,machine,kernel,workload,overrides,seed,threads,warmup_s,window_s,ops_per_sec,"
	"stderr_pct,total_ops,transfers_smt,transfers_node,transfers_remote,transfers_per_op,dram_fills,file,"
	"blocking_futex_calls,blocking_wakeups,blocking_chain_walked,blocking_requeued,blocking_asleep_pct,"
	"blocking_context_switches,resizes,wall_s,simulated_ops,"
	"events,directory_reads";

void results_print_csv_header(const char *const *figures, size_t nfigures, FILE *out)
{
	fputs(csv_columns, out);
	for (size_t i = 0; i < nfigures; i++) {
		fputc(',', out);
		results_csv_text(out, figures[i]);
	}
	fputs(",complete\n", out);
}

void results_print_csv_row(const struct results *r, const char *file, const char *const *figures, size_t nfigures,
			   FILE *out)
{
	const char *const text[] = { r->scenario, r->machine, r->kernel, r->workload, r->overrides };
	struct blocking_totals b = results_blocking_totals(r);

	for (size_t i = 0; i < sizeof(text) / sizeof(text[0]); i++) {
		results_csv_text(out, text[i]);
		fputc(',', out);
	}
	fprintf(out, "%llu,%u,%.12g,%.12g,%llu,%.2f,%llu,%llu,%llu,%llu,%.6f,%llu", (unsigned long long)r->seed,
		r->nthreads, (double)r->warmup_ps / 1e12, (double)r->window_ps / 1e12,
		(unsigned long long)r->avg.mean, r->avg.stderr_pct, (unsigned long long)r->total_ops,
		(unsigned long long)r->transfers[XFER_SMT], (unsigned long long)r->transfers[XFER_NODE],
		(unsigned long long)r->transfers[XFER_REMOTE], results_transfers_per_op(r), (unsigned long long)r->fills);
	fputc(',', out);
	results_csv_text(out, file);
	fprintf(out, ",%llu,%llu,%llu,%llu,%.6f,%llu,%u,%.6f,%llu,%llu,%llu", (unsigned long long)b.calls,
		(unsigned long long)b.wakeups, (unsigned long long)b.walked, (unsigned long long)b.requeued,
		b.asleep_pct, (unsigned long long)b.switches, r->nresizes, r->wall_secs,
		(unsigned long long)r->ops_simulated, (unsigned long long)r->events,
		(unsigned long long)r->directory_reads);
	for (size_t i = 0; i < nfigures; i++) {
		fputc(',', out);
		for (uint32_t k = 0; k < r->nfigures; k++)
			if (strcmp(r->figures[k].name, figures[i]) == 0) {
				fprintf(out, "%.12g", r->figures[k].value);
				break;
			}
	}
	fprintf(out, ",%d\n", !r->incomplete);
}

/* ---- JSON ------------------------------------------------------------------- */

void results_json_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", out);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

void results_json_num(FILE *out, double v)
{
	if (v != v || v > 1.7e308 || v < -1.7e308)
		fputs("null", out);
	else
		fprintf(out, "%.17g", v);
}

static void json_key(FILE *out, const char *indent, const char *key)
{
	fprintf(out, ",\n%s", indent);
	results_json_str(out, key);
	fputs(": ", out);
}

static void json_u64(FILE *out, const char *indent, const char *key, uint64_t v)
{
	json_key(out, indent, key);
	fprintf(out, "%llu", (unsigned long long)v);
}

static void json_dbl(FILE *out, const char *indent, const char *key, double v)
{
	json_key(out, indent, key);
	results_json_num(out, v);
}

static void json_text(FILE *out, const char *indent, const char *key, const char *v)
{
	json_key(out, indent, key);
	results_json_str(out, v);
}

void results_print_json(const struct results *r, const char *file, FILE *out)
{
	const char *in = "    ";
	struct blocking_totals b = results_blocking_totals(r);

	fputs("  {\n    \"file\": ", out);
	results_json_str(out, file);
	json_text(out, in, "futexsim_version", r->version);
	json_text(out, in, "scenario", r->scenario);
	json_text(out, in, "machine", r->machine);
	json_text(out, in, "kernel", r->kernel);
	json_text(out, in, "workload", r->workload);
	json_text(out, in, "overrides", r->overrides);
	json_u64(out, in, "seed", r->seed);
	json_u64(out, in, "threads", r->nthreads);
	json_dbl(out, in, "warmup_s", (double)r->warmup_ps / 1e12);
	json_dbl(out, in, "window_s", (double)r->window_ps / 1e12);
	json_key(out, in, "complete");
	fputs(r->incomplete ? "false" : "true", out);
	json_u64(out, in, "ops_per_sec", r->avg.mean);
	json_dbl(out, in, "stderr_pct", r->avg.stderr_pct);
	json_u64(out, in, "total_ops", r->total_ops);
	json_u64(out, in, "transfers_smt", r->transfers[XFER_SMT]);
	json_u64(out, in, "transfers_node", r->transfers[XFER_NODE]);
	json_u64(out, in, "transfers_remote", r->transfers[XFER_REMOTE]);
	json_dbl(out, in, "transfers_per_op", results_transfers_per_op(r));
	json_u64(out, in, "dram_fills", r->fills);
	if (r->band_runs) {
		json_dbl(out, in, "ops_per_sec_band_lo", r->band_lo);
		json_dbl(out, in, "ops_per_sec_band_hi", r->band_hi);
	}
	json_u64(out, in, "directory_reads", r->directory_reads);
	json_key(out, in, "blocking");
	fprintf(out, "{\"futex_calls\": %llu, \"wakeups\": %llu, \"chain_walked\": %llu, \"requeued\": %llu, "
		     "\"blocked_ps\": ",
		(unsigned long long)b.calls, (unsigned long long)b.wakeups, (unsigned long long)b.walked,
		(unsigned long long)b.requeued);
	results_json_num(out, b.blocked_ps);
	fputs(", \"asleep_pct\": ", out);
	results_json_num(out, b.asleep_pct);
	fprintf(out, ", \"context_switches\": %llu}", (unsigned long long)b.switches);
	json_key(out, in, "figures");
	fputc('{', out);
	for (uint32_t i = 0; i < r->nfigures; i++) {
		fputs(i ? ",\n      " : "\n      ", out);
		results_json_str(out, r->figures[i].name);
		fputs(": {\"value\": ", out);
		results_json_num(out, r->figures[i].value);
		fputs(", \"units\": ", out);
		results_json_str(out, r->figures[i].units);
		fputc('}', out);
	}
	fputs(r->nfigures ? "\n    }" : "}", out);
	json_key(out, in, "resizes");
	fputc('[', out);
	for (uint32_t i = 0; i < r->nresizes; i++) {
		const struct futex_resize *z = &r->resizes[i];

		fprintf(out, "%s{\"process\": %u, \"from_buckets\": %u, \"to_buckets\": %u, \"start_s\": ",
			i ? ",\n      " : "\n      ", z->pid, z->from, z->to);
		results_json_num(out, (double)z->start / 1e12);
		fputs(", \"in_use_after_s\": ", out);
		if (z->end == SIMTIME_MAX)
			fputs("null", out);
		else
			results_json_num(out, (double)(z->end - z->start) / 1e12);
		fputc('}', out);
	}
	fputs(r->nresizes ? "\n    ]" : "]", out);
	json_key(out, in, "hottest_lines");
	fputc('[', out);
	for (uint32_t i = 0; i < r->nhot; i++) {
		const struct line_result *h = &r->lines[r->hot[i]];

		fprintf(out, "%s{\"line\": %u, \"transfers\": %llu, \"smt\": %llu, \"node\": %llu, \"remote\": %llu, "
			     "\"what\": ",
			i ? ",\n      " : "\n      ", h->line, (unsigned long long)h->total_transfers,
			(unsigned long long)h->transfers[XFER_SMT], (unsigned long long)h->transfers[XFER_NODE],
			(unsigned long long)h->transfers[XFER_REMOTE]);
		results_json_str(out, h->what);
		fputc('}', out);
	}
	fputs(r->nhot ? "\n    ]" : "]", out);
	json_key(out, in, "hottest_buckets");
	fputc('[', out);
	for (uint32_t i = 0; i < r->nhotb; i++) {
		const struct bucket_result *bk = &r->buckets[r->hotb[i]];

		fprintf(out, "%s{\"table\": ", i ? ",\n      " : "\n      ");
		results_json_str(out, r->tables[bk->table].name);
		fprintf(out, ", \"bucket\": %u, \"lock_wait_ps\": %llu, \"acquisitions\": %llu, \"contended\": %llu, "
			     "\"futexes\": %llu}",
			bk->bucket, (unsigned long long)bk->wait_ps, (unsigned long long)bk->acquisitions,
			(unsigned long long)bk->contended, (unsigned long long)bk->hashed);
	}
	fputs(r->nhotb ? "\n    ]" : "]", out);
	json_key(out, in, "per_thread");
	fputc('[', out);
	for (uint32_t i = 0; i < r->nthreads; i++) {
		const struct thread_result *t = &r->threads[i];

		fprintf(out, "%s{\"id\": %u, \"cpu\": %u, \"node\": %u, \"ops\": %llu, \"ops_per_sec\": %llu}",
			i ? ",\n      " : "\n      ", t->id, t->cpu, t->node, (unsigned long long)t->ops,
			(unsigned long long)t->ops_per_sec);
	}
	fputs(r->nthreads ? "\n    ]" : "]", out);
	json_dbl(out, in, "wall_s", r->wall_secs);
	json_u64(out, in, "simulated_ops", r->ops_simulated);
	json_u64(out, in, "events", r->events);
	fputs("\n  }", out);
}
