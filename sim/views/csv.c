/* SPDX-License-Identifier: MIT */
#include "sim/views/csv.h"

#include <string.h>

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
