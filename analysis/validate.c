/* SPDX-License-Identifier: MIT */
/* futexsim-validate: simulates every published point (analysis/validation-points.tsv)
 * and reports the fit: per table, published vs simulated with the error, the median
 * and maximum absolute error, the knee of each bucket sweep, and the orderings the
 * published tables show. Writes OUT/points.csv and OUT/summary.csv for plots.
 * --band adds each point's 1-sigma band from the fit's covariance (sim/band.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/points.h"
#include "sim/band.h"
#include "sim/revision.h"
#include "sim/scenario.h"

#define MAX_ARGS 64

static const char usage[] =
	"usage: futexsim-validate [--points FILE] [--table NAME]... [--set KEY=VALUE]... [-j N] [--out DIR]\n"
	"                         [--cache DIR]\n"
	"\n"
	"Simulates the published points and prints published vs simulated per table.\n"
	"  --points FILE   points to simulate (default analysis/validation-points.tsv, here\n"
	"                  or in the installed or source tree's data directory)\n"
	"  --table NAME    only this table (repeatable): e5-sweep-2024, e5-hashfn-2024, e5-v11-2025\n"
	"  --series NAME   only this series of the tables (repeatable), e.g. all_28\n"
	"  --set KEY=VALUE override applied to every point (e.g. run.duration=2ms)\n"
	"  --seeds N       simulate each point with run.seed = 1..N and keep the mean (the\n"
	"                  published 2024 points are each the mean of five runs, so of five\n"
	"                  heap layouts; default 1: one layout, the scenarios' seed)\n"
	"  -j N            worker processes (default: online CPUs)\n"
	"  --out DIR       write DIR/points.csv and DIR/summary.csv (default results/validation)\n"
	"  --cache DIR     keep each point's figure in DIR, keyed by the revision and the point's\n"
	"                  resolved scenario, and reuse what DIR holds (a point is never simulated\n"
	"                  twice in one run in any case; a build with uncommitted changes reuses\n"
	"                  within the run only)\n"
	"  --save FILE     also write the points with their errors as TSV (the regression data\n"
	"                  of make check: tests/regression/calibration.tsv)\n"
	"  --band          also each point's 1-sigma band from the fit (futexsim run --band: the\n"
	"                  points run again at the machine's fitted costs moved along each axis\n"
	"                  of their covariance; the machine is the first point's)\n"
	"\n"
	"Examples:\n"
	"  $ futexsim-validate --table e5-v11-2025 --series before-series/shared\n";

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct table_stats {
	const char *table;
	size_t n;
	double median_abs, max_abs;
};

static struct table_stats table_stats(const struct points *p, const char *table)
{
	struct table_stats st = { table, 0, 0, 0 };
	double *errs = malloc(p->n * sizeof(*errs));

	for (size_t i = 0; errs && i < p->n; i++)
		if (strcmp(p->v[i].table, table) == 0)
			errs[st.n++] = fabs(point_error_pct(&p->v[i]));
	if (st.n) {
		qsort(errs, st.n, sizeof(*errs), cmp_double);
		st.median_abs = st.n % 2 ? errs[st.n / 2] : (errs[st.n / 2 - 1] + errs[st.n / 2]) / 2;
		st.max_abs = errs[st.n - 1];
	}
	free(errs);
	return st;
}

static const struct point *find(const struct points *p, const char *table, const char *series, uint64_t x)
{
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->v[i].table, table) && !strcmp(p->v[i].series, series) && p->v[i].x == x)
			return &p->v[i];
	return NULL;
}

/* Smallest bucket count (x >= 2) reaching 90% of the series' maximum, for published
 * (which = 0) or simulated (which = 1) values; 0 if the series has no such points. */
static uint64_t knee(const struct points *p, const char *table, const char *series, int which)
{
	double plateau = 0;
	uint64_t best = 0;

	for (int pass = 0; pass < 2; pass++) /* the maximum, then the first to reach 90% of it */
		for (size_t i = 0; i < p->n; i++) {
			const struct point *pt = &p->v[i];
			double v = which ? pt->simulated : pt->published;

			if (strcmp(pt->table, table) || strcmp(pt->series, series) || pt->x < 2)
				continue;
			if (pass == 0 && v > plateau)
				plateau = v;
			else if (pass == 1 && v >= 0.9 * plateau && (!best || pt->x < best))
				best = pt->x;
		}
	return best;
}

