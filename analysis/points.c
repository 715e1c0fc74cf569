/* SPDX-License-Identifier: MIT */
#include "analysis/points.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/core/yamltree.h"
#include "sim/perfstat.h"
#include "sim/runpool.h"
#include "sim/scenario.h"
#include "sim/sim.h"

static bool matches(const char *s, const char *const *filter)
{
	if (!filter || !filter[0])
		return true;
	for (size_t i = 0; filter[i]; i++)
		if (strcmp(filter[i], s) == 0)
			return true;
	return false;
}

void point_clear(struct point *pt)
{
	free(pt->table);
	free(pt->series);
	free(pt->scenario);
	for (size_t k = 0; k < pt->nsets; k++)
		free(pt->sets[k]);
	memset(pt, 0, sizeof(*pt));
}

/* "table<TAB>series<TAB>x<TAB>published<TAB>scenario<TAB>set set ..." */
static int parse_line(struct point *pt, char *line, const char *path, unsigned lineno, struct fs_error *e)
{
	char *field[7] = { 0 }, *save = NULL, *set_save = NULL;
	int n = 0;

	memset(pt, 0, sizeof(*pt));
	line[strcspn(line, "\n")] = '\0';
	for (char *p = line; n < 7 && (field[n] = strtok_r(p, "\t", &save)); p = NULL)
		n++;
	if (n < 5)
		return fs_fail(e, FS_ERR_INPUT, "%s:%u: expected 6 tab-separated fields", path, lineno);
	pt->table = strdup(field[0]);
	pt->series = strdup(field[1]);
	pt->x = strtoull(field[2], NULL, 10);
	pt->published = strtod(field[3], NULL);
	pt->scenario = strdup(field[4]);
	pt->expected_error_pct = n > 6 ? strtod(field[6], NULL) : NAN;
	for (char *p = field[5], *tok; p || set_save; p = NULL) {
		tok = strtok_r(p, " ", &set_save);
		if (!tok)
			break;
		if (pt->nsets == POINT_MAX_SETS)
			return fs_fail(e, FS_ERR_INPUT, "%s:%u: more than %d overrides", path, lineno, POINT_MAX_SETS);
		pt->sets[pt->nsets++] = strdup(tok);
	}
	return 0;
}

int points_load(struct points *p, const char *path, const char *const *tables, const char *const *series,
		struct fs_error *e)
{
	char found[4096];
	FILE *f = fopen(futexsim_data_file(path, found, sizeof(found)), "r");
	char line[4096];
	unsigned lineno = 0;

	memset(p, 0, sizeof(*p));
	if (!f)
		return fs_fail(e, FS_ERR_INPUT, "cannot read %s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		struct point pt;
		struct point *v;

		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (parse_line(&pt, line, path, lineno, e) < 0) {
			point_clear(&pt);
			fclose(f);
			return -1;
		}
		if (!matches(pt.table, tables) || !matches(pt.series, series)) {
			point_clear(&pt);
			continue;
		}
		v = realloc(p->v, (p->n + 1) * sizeof(*v));
		if (!v) {
			point_clear(&pt);
			fclose(f);
			return fs_fail(e, FS_ERR_LIMIT, "out of memory");
		}
		p->v = v;
		p->v[p->n++] = pt;
	}
	fclose(f);
	if (p->n == 0)
		return fs_fail(e, FS_ERR_INPUT, "%s: no points match the filters", path);
	return 0;
}

void points_free(struct points *p)
{
	for (size_t i = 0; i < p->n; i++)
		point_clear(&p->v[i]);
	free(p->v);
	memset(p, 0, sizeof(*p));
}

/* The point's overrides, then `extra`, into sets (POINT_MAX_SETS + 64); their number. */
static size_t point_sets(const struct point *pt, const char *const *extra, size_t nextra, const char **sets)
{
	size_t n = 0;

	for (size_t i = 0; i < pt->nsets; i++)
		sets[n++] = pt->sets[i];
	for (size_t i = 0; i < nextra && n < POINT_MAX_SETS + 64; i++)
		sets[n++] = extra[i];
	return n;
}

/* One point, in this process: perf's Averaged figure, or a negative value on error. */
static double run_one(const struct point *pt, const char *const *extra, size_t nextra, struct fs_error *e)
{
	const char *sets[POINT_MAX_SETS + 64];
	size_t n = point_sets(pt, extra, nextra, sets);
	struct scenario sc;
	struct sim s;
	double result = -1;

	if (scenario_load(&sc, pt->scenario, sets, n, e) == 0 && sim_build(&s, &sc, e) == 0 && sim_run(&s, e) == 0) {
		result = point_averaged(&s);
		sim_free(&s);
	}
	scenario_free(&sc);
	return result;
}

/* The point's cache key (its scenario as resolved), or NULL when it does not load
 * (the run then says why). */
