/* SPDX-License-Identifier: MIT */
#include "sim/compare.h"

#include <ctype.h>
#include <errno.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/views/json.h"

static void add(struct compare *c, const char *name, const char *units, int decimals, bool shown, double base,
		double value)
{
	struct compare_figure *f;

	if (c->nfigures == COMPARE_MAX_FIGURES)
		return;
	f = &c->figures[c->nfigures++];
	snprintf(f->name, sizeof(f->name), "%s", name);
	snprintf(f->units, sizeof(f->units), "%s", units);
	f->decimals = decimals;
	f->shown = shown;
	f->base = base;
	f->value = value;
	f->delta = value - base;
	if (f->delta == 0)
		f->rel = 0;
	else if (base == 0)
		f->rel = f->delta > 0 ? INFINITY : -INFINITY;
	else
		f->rel = 100.0 * f->delta / fabs(base);
}

static uint64_t all_transfers(const struct results *r)
{
	uint64_t all = 0;

	for (int k = 0; k < XFER_NCLASSES; k++)
		all += r->transfers[k];
	return all;
}

static bool blocked(const struct blocking_totals *b)
{
	return b->calls || b->wakeups || b->switches || b->blocked_ps > 0;
}

/* A line or bucket of either run, to be matched with the other's by key. */
struct entry {
	const char *what;
	uint32_t bucket;
	double base, value;
	char *element; /* lines: the element the line belongs to (compare_lines) */
	int side;      /* lines: 0 the base run, 1 the other */
};

static int by_key(const void *x, const void *y)
{
	const struct entry *a = x, *b = y;
	int d = strcmp(a->what, b->what);

	if (d)
		return d;
	return a->bucket < b->bucket ? -1 : a->bucket > b->bucket;
}

/* Sorts e[0..n) by key, merges the entries of equal keys and picks the (up
 * to) COMPARE_TOP with the largest non-zero |value - base| into out. */
static int top_changes(struct entry *e, size_t n, struct compare_change *out, uint32_t *count)
{
	size_t m = 0;

	qsort(e, n, sizeof(*e), by_key);
	for (size_t i = 0; i < n; i++) {
		if (m && by_key(&e[m - 1], &e[i]) == 0) {
			e[m - 1].base += e[i].base;
			e[m - 1].value += e[i].value;
		} else {
			e[m++] = e[i];
		}
	}
	*count = 0;
	while (*count < COMPARE_TOP) {
		size_t best = m;
		double bd = 0;

		for (size_t i = 0; i < m; i++) {
			double d = fabs(e[i].value - e[i].base);

			if (d > bd) {
				bd = d;
				best = i;
			}
		}
		if (best == m)
			break;
		out[*count] = (struct compare_change){ strdup(e[best].what), e[best].bucket, e[best].base,
						       e[best].value, e[best].value - e[best].base };
		if (!out[(*count)++].what)
			return -1;
		e[best].value = e[best].base; /* taken */
	}
	return 0;
}

/* A line's element: its description without the fields on it ("private hash of
 * process 0 bucket 6"), malloc'd. */
static char *element_of(const char *what)
{
	const char *f = strstr(what, " (");

	return strndup(what, f ? (size_t)(f - what) : strlen(what));
}

static int by_element(const void *x, const void *y)
{
	const struct entry *a = x, *b = y;
	int d = strcmp(a->element, b->element);

	return d ? d : strcmp(a->what, b->what);
}

/* Lines are matched by their description; where the two runs lay an element out
 * differently (one line per bucket against two, other fields on a line), its
 * lines are matched as one, under the element's name with "(its lines)": so
 * moving a bucket's chain to a second line shows as that bucket's traffic
 * changing, not as one line vanishing and another appearing. A description one
 * run lacks because the line saw no traffic there counts as a difference too. */