/* Each point's band as errors in percent, [lo, hi] (band_error_*), or NULL. */
struct bands {
	double *lo_pct, *hi_pct;
};

static void print_table(const struct points *p, const struct bands *b, const char *table)
{
	size_t n = 0, covered = 0;

	printf("\n== %s\n%-28s %7s %14s %14s %8s%s\n", table, "series", "x", "published", "simulated", "error",
	       b ? "   1-sigma band of the error" : "");
	for (size_t i = 0; i < p->n; i++) {
		const struct point *pt = &p->v[i];

		if (strcmp(pt->table, table) != 0)
			continue;
		printf("%-28s %7llu %14.0f %14.0f %+7.1f%%", pt->series, (unsigned long long)pt->x, pt->published,
		       pt->simulated, point_error_pct(pt));
		if (b) {
			printf("   [%+.1f%%, %+.1f%%]", b->lo_pct[i], b->hi_pct[i]);
			n++;
			covered += b->lo_pct[i] <= 0 && b->hi_pct[i] >= 0;
		}
		printf("\n");
	}
	if (b)
		printf("%zu of %zu points have the published value inside their band\n", covered, n);
}

/* The bands: every point again at each move of the band plan of the first
 * point's machine, then band_combine around each point's own figure. */
static int run_bands(struct points *p, const char *const *sets, size_t nsets, unsigned jobs, struct bands *b,
		     struct fs_error *e)
{
	const char *first[POINT_MAX_SETS + MAX_ARGS + 1];
	struct band_plan *plan = malloc(sizeof(*plan));
	struct scenario sc;
	double *center = calloc(p->n + 1, sizeof(double)), *figs = calloc((p->n + 1) * 2 * BAND_MAX_PARAMS,
									   sizeof(double));
	size_t n = 0;
	int rc = -1;

	b->lo_pct = calloc(p->n + 1, sizeof(double));
	b->hi_pct = calloc(p->n + 1, sizeof(double));
	if (!plan || !center || !figs || !b->lo_pct || !b->hi_pct || !p->n) {
		fs_fail(e, FS_ERR_LIMIT, p->n ? "out of memory" : "no points");
		goto out;
	}
	for (size_t k = 0; k < p->v[0].nsets; k++)
		first[n++] = p->v[0].sets[k];
	for (size_t k = 0; k < nsets; k++)
		first[n++] = sets[k];
	first[n] = NULL;
	rc = scenario_load(&sc, p->v[0].scenario, first, n, e);
	if (rc == 0)
		rc = band_plan_from_machine(plan, yt_get(sc.resolved, "machine"), e);
	scenario_free(&sc);
	if (rc < 0)
		goto out;
	for (size_t i = 0; i < p->n; i++)
		center[i] = p->v[i].simulated;
	for (uint32_t r = 0; r < plan->nruns && rc == 0; r++) {
		const char *all[MAX_ARGS + BAND_MAX_PARAMS + 1];
		size_t na = 0;

		for (size_t k = 0; k < nsets; k++)
			all[na++] = sets[k];
		for (uint32_t k = 0; k < plan->nparams; k++)
			all[na++] = plan->sets[r][k];
		if (isatty(STDERR_FILENO)) /* progress for a person, not for logs */
			fprintf(stderr, "\rband: pass %u of %u%s", r + 1, plan->nruns, r + 1 == plan->nruns ? "\n" : "");
		rc = points_run(p, all, na, jobs, e);
		for (size_t i = 0; i < p->n; i++)
			figs[i * 2 * BAND_MAX_PARAMS + r] = p->v[i].simulated;
	}
	for (size_t i = 0; i < p->n; i++) {
		double lo, hi;

		p->v[i].simulated = center[i];
		band_combine(plan, center[i], &figs[i * 2 * BAND_MAX_PARAMS], &lo, &hi);
		b->lo_pct[i] = 100 * (lo / p->v[i].published - 1);
		b->hi_pct[i] = 100 * (hi / p->v[i].published - 1);
	}
out:
	free(plan);
	free(center);
	free(figs);
	return rc;
}

