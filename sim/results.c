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

	s->sc->wl_type->print_header(s->sc->wl_params, sim_window_secs(s), f);
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
	uint32_t index;
};

static int by_key(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->key != y->key)
		return x->key > y->key ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

int results_top(const uint64_t *key, uint32_t n, uint32_t k, uint32_t *idx, uint32_t *count)
{
	struct ranked *rank = malloc((n ? n : 1) * sizeof(*rank));
	uint32_t m = 0;

	if (!rank)
		return -1;
	for (uint32_t i = 0; i < n; i++)
		if (key[i])
			rank[m++] = (struct ranked){ key[i], i };
	qsort(rank, m, sizeof(*rank), by_key);
	*count = m < k ? m : k;
	for (uint32_t i = 0; i < *count; i++)
		idx[i] = rank[i].index;
	free(rank);
	return 0;
}

static int gather_hot_lines(struct results *r, const struct sim *s, uint32_t nhot)
{
	const struct coherence *c = &s->coh;
	uint64_t *sum = calloc(c->nlines ? c->nlines : 1, sizeof(*sum));
	uint32_t *idx = calloc(nhot ? nhot : 1, sizeof(*idx));
	int rc = -1;

	r->hot = calloc(nhot ? nhot : 1, sizeof(*r->hot));
	if (!sum || !idx || !r->hot)
		goto out;
	for (uint32_t l = 0; l < c->nlines; l++)
		for (int k = 0; k < XFER_NCLASSES; k++)
			sum[l] += c->lines[l].stats.transfers[k];
	if (results_top(sum, c->nlines, nhot, idx, &r->nhot) < 0)
		goto out;
	for (uint32_t i = 0; i < r->nhot; i++) {
		const struct line *l = &c->lines[idx[i]];
		struct line_result *h = &r->hot[i];
		char what[256];

		h->line = idx[i];
		h->what = strdup(memmap_describe(&s->mem, idx[i], what, sizeof(what)));
		h->reads = l->reads;
		h->writes = l->writes;
		h->fills = l->stats.fills;
		memcpy(h->transfers, l->stats.transfers, sizeof(h->transfers));
		h->total_transfers = sum[idx[i]];
		h->queued_ps = l->stats.queued_ps;
		if (!h->what)
			goto out;
	}
	rc = 0;
out:
	free(sum);
	free(idx);
	return rc;
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

int results_from_sim(struct results *r, const struct sim *s, uint32_t nhot, double wall_secs)
{
	const struct scenario *sc = s->sc;
	struct header_arg ha = { s };
	double secs = sim_window_secs(s);
	uint64_t *per_thread;

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
	r->nthreads = s->nthreads;
	r->threads = calloc(r->nthreads ? r->nthreads : 1, sizeof(*r->threads));
	per_thread = calloc(r->nthreads ? r->nthreads : 1, sizeof(*per_thread));
	if (!r->version || !r->overrides || !r->scenario || !r->machine || !r->kernel || !r->workload || !r->perf_header || !r->threads ||
	    !per_thread) {
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
		tr->ops = t->ops;
		tr->ops_per_sec = perf_ops_per_sec(t->ops, secs);
		tr->futex_calls = t->futex_calls;
		tr->wakeups = t->wakeups;
		tr->chain_walked = t->chain_walked;
		tr->requeued = t->requeued;
		tr->switches = t->switches_in;
		tr->blocked_ps = t->slept_ps;
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
	free(per_thread);
	memcpy(r->transfers, s->coh.total_transfers, sizeof(r->transfers));
	r->fills = s->coh.total_fills;
	r->wall_secs = wall_secs;
	r->events = s->eng.events;
	return gather_workload(r, s) < 0 ? -1 : gather_hot_lines(r, s, nhot);
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
	for (uint32_t i = 0; r->threads && i < r->nthreads; i++)
		free(r->threads[i].perf_line);
	free(r->threads);
	for (uint32_t i = 0; r->hot && i < r->nhot; i++)
		free(r->hot[i].what);
	free(r->hot);
	for (uint32_t i = 0; r->hotb && i < r->nhotb; i++)
		free(r->hotb[i].table);
	free(r->hotb);
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

/* Waits, wakes, switches and resizes; the workload's own figures. Nothing for a
 * run that never blocked, switched or resized (hash-bench). */
static void print_blocking(const struct results *r, FILE *out)
{
	uint64_t calls = 0, wakeups = 0, walked = 0, requeued = 0, switches = 0;
	double blocked = 0, thread_ps = (double)r->window_ps * r->nthreads;

	for (uint32_t i = 0; i < r->nthreads; i++) {
		const struct thread_result *t = &r->threads[i];

		calls += t->futex_calls;
		wakeups += t->wakeups;
		walked += t->chain_walked;
		requeued += t->requeued;
		switches += t->switches;
		blocked += (double)t->blocked_ps;
	}
	if (calls || wakeups || switches || blocked > 0)
		fprintf(out,
			"  blocking         %llu futex calls, %llu wake-ups, %llu chain entries walked, %llu requeued; "
			"%.1f%% of thread time asleep; %llu context switches\n",
			(unsigned long long)calls, (unsigned long long)wakeups, (unsigned long long)walked,
			(unsigned long long)requeued, thread_ps > 0 ? 100.0 * blocked / thread_ps : 0.0,
			(unsigned long long)switches);
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
static double transfers_per_op(const struct results *r)
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

void results_print_summary(const struct results *r, int per_thread, FILE *out)
{
	double secs = (double)r->window_ps / 1e12;

	fprintf(out, "# futexsim %s: scenario %s, machine %s, kernel %s, seed %llu\n", r->version,
		r->scenario, r->machine, r->kernel, (unsigned long long)r->seed);
	if (strcmp(r->workload, "hash-bench") == 0)
		fprintf(out, "# Running 'futex/hash' benchmark (simulated):\n");
	else
		fprintf(out, "# Running the '%s' workload (simulated):\n", r->workload);
	fputs(r->perf_header, out);
	if (per_thread) {
		for (uint32_t i = 0; i < r->nthreads; i++)
			fputs(r->threads[i].perf_line, out);
		fputc('\n', out);
	}
	fprintf(out, "Averaged %llu operations/sec (+- %.2f%%), total secs = %.6g\n\n",
		(unsigned long long)r->avg.mean, r->avg.stderr_pct, secs);

	fprintf(out, "futexsim: %.6g ms warm-up, %.6g ms measured (simulated time%s)\n", (double)r->warmup_ps / 1e9,
		(double)r->window_ps / 1e9, r->incomplete ? "; the run was interrupted" : "");
	fprintf(out, "  total ops        %llu\n", (unsigned long long)r->total_ops);
	fprintf(out, "  line transfers   %llu within SMT core, %llu within node, %llu across nodes (%.3f per op)\n",
		(unsigned long long)r->transfers[XFER_SMT], (unsigned long long)r->transfers[XFER_NODE],
		(unsigned long long)r->transfers[XFER_REMOTE], transfers_per_op(r));
	fprintf(out, "  DRAM fills       %llu\n", (unsigned long long)r->fills);
	print_blocking(r, out);
	if (r->nhot) {
		fprintf(out, "  hottest lines    transfers (smt/node/remote)  line\n");
		for (uint32_t i = 0; i < r->nhot; i++) {
			const struct line_result *h = &r->hot[i];

			fprintf(out, "    %2u. %10llu (%llu/%llu/%llu)  %s\n", i + 1,
				(unsigned long long)h->total_transfers, (unsigned long long)h->transfers[XFER_SMT],
				(unsigned long long)h->transfers[XFER_NODE],
				(unsigned long long)h->transfers[XFER_REMOTE], h->what);
		}
	}
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
		const struct bucket_result *b = &r->hotb[i];

		fprintf(out, "    %2u. %14.3f %13llu %10llu %8llu  %s bucket %u\n", i + 1, (double)b->wait_ps / 1e6,
			(unsigned long long)b->acquisitions, (unsigned long long)b->contended,
			(unsigned long long)b->hashed, b->table, b->bucket);
	}
}

/* A CSV field, quoted when it holds a comma, a quote or a line break. */
static void csv_text(FILE *out, const char *s)
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

void results_print_csv(const struct results *r, FILE *out)
{
	const char *const text[] = { r->scenario, r->machine, r->kernel, r->workload, r->overrides };

	fputs("scenario,machine,kernel,workload,overrides,seed,threads,warmup_s,window_s,ops_per_sec,"
	      "stderr_pct,total_ops,transfers_smt,transfers_node,transfers_remote,transfers_per_op,dram_fills,"
	      "complete\n",
	      out);
	for (size_t i = 0; i < sizeof(text) / sizeof(text[0]); i++) {
		csv_text(out, text[i]);
		fputc(',', out);
	}
	fprintf(out, "%llu,%u,%.12g,%.12g,%llu,%.2f,%llu,%llu,%llu,%llu,%.6f,%llu,%d\n", (unsigned long long)r->seed,
		r->nthreads, (double)r->warmup_ps / 1e12, (double)r->window_ps / 1e12,
		(unsigned long long)r->avg.mean, r->avg.stderr_pct, (unsigned long long)r->total_ops,
		(unsigned long long)r->transfers[XFER_SMT], (unsigned long long)r->transfers[XFER_NODE],
		(unsigned long long)r->transfers[XFER_REMOTE], transfers_per_op(r),
		(unsigned long long)r->fills, !r->incomplete);
}