static int compare_lines(const struct results *a, const struct results *b, struct compare *c)
{
	size_t n = (size_t)a->nlines + b->nlines, k = 0, nowned = 0;
	struct entry *e = calloc(n ? n : 1, sizeof(*e));
	/* the strings made here: each line's element and each merged element's name
	 * (kept apart from the entries, which top_changes moves) */
	char **owned = calloc(2 * n + 1, sizeof(*owned));
	int rc = -1;

	if (!e || !owned) {
		free(e);
		free(owned);
		return -1;
	}
	for (uint32_t i = 0; i < a->nlines; i++, k++)
		e[k] = (struct entry){ .what = a->lines[i].what ? a->lines[i].what : "",
				       .base = (double)a->lines[i].total_transfers };
	for (uint32_t i = 0; i < b->nlines; i++, k++)
		e[k] = (struct entry){ .what = b->lines[i].what ? b->lines[i].what : "",
				       .value = (double)b->lines[i].total_transfers, .side = 1 };
	for (size_t i = 0; i < k; i++)
		if (!(e[i].element = owned[nowned++] = element_of(e[i].what)))
			goto out;
	qsort(e, k, sizeof(*e), by_element);
	for (size_t g = 0, end; g < k; g = end) {
		bool same = true;

		for (end = g; end < k && !strcmp(e[end].element, e[g].element); end++)
			;
		/* the same layout: every description of the element in both runs */
		for (size_t i = g; i < end && same; i++) {
			bool other = false;

			for (size_t j = g; j < end && !other; j++)
				other = e[j].side != e[i].side && !strcmp(e[j].what, e[i].what);
			same = other;
		}
		if (!same && end - g > 1) { /* matched as the element, under one name */
			size_t len = strlen(e[g].element) + sizeof(" (its lines)");
			char *name = owned[nowned++] = malloc(len);

			if (!name)
				goto out;
			snprintf(name, len, "%s (its lines)", e[g].element);
			for (size_t i = g; i < end; i++)
				e[i].what = name;
		}
	}
	rc = top_changes(e, k, c->lines, &c->nlines);
out:
	for (size_t i = 0; i < nowned; i++)
		free(owned[i]);
	free(owned);
	free(e);
	return rc;
}

static int compare_buckets(const struct results *a, const struct results *b, struct compare *c)
{
	size_t n = (size_t)a->nbuckets + b->nbuckets, k = 0;
	struct entry *e = malloc((n ? n : 1) * sizeof(*e));
	int rc;

	if (!e)
		return -1;
	for (uint64_t i = 0; i < a->nbuckets; i++)
		if (a->buckets[i].table < a->ntables)
			e[k++] = (struct entry){ .what = a->tables[a->buckets[i].table].name,
						 .bucket = a->buckets[i].bucket, .base = (double)a->buckets[i].wait_ps };
	for (uint64_t i = 0; i < b->nbuckets; i++)
		if (b->buckets[i].table < b->ntables)
			e[k++] = (struct entry){ .what = b->tables[b->buckets[i].table].name,
						 .bucket = b->buckets[i].bucket, .value = (double)b->buckets[i].wait_ps };
	rc = top_changes(e, k, c->buckets, &c->nbuckets);
	free(e);
	return rc;
}