static int check(FILE *out, const char *what, int holds, const char *detail)
{
	printf("  %-58s %s  %s\n", what, holds ? "holds" : "DOES NOT HOLD", detail);
	fprintf(out, "check,\"%s\",%d,\"%s\"\n", what, holds, detail);
	return holds;
}

/* Every ordering a table publishes clearly: each pair of its points whose published
 * values are at least ORDER_MARGIN apart (beyond run-to-run noise) must come out of
 * the simulation in the same order. */
#define ORDER_MARGIN 1.10

static void ordering_check(const struct points *p, const char *table, FILE *out)
{
	size_t pairs = 0, kept = 0;
	const struct point *bad_a = NULL, *bad_b = NULL;
	char what[128], detail[256];

	for (size_t i = 0; i < p->n; i++)
		for (size_t j = i + 1; j < p->n; j++) {
			const struct point *a = &p->v[i], *b = &p->v[j];
			const struct point *hi = a->published > b->published ? a : b, *lo = hi == a ? b : a;

			if (strcmp(a->table, table) || strcmp(b->table, table) ||
			    hi->published < ORDER_MARGIN * lo->published)
				continue;
			pairs++;
			if (hi->simulated > lo->simulated)
				kept++;
			else if (!bad_a) {
				bad_a = hi;
				bad_b = lo;
			}
		}
	if (!pairs)
		return;
	snprintf(what, sizeof(what), "%s: orderings at least %.0f%% apart kept", table, (ORDER_MARGIN - 1) * 100);
	if (bad_a)
		snprintf(detail, sizeof(detail), "%zu of %zu pairs; e.g. %s %llu (%.0f) above %s %llu (%.0f) published",
			 kept, pairs, bad_a->series, (unsigned long long)bad_a->x, bad_a->published, bad_b->series,
			 (unsigned long long)bad_b->x, bad_b->published);
	else
		snprintf(detail, sizeof(detail), "all %zu pairs", pairs);
	check(out, what, kept == pairs, detail);
}

/* The shape checks of issue 4: knees within one power of two; node-bound curves above
 * the both-nodes curve below 1024 buckets; the v11 orderings; then every clear
 * ordering of each table. */
static void shape_checks(const struct points *p, FILE *out)
{
	static const char *const sweeps[][2] = {
		{ "e5-sweep-2024", "all_28" }, { "e5-sweep-2024", "node0_14" }, { "e5-sweep-2024", "node1_14" },
	};
	char detail[256];

	printf("\n== shape\n");
	for (size_t i = 0; i < sizeof(sweeps) / sizeof(sweeps[0]); i++) {
		uint64_t kp = knee(p, sweeps[i][0], sweeps[i][1], 0), ks = knee(p, sweeps[i][0], sweeps[i][1], 1);
		char what[128];

		if (!kp || !ks)
			continue;
		snprintf(what, sizeof(what), "knee of %s within a power of two", sweeps[i][1]);
		snprintf(detail, sizeof(detail), "published %llu, simulated %llu", (unsigned long long)kp,
			 (unsigned long long)ks);
		check(out, what, kp <= 2 * ks && ks <= 2 * kp, detail);
	}
	for (int node = 0; node < 2; node++) {
		char series[32], what[128];
		int holds = 1, any = 0;
		uint64_t bad = 0;

		snprintf(series, sizeof(series), "node%d_14", node);
		for (uint64_t b = 2; b < 1024; b *= 2) {
			const struct point *n = find(p, "e5-sweep-2024", series, b), *a = find(p, "e5-sweep-2024", "all_28", b);

			if (!n || !a)
				continue;
			any = 1;
			if (!(n->simulated > a->simulated)) {
				holds = 0;
				bad = bad ? bad : b;
			}
		}
		if (!any)
			continue;
		snprintf(what, sizeof(what), "%s above all_28 below 1024 buckets", series);
		snprintf(detail, sizeof(detail), bad ? "first failure at %llu buckets" : "every bucket count",
			 (unsigned long long)bad);
		check(out, what, holds, detail);
	}
	const struct point *bs = find(p, "e5-v11-2025", "before-series/shared", 0),
			   *bp = find(p, "e5-v11-2025", "before-series/private", 0),
			   *b128 = find(p, "e5-v11-2025", "with-series/private/-b128", 128),
			   *i128 = find(p, "e5-v11-2025", "with-series/private/-Ib128", 128),
			   *b8k = find(p, "e5-v11-2025", "with-series/private/-b8192", 8192),
			   *i8k = find(p, "e5-v11-2025", "with-series/private/-Ib8192", 8192);
	if (bs && bp) {
		snprintf(detail, sizeof(detail), "%.0f < %.0f", bs->simulated, bp->simulated);
		check(out, "v11: shared below private (before the series)", bs->simulated < bp->simulated, detail);
	}
	if (b128 && i128 && b8k && i8k) {
		snprintf(detail, sizeof(detail), "-b128/-Ib128 = %.2f, -b8192/-Ib8192 = %.2f",
			 b128->simulated / i128->simulated, b8k->simulated / i8k->simulated);
		check(out, "v11: -b far below -Ib (less than half)",
		      b128->simulated < 0.5 * i128->simulated && b8k->simulated < 0.5 * i8k->simulated, detail);
		snprintf(detail, sizeof(detail), "-b8192/-b128 = %.2f", b8k->simulated / b128->simulated);
		check(out, "v11: -b8192 ~ -b128 (within 25%)",
		      fabs(b8k->simulated / b128->simulated - 1) <= 0.25, detail);
	}
	for (size_t i = 0; i < p->n; i++) {
		size_t k = 0;

		while (k < i && strcmp(p->v[k].table, p->v[i].table))
			k++;
		if (k == i) /* the table's first point */
			ordering_check(p, p->v[i].table, out);
	}
}

