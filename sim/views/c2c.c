/* SPDX-License-Identifier: MIT */
#include "sim/views/c2c.h"

#include <stdlib.h>
#include <string.h>

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