int compare_results(const struct results *a, const struct results *b, struct compare *c)
{
	struct blocking_totals ba = results_blocking_totals(a), bb = results_blocking_totals(b);
	bool shown = blocked(&ba) || blocked(&bb);

	memset(c, 0, sizeof(*c));
	add(c, "ops_per_sec", "ops/s", 0, true, (double)a->avg.mean, (double)b->avg.mean);
	add(c, "stderr_pct", "%", 2, true, a->avg.stderr_pct, b->avg.stderr_pct);
	add(c, "total_ops", "ops", 0, true, (double)a->total_ops, (double)b->total_ops);
	add(c, "transfers_smt", "transfers", 0, true, (double)a->transfers[XFER_SMT], (double)b->transfers[XFER_SMT]);
	add(c, "transfers_node", "transfers", 0, true, (double)a->transfers[XFER_NODE],
	    (double)b->transfers[XFER_NODE]);
	add(c, "transfers_remote", "transfers", 0, true, (double)a->transfers[XFER_REMOTE],
	    (double)b->transfers[XFER_REMOTE]);
	add(c, "transfers", "transfers", 0, true, (double)all_transfers(a), (double)all_transfers(b));
	add(c, "transfers_per_op", "transfers/op", 6, true, results_transfers_per_op(a), results_transfers_per_op(b));
	add(c, "remote_transfers_per_op", "transfers/op", 6, true,
	    a->total_ops ? (double)a->transfers[XFER_REMOTE] / (double)a->total_ops : 0.0,
	    b->total_ops ? (double)b->transfers[XFER_REMOTE] / (double)b->total_ops : 0.0);
	add(c, "dram_fills", "fills", 0, true, (double)a->fills, (double)b->fills);
	add(c, "directory_reads", "reads", 0, a->directory_reads || b->directory_reads, (double)a->directory_reads,
	    (double)b->directory_reads);
	add(c, "blocking_futex_calls", "calls", 0, shown, (double)ba.calls, (double)bb.calls);
	add(c, "blocking_wakeups", "wake-ups", 0, shown, (double)ba.wakeups, (double)bb.wakeups);
	add(c, "blocking_chain_walked", "entries", 0, shown, (double)ba.walked, (double)bb.walked);
	add(c, "blocking_requeued", "waiters", 0, shown, (double)ba.requeued, (double)bb.requeued);
	add(c, "blocking_asleep_pct", "%", 6, shown, ba.asleep_pct, bb.asleep_pct);
	add(c, "blocking_context_switches", "switches", 0, shown, (double)ba.switches, (double)bb.switches);
	/* explain's breakdown side by side: where an op's time went, class by class */
	for (int k = 0; k < TC_NCLASSES; k++) {
		double ta = results_class_ns_per_op(a, k), tb = results_class_ns_per_op(b, k);
		char name[40];

		if (ta < 0 || tb < 0 || (ta == 0 && tb == 0))
			continue;
		snprintf(name, sizeof(name), "time_%s", time_class_names[k]);
		add(c, name, "ns/op", 1, true, ta, tb);
	}
	for (uint32_t i = 0; i < a->nfigures; i++)
		for (uint32_t j = 0; j < b->nfigures; j++)
			if (!strcmp(a->figures[i].name, b->figures[j].name)) {
				add(c, a->figures[i].name, a->figures[i].units, -1, true, a->figures[i].value,
				    b->figures[j].value);
				break;
			}
	if (compare_lines(a, b, c) < 0 || compare_buckets(a, b, c) < 0)
		return -1;
	return 0;
}

/* Adds group `g`'s values of c's figures (each run compared with g[0], by name)
 * to sum and sum of squares; counts the runs that have each figure. */
static int accumulate(const struct compare *c, const struct results *g, size_t n, double *sum, double *sq,
		      uint32_t *count)
{
	for (size_t i = 0; i < n; i++) {
		struct compare t;

		if (compare_results(&g[0], &g[i], &t) < 0) {
			compare_free(&t);
			return -1;
		}
		for (uint32_t k = 0; k < c->nfigures; k++) {
			const struct compare_figure *f = compare_find(&t, c->figures[k].name);

			if (f) {
				sum[k] += f->value;
				sq[k] += f->value * f->value;
				count[k]++;
			}
		}
		compare_free(&t);
	}
	return 0;
}

/* Welch's t-test, two-sided: p for means ma and mb of samples of na and nb runs
 * with variances va and vb. */
static double welch_p(double ma, double va, uint32_t na, double mb, double vb, uint32_t nb)
{
	double sa = va / na, sb = vb / nb, se = sqrt(sa + sb), t, df;

	if (na < 2 || nb < 2)
		return NAN;
	if (se == 0)
		return ma == mb ? 1.0 : 0.0;
	t = (mb - ma) / se;
	df = (sa + sb) * (sa + sb) / (sa * sa / (na - 1) + sb * sb / (nb - 1));
	return 2 * gsl_cdf_tdist_Q(fabs(t), df);
}