static int mkdirs(const char *dir)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s", dir);
	for (char *s = path + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			if (mkdir(path, 0777) < 0 && errno != EEXIST)
				return -1;
			*s = '/';
		}
	return mkdir(path, 0777) < 0 && errno != EEXIST ? -1 : 0;
}

int main(int argc, char **argv)
{
	const char *points_file = "analysis/validation-points.tsv", *out_dir = "results/validation", *save = NULL;
	const char *cache_dir = NULL, *why;
	struct runcache cache;
	const char *tables[MAX_ARGS + 1] = { 0 }, *series[MAX_ARGS + 1] = { 0 }, *sets[MAX_ARGS + 1] = { 0 };
	size_t ntables = 0, nseries = 0, nsets = 0;
	struct bands bands = { 0 };
	bool band = false;
	unsigned long seeds = 1;
	long jobs = sysconf(_SC_NPROCESSORS_ONLN);
	struct fs_error e = { 0 };
	struct points p;
	char path[4096];
	FILE *csv, *sum;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(usage, stdout);
			return 0;
		} else if (!strcmp(a, "--points") && v) {
			points_file = argv[++i];
		} else if (!strcmp(a, "--table") && v && ntables < MAX_ARGS) {
			tables[ntables++] = argv[++i];
		} else if (!strcmp(a, "--series") && v && nseries < MAX_ARGS) {
			series[nseries++] = argv[++i];
		} else if (!strcmp(a, "--set") && v && nsets < MAX_ARGS) {
			sets[nsets++] = argv[++i];
		} else if (!strcmp(a, "--seeds") && v) {
			char *end;

			errno = 0;
			seeds = strtoul(argv[++i], &end, 10);
			if (errno || *end || argv[i][0] == '-' || seeds < 1 || seeds > 1000) {
				fprintf(stderr, "futexsim-validate: --seeds takes a count from 1 to 1000, not '%s'\n",
					argv[i]);
				return 2;
			}
		} else if (!strcmp(a, "-j") && v) {
			jobs = atol(argv[++i]);
		} else if (!strcmp(a, "--out") && v) {
			out_dir = argv[++i];
		} else if (!strcmp(a, "--cache") && v) {
			cache_dir = argv[++i];
		} else if (!strcmp(a, "--save") && v) {
			save = argv[++i];
		} else if (!strcmp(a, "--band")) {
			band = true;
		} else {
			fprintf(stderr, "futexsim-validate: bad argument '%s'\n%s", a, usage);
			return 2;
		}
	}
	if ((save || band) && seeds > 1) {
		/* the regression check reruns each saved point once, with its own overrides; a
		 * band is the runs' spread around one seed's figure */
		fprintf(stderr, "futexsim-validate: --%s takes the points of one seed, not a mean of %lu (--seeds)\n",
			save ? "save" : "band", seeds);
		return 2;
	}
	if (runcache_open(&cache, futexsim_git_rev, cache_dir, &why, &e) < 0) {
		fprintf(stderr, "futexsim-validate: %s\n", e.msg);
		return e.status ? e.status : 2;
	}
	if (*why)
		fprintf(stderr, "futexsim-validate: --cache %s not used: %s\n", cache_dir, why);
	if (points_load(&p, points_file, tables, series, &e) < 0 || (p.cache = &cache, false) ||
	    points_run_seeds(&p, sets, nsets, (unsigned)seeds, (unsigned)jobs, &e) < 0 ||
	    (band && run_bands(&p, sets, nsets, (unsigned)jobs, &bands, &e) < 0)) {
		fprintf(stderr, "futexsim-validate: %s\n", e.msg);
		return e.status ? e.status : 1;
	}
	if (mkdirs(out_dir) < 0) {
		fprintf(stderr, "futexsim-validate: cannot create %s: %s\n", out_dir, strerror(errno));
		return 4;
	}
	snprintf(path, sizeof(path), "%s/points.csv", out_dir);
	csv = fopen(path, "w");
	snprintf(path, sizeof(path), "%s/summary.csv", out_dir);
	sum = fopen(path, "w");
	if (!csv || !sum) {
		fprintf(stderr, "futexsim-validate: cannot write in %s: %s\n", out_dir, strerror(errno));
		return 4;
	}
	fprintf(csv, "table,series,x,published,simulated,error_pct%s\n", band ? ",band_lo_pct,band_hi_pct" : "");
	for (size_t i = 0; i < p.n; i++) {
		fprintf(csv, "%s,%s,%llu,%.1f,%.1f,%.2f", p.v[i].table, p.v[i].series, (unsigned long long)p.v[i].x,
			p.v[i].published, p.v[i].simulated, point_error_pct(&p.v[i]));
		if (band)
			fprintf(csv, ",%.2f,%.2f", bands.lo_pct[i], bands.hi_pct[i]);
		fputc('\n', csv);
	}
	fprintf(sum, "kind,what,value,detail\n");
	const char *seen[16];
	size_t nseen = points_tables(&p, seen, 16);

	if (seeds > 1)
		printf("simulated: the mean over run.seed = 1..%lu of each point's Averaged figure\n", seeds);
	for (size_t k = 0; k < nseen; k++)
		print_table(&p, band ? &bands : NULL, seen[k]);
	printf("\n== error per table (absolute, %%)\n%-18s %6s %8s %8s\n", "table", "points", "median", "max");
	for (size_t k = 0; k < nseen; k++) {
		struct table_stats st = table_stats(&p, seen[k]);

		printf("%-18s %6zu %7.1f%% %7.1f%%\n", st.table, st.n, st.median_abs, st.max_abs);
		fprintf(sum, "error,%s,%.2f,median_abs_pct\nerror,%s,%.2f,max_abs_pct\n", st.table, st.median_abs,
			st.table, st.max_abs);
	}
	shape_checks(&p, sum);
	if (save) {
		char header[512];

		/* the saved points carry the overrides they were run with */
		for (size_t i = 0; i < p.n; i++)
			for (size_t k = 0; k < nsets && p.v[i].nsets < POINT_MAX_SETS; k++)
				p.v[i].sets[p.v[i].nsets++] = strdup(sets[k]);
		snprintf(header, sizeof(header), "# Written by bin/futexsim-validate --save (futexsim %s, git %s) from %s\n",
			 FUTEXSIM_VERSION, futexsim_git_rev, points_file);
		if (points_save(&p, save, header, &e) < 0) {
			fprintf(stderr, "futexsim-validate: %s\n", e.msg);
			return 4;
		}
		printf("wrote %s\n", save);
	}
	fclose(csv);
	fclose(sum);
	printf("\nwrote %s/points.csv and %s/summary.csv\n", out_dir, out_dir);
	if (cache_dir)
		fprintf(stderr, "futexsim-validate: %u points simulated, %u reused (%u of them from %s)\n", cache.misses,
			cache.hits + cache.disk_hits, cache.disk_hits, cache_dir);
	points_free(&p);
	runcache_close(&cache);
	free(bands.lo_pct);
	free(bands.hi_pct);
	return 0;
}