static char *point_key(const struct runcache *c, const struct point *pt, const char *const *extra, size_t nextra)
{
	const char *sets[POINT_MAX_SETS + 64];
	size_t n = point_sets(pt, extra, nextra, sets);
	struct fs_error e = { 0 };
	struct scenario sc;
	char *text, *key = NULL;

	if (scenario_load(&sc, pt->scenario, sets, n, &e) == 0 && (text = yt_emit_string(sc.resolved))) {
		key = runcache_key(c, "perf bench Averaged", text);
		free(text);
	}
	scenario_free(&sc);
	return key;
}

struct run_ctx {
	const struct points *p;
	const char *const *extra;
	size_t nextra;
};

static double run_task(size_t i, void *ctx)
{
	const struct run_ctx *c = ctx;
	const struct point *pt = &c->p->v[i];
	struct fs_error err = { 0 };
	double v = run_one(pt, c->extra, c->nextra, &err);

	if (v < 0)
		fprintf(stderr, "point %s/%s/%llu: %s\n", pt->table, pt->series, (unsigned long long)pt->x, err.msg);
	return v;
}

int points_run(struct points *p, const char *const *extra, size_t nextra, unsigned jobs, struct fs_error *e)
{
	struct run_ctx ctx = { p, extra, nextra };
	double *out = calloc(p->n ? p->n : 1, sizeof(*out));
	char **keys = calloc(p->n ? p->n : 1, sizeof(*keys));
	int rc;

	if (!out || !keys) {
		free(out), free(keys);
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	}
	if (p->cache) {
		for (size_t i = 0; i < p->n; i++)
			keys[i] = point_key(p->cache, &p->v[i], extra, nextra);
		rc = runpool_map_cached(p->n, keys, run_task, &ctx, jobs ? jobs : 1, p->cache, out, e);
	} else {
		rc = runpool_map(p->n, run_task, &ctx, jobs ? jobs : 1, out, e);
	}
	for (size_t i = 0; i < p->n; i++) {
		p->v[i].simulated = out[i];
		free(keys[i]);
	}
	free(out);
	free(keys);
	return rc < 0 ? fs_fail(e, FS_ERR_RUNTIME, "some points failed to simulate (see above)") : 0;
}

int points_run_seeds(struct points *p, const char *const *extra, size_t nextra, unsigned seeds, unsigned jobs,
		     struct fs_error *e)
{
	const char **sets;
	double *sum;
	char seed_set[32];
	int rc = 0;

	if (seeds <= 1)
		return points_run(p, extra, nextra, jobs, e);
	sets = malloc((nextra + 1) * sizeof(*sets));
	sum = calloc(p->n ? p->n : 1, sizeof(*sum));
	if (!sets || !sum) {
		free(sets);
		free(sum);
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	}
	for (size_t k = 0; k < nextra; k++)
		sets[k] = extra[k];
	sets[nextra] = seed_set; /* last: it overrides any seed among the extras */
	for (unsigned k = 1; k <= seeds && rc == 0; k++) {
		snprintf(seed_set, sizeof(seed_set), "run.seed=%u", k);
		rc = points_run(p, sets, nextra + 1, jobs, e);
		for (size_t i = 0; i < p->n; i++)
			sum[i] += p->v[i].simulated;
	}
	for (size_t i = 0; rc == 0 && i < p->n; i++)
		p->v[i].simulated = sum[i] / seeds;
	free(sets);
	free(sum);
	return rc;
}

int points_save(const struct points *p, const char *path, const char *header, struct fs_error *e)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return fs_fail(e, FS_ERR_OUTPUT, "cannot write %s: %s", path, strerror(errno));
	fprintf(f, "%s", header);
	fprintf(f, "# table\tseries\tx\tpublished\tscenario\tsets\terror_pct (at the last fit)\n");
	for (size_t i = 0; i < p->n; i++) {
		const struct point *pt = &p->v[i];

		fprintf(f, "%s\t%s\t%llu\t%.1f\t%s\t", pt->table, pt->series, (unsigned long long)pt->x,
			pt->published, pt->scenario);
		for (size_t k = 0; k < pt->nsets; k++)
			fprintf(f, "%s%s", k ? " " : "", pt->sets[k]);
		fprintf(f, "\t%.2f\n", point_error_pct(pt));
	}
	if (fclose(f) != 0)
		return fs_fail(e, FS_ERR_OUTPUT, "cannot write %s: %s", path, strerror(errno));
	return 0;
}

double point_error_pct(const struct point *pt)
{
	return 100.0 * (pt->simulated / pt->published - 1.0);
}

size_t points_tables(const struct points *p, const char **out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < p->n; i++) {
		size_t k;

		for (k = 0; k < n && strcmp(out[k], p->v[i].table); k++)
			;
		if (k == n && n < max)
			out[n++] = p->v[i].table;
	}
	return n;
}

double point_averaged(const struct sim *s)
{
	uint64_t *per_thread = calloc(s->nthreads ? s->nthreads : 1, sizeof(*per_thread));
	double mean;

	if (!per_thread)
		return -1;
	for (uint32_t i = 0; i < s->nthreads; i++)
		per_thread[i] = perf_ops_per_sec(s->tasks.v[i].ops, sim_window_secs(s));
	mean = (double)perf_average(per_thread, s->nthreads).mean;
	free(per_thread);
	return mean;
}