int compare_groups(const struct results *a, size_t na, const struct results *b, size_t nb, struct compare *c)
{
	double sum[2][COMPARE_MAX_FIGURES] = { { 0 } }, sq[2][COMPARE_MAX_FIGURES] = { { 0 } };
	uint32_t count[2][COMPARE_MAX_FIGURES] = { { 0 } };

	if (compare_results(&a[0], &b[0], c) < 0 || accumulate(c, a, na, sum[0], sq[0], count[0]) < 0 ||
	    accumulate(c, b, nb, sum[1], sq[1], count[1]) < 0)
		return -1;
	for (uint32_t k = 0; k < c->nfigures; k++) {
		struct compare_figure *f = &c->figures[k];
		double mean[2], var[2];

		if (count[0][k] != na || count[1][k] != nb) {
			f->shown = false; /* not in every run */
			continue;
		}
		for (int g = 0; g < 2; g++) {
			double n = g ? (double)nb : (double)na;

			mean[g] = sum[g][k] / n;
			var[g] = n > 1 ? fmax(0, (sq[g][k] - n * mean[g] * mean[g]) / (n - 1)) : 0;
		}
		f->base = mean[0];
		f->value = mean[1];
		f->delta = mean[1] - mean[0];
		f->rel = f->delta == 0 ? 0 : mean[0] == 0 ? (f->delta > 0 ? INFINITY : -INFINITY)
							 : 100.0 * f->delta / fabs(mean[0]);
		f->base_sd = sqrt(var[0]);
		f->value_sd = sqrt(var[1]);
		f->base_n = (uint32_t)na;
		f->value_n = (uint32_t)nb;
		f->p = welch_p(mean[0], var[0], f->base_n, mean[1], var[1], f->value_n);
	}
	return 0;
}

void compare_free(struct compare *c)
{
	for (uint32_t i = 0; i < c->nlines; i++)
		free(c->lines[i].what);
	for (uint32_t i = 0; i < c->nbuckets; i++)
		free(c->buckets[i].what);
	c->nlines = c->nbuckets = 0;
}

const struct compare_figure *compare_find(const struct compare *c, const char *name)
{
	for (uint32_t i = 0; i < c->nfigures; i++)
		if (!strcmp(c->figures[i].name, name))
			return &c->figures[i];
	return NULL;
}

void compare_names(const struct compare *c, char *buf, size_t size)
{
	size_t len = 0;

	if (size)
		buf[0] = '\0';
	for (uint32_t i = 0; i < c->nfigures && len < size; i++) {
		int n = snprintf(buf + len, size - len, "%s%s", i ? ", " : "", c->figures[i].name);

		if (n < 0)
			break;
		len += (size_t)n;
	}
}

/* A value as show --csv prints it (decimals), with a sign for deltas. */
static void fmt_num(char *buf, size_t size, double v, int decimals, bool sign)
{
	if (decimals >= 0)
		snprintf(buf, size, sign ? "%+.*f" : "%.*f", decimals, v);
	else
		snprintf(buf, size, sign ? "%+.12g" : "%.12g", v);
}

static void print_num(FILE *out, double v, int decimals, bool sign)
{
	char buf[64];

	fmt_num(buf, sizeof(buf), v, decimals, sign);
	fputs(buf, out);
}

static void fmt_rel(char *buf, size_t size, double rel)
{
	if (isinf(rel))
		snprintf(buf, size, "%s", rel > 0 ? "+inf%" : "-inf%");
	else
		snprintf(buf, size, "%+.2f%%", rel);
}

static void print_rel(FILE *out, double rel)
{
	char buf[64];

	fmt_rel(buf, sizeof(buf), rel);
	fputs(buf, out);
}

static double rel_of(double base, double delta)
{
	if (delta == 0)
		return 0;
	if (base == 0)
		return delta > 0 ? INFINITY : -INFINITY;
	return 100.0 * delta / fabs(base);
}

