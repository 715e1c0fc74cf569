/* SPDX-License-Identifier: MIT */
#include "sim/views/text.h"

#include <string.h>

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
