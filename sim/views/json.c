/* SPDX-License-Identifier: MIT */
#include "sim/views/json.h"

#include <string.h>

#include "sim/core/utf8.h"

void results_json_str(FILE *out, const char *s)
{
	size_t n = strlen(s);

	fputc('"', out);
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		size_t len = utf8_seq((const unsigned char *)s + i, n - i);

		if (c == '"' || c == '\\') {
			fprintf(out, "\\%c", c);
		} else if (c == '\n') {
			fputs("\\n", out);
		} else if (c < 0x20) {
			fprintf(out, "\\u%04x", c);
		} else if (!len) {
			fputs("\\ufffd", out); /* a byte that is not UTF-8 (a file name): JSON holds text only */
		} else {
			fwrite(s + i, 1, len, out);
			i += len;
			continue;
		}
		i++;
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