void compare_print(const struct compare *c, const char *base_file, const char *file, FILE *out)
{
	bool groups = c->nfigures && c->figures[0].base_n;

	fprintf(out, "futexsim compare: %s (base) vs %s\n", base_file, file);
	if (groups)
		fprintf(out, "  means of %u runs (base) and %u; +- a sample standard deviation; p: Welch's t-test, two-sided\n",
			c->figures[0].base_n, c->figures[0].value_n);
	fprintf(out, "  %-28s %20s %20s %20s %10s  %s\n", "figure", "base", "value", "delta", "rel",
		groups ? "p        base sd       value sd  units" : "units");
	for (uint32_t i = 0; i < c->nfigures; i++) {
		const struct compare_figure *f = &c->figures[i];
		char b[64], v[64], d[64], r[64], bs[64], vs[64], pv[32];

		if (!f->shown)
			continue;
		fmt_num(b, sizeof(b), f->base, f->decimals, false);
		fmt_num(v, sizeof(v), f->value, f->decimals, false);
		fmt_num(d, sizeof(d), f->delta, f->decimals, true);
		fmt_rel(r, sizeof(r), f->rel);
		if (!groups) {
			fprintf(out, "  %-28s %20s %20s %20s %10s  %s\n", f->name, b, v, d, r, f->units);
			continue;
		}
		fmt_num(bs, sizeof(bs), f->base_sd, f->decimals < 0 ? -1 : f->decimals + 1, false);
		fmt_num(vs, sizeof(vs), f->value_sd, f->decimals < 0 ? -1 : f->decimals + 1, false);
		if (isnan(f->p))
			snprintf(pv, sizeof(pv), "%s", "");
		else
			snprintf(pv, sizeof(pv), "%.3g", f->p);
		fprintf(out, "  %-28s %20s %20s %20s %10s  %-8s %12s %14s  %s\n", f->name, b, v, d, r, pv, bs, vs, f->units);
	}
	fprintf(out, "  lines whose transfers changed most (base -> value, delta):\n");
	if (!c->nlines)
		fprintf(out, "    none changed\n");
	for (uint32_t i = 0; i < c->nlines; i++) {
		const struct compare_change *l = &c->lines[i];

		fprintf(out, "    %2u. %10.0f -> %10.0f %+11.0f ", i + 1, l->base, l->value, l->delta);
		print_rel(out, rel_of(l->base, l->delta));
		fprintf(out, "  %s\n", l->what);
	}
	fprintf(out, "  buckets whose lock wait changed most (us: base -> value, delta):\n");
	if (!c->nbuckets)
		fprintf(out, "    none changed\n");
	for (uint32_t i = 0; i < c->nbuckets; i++) {
		const struct compare_change *k = &c->buckets[i];

		fprintf(out, "    %2u. %12.3f -> %12.3f %+13.3f ", i + 1, k->base / 1e6, k->value / 1e6, k->delta / 1e6);
		print_rel(out, rel_of(k->base, k->delta));
		fprintf(out, "  %s bucket %u\n", k->what, k->bucket);
	}
}

static void json_change(FILE *out, double base, double value, double delta)
{
	fputs("\"base\": ", out);
	results_json_num(out, base);
	fputs(", \"value\": ", out);
	results_json_num(out, value);
	fputs(", \"delta\": ", out);
	results_json_num(out, delta);
	fputs(", \"rel\": ", out);
	results_json_num(out, rel_of(base, delta));
}

