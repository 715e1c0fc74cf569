/* SPDX-License-Identifier: MIT */
#include "sim/views/explain.h"

#include <string.h>

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