void compare_print_json(const struct compare *c, const char *file, FILE *out)
{
	uint32_t n = 0;

	fputs("    {\n      \"file\": ", out);
	results_json_str(out, file);
	fputs(",\n      \"figures\": {", out);
	for (uint32_t i = 0; i < c->nfigures; i++) {
		const struct compare_figure *f = &c->figures[i];

		if (!f->shown)
			continue;
		fputs(n++ ? ",\n        " : "\n        ", out);
		results_json_str(out, f->name);
		fputs(": {", out);
		json_change(out, f->base, f->value, f->delta);
		if (f->base_n) {
			fprintf(out, ", \"base_n\": %u, \"value_n\": %u, \"base_sd\": ", f->base_n, f->value_n);
			results_json_num(out, f->base_sd);
			fputs(", \"value_sd\": ", out);
			results_json_num(out, f->value_sd);
			fputs(", \"p\": ", out);
			results_json_num(out, f->p);
		}
		fputs(", \"units\": ", out);
		results_json_str(out, f->units);
		fputc('}', out);
	}
	fputs(n ? "\n      },\n      \"lines\": [" : "},\n      \"lines\": [", out);
	for (uint32_t i = 0; i < c->nlines; i++) {
		fputs(i ? ",\n        {\"what\": " : "\n        {\"what\": ", out);
		results_json_str(out, c->lines[i].what);
		fputs(", ", out);
		json_change(out, c->lines[i].base, c->lines[i].value, c->lines[i].delta);
		fputc('}', out);
	}
	fputs(c->nlines ? "\n      ],\n      \"buckets\": [" : "],\n      \"buckets\": [", out);
	for (uint32_t i = 0; i < c->nbuckets; i++) {
		fputs(i ? ",\n        {\"table\": " : "\n        {\"table\": ", out);
		results_json_str(out, c->buckets[i].what);
		fprintf(out, ", \"bucket\": %u, \"units\": \"ps\", ", c->buckets[i].bucket);
		json_change(out, c->buckets[i].base, c->buckets[i].value, c->buckets[i].delta);
		fputc('}', out);
	}
	fputs(c->nbuckets ? "\n      ]\n    }" : "]\n    }", out);
}

static const char *skip_space(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

int compare_parse_threshold(const char *expr, struct compare_threshold *t, struct fs_error *e)
{
	const char *op = strpbrk(expr, "<>"), *name = skip_space(expr), *v, *end;
	size_t len;
	char *num_end;

	memset(t, 0, sizeof(*t));
	if (!op || strpbrk(op + 1, "<>"))
		return fs_fail(e, FS_ERR_USAGE, "--fail-if '%s': not FIGURE < VALUE or FIGURE > VALUE", expr);
	len = (size_t)(op - name);
	while (len && isspace((unsigned char)name[len - 1]))
		len--;
	if (!len || len >= sizeof(t->figure))
		return fs_fail(e, FS_ERR_USAGE, "--fail-if '%s': %s", expr,
			       len ? "figure name too long" : "no figure name before the operator");
	for (size_t i = 0; i < len; i++)
		if (isspace((unsigned char)name[i]))
			return fs_fail(e, FS_ERR_USAGE, "--fail-if '%s': a figure name has no spaces", expr);
	memcpy(t->figure, name, len);
	t->op = *op;
	v = skip_space(op + 1);
	end = v + strlen(v);
	while (end > v && isspace((unsigned char)end[-1]))
		end--;
	if (end > v && end[-1] == '%') {
		t->rel = true;
		end--;
	}
	errno = 0;
	t->value = strtod(v, &num_end);
	if (v == end || num_end != end || errno || !isfinite(t->value) ||
	    !(isdigit((unsigned char)*v) || *v == '+' || *v == '-' || *v == '.'))
		return fs_fail(e, FS_ERR_USAGE,
			       "--fail-if '%s': VALUE must be a number, with %% for a relative change (e.g. -5%%)",
			       expr);
	snprintf(t->text, sizeof(t->text), "%.*s%s", (int)(end - v), v, t->rel ? "%" : "");
	return 0;
}

bool compare_threshold_failed(const struct compare_threshold *t, const struct compare_figure *f)
{
	double x = t->rel ? f->rel : f->delta;

	return t->op == '<' ? x < t->value : x > t->value;
}

void compare_print_threshold(const struct compare_threshold *t, const struct compare_figure *f, bool failed,
			     const char *base_label, const char *label, FILE *out)
{
	fprintf(out, "%s ", f->name);
	if (t->rel)
		print_rel(out, f->rel);
	else
		print_num(out, f->delta, f->decimals, true);
	fprintf(out, failed ? " %c %s (%s " : " (fails if %c %s; %s ", t->op, t->text, base_label);
	print_num(out, f->base, f->decimals, false);
	fprintf(out, ", %s ", label);
	print_num(out, f->value, f->decimals, false);
	fputc(')', out);
}
