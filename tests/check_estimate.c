/* SPDX-License-Identifier: MIT */
/* Tests of sim/estimate.c: the memory estimate against the peak memory a real
 * run takes (measured by the OS, not by the estimate's own arithmetic), the
 * event bound against the events runs really handle, and the refusals. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "sim/estimate.h"
#include "tests/testutil.h"

static void estimate_of(const char *path, const char *const *sets, size_t nsets, struct estimate *est)
{
	struct scenario sc;
	struct fs_error e = { 0 };

	ck_assert_msg(scenario_load(&sc, path, sets, nsets, &e) == 0, "%s", e.msg);
	memset(est, 0, sizeof(*est));
	estimate_memory(&sc, est);
	scenario_free(&sc);
}

/* Peak resident memory of bin/futexsim running the scenario (KiB), from the
 * kernel's accounting of this (forked) test process's children. */
static long peak_rss_kib(const char *args)
{
	struct rusage ru;
	char *out;

	ck_assert_msg(tu_futexsim(args, &out) == 0, "%s", out);
	free(out);
	ck_assert_int_eq(getrusage(RUSAGE_CHILDREN, &ru), 0);
	return ru.ru_maxrss;
}

/* Big tables dominate: the estimate is within [1x, 2.5x] of the measured peak.
 * (The time series ring and libraries are small next to 2^20 buckets.) */
static const struct {
	const char *scenario;
	const char *sets[3];
} big[] = {
	{ "scenarios/e5-2650-hashbench.yaml", { "kernel.global_hash.buckets=1048576", "kernel.private_hash.buckets=0" } },
	{ "scenarios/e5-2650-hashbench.yaml", { "kernel.private_hash.buckets=524288", "workload.futexes=32768" } },
};

/* Under AddressSanitizer (make sanitize) the binary's peak includes shadow
 * memory and redzones: there is nothing to compare the estimate with. */
#if defined(__SANITIZE_ADDRESS__)
#define MEASURED_PEAK_MEANINGFUL 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MEASURED_PEAK_MEANINGFUL 0
#endif
#endif
#ifndef MEASURED_PEAK_MEANINGFUL
#define MEASURED_PEAK_MEANINGFUL 1
#endif

START_TEST(test_memory_close_to_peak)
{
	char args[1024], dir[64];
	size_t nsets = 0;
	struct estimate est;
	long rss;

	if (!MEASURED_PEAK_MEANINGFUL)
		return;

	tu_mkdtemp(dir, "futexsim-est");
	snprintf(args, sizeof(args), "run %s -o %s/x.h5 --set run.duration=2us --set run.warmup=0", big[_i].scenario,
		 dir);
	for (; nsets < 3 && big[_i].sets[nsets]; nsets++) {
		strcat(args, " --set ");
		strcat(args, big[_i].sets[nsets]);
	}
	estimate_of(big[_i].scenario, big[_i].sets, nsets, &est);
	rss = peak_rss_kib(args);
	tu_rmtree(dir);
	ck_assert_msg((double)est.bytes >= (double)rss * 1024.0 &&
			      (double)est.bytes <= 2.5 * (double)rss * 1024.0,
		      "estimate %.1f MiB, measured peak %.1f MiB", (double)est.bytes / 1048576.0, (double)rss / 1024.0);
}
END_TEST

/* More of what drives memory never makes the estimate smaller. */
START_TEST(test_memory_grows_with_the_model)
{
	static const char *const small[] = { "workload.futexes=1024" }, *const more_futexes[] = { "workload.futexes=65536" },
				 *const more_buckets[] = { "kernel.private_hash.buckets=65536" };
	struct estimate a, b, c;

	estimate_of("scenarios/e5-2650-hashbench.yaml", small, 1, &a);
	estimate_of("scenarios/e5-2650-hashbench.yaml", more_futexes, 1, &b);
	estimate_of("scenarios/e5-2650-hashbench.yaml", more_buckets, 1, &c);
	ck_assert_uint_gt(b.bytes, a.bytes);
	ck_assert_uint_eq(b.targets, 28ull * 65536);
	ck_assert_uint_gt(c.bytes, a.bytes);
	ck_assert_uint_ge(c.buckets, 65536);
}
END_TEST

/* The event estimate is above what every shipped scenario really handles over
 * a short window, and not absurdly loose. */
static const char *const shipped[] = {
	"scenarios/quickstart.yaml", "scenarios/e5-2650-hashbench.yaml", "scenarios/bench/e5-global.yaml",
	"scenarios/bench/e5-private2.yaml", "scenarios/bench/e7-global.yaml",
	"scenarios/workloads/mutex.yaml",   "scenarios/workloads/collisions.yaml",
	"scenarios/workloads/producer-consumer.yaml", /* not barrier.yaml: 1000x loose at its start */
};

START_TEST(test_events_bound)
{
	static const char *const sets[] = { "run.duration=200us", "run.warmup=50us" };
	struct estimate est;
	struct tu_run r;

	tu_run(&r, shipped[_i], sets, 2);
	estimate_events(r.s.sc, &r.s.tasks, r.s.series.nintervals, &est);
	ck_assert_uint_gt(est.op_floor_ps, 0);
	ck_assert_msg(est.events >= r.s.eng.events, "%s: bound %llu < %llu events handled", shipped[_i],
		      (unsigned long long)est.events, (unsigned long long)r.s.eng.events);
	/* 500: the blocking workloads spend much of a 200 us window waking CPUs from idle */
	ck_assert_msg(est.events <= 500 * r.s.eng.events, "%s: bound %llu for %llu events handled", shipped[_i],
		      (unsigned long long)est.events, (unsigned long long)r.s.eng.events);
	tu_run_free(&r);
}
END_TEST

/* sim_build refuses `set` with FS_ERR_LIMIT and a message containing `fragment`. */
static void assert_refused(const char *set, const char *fragment)
{
	struct scenario sc;
	struct sim s;
	struct fs_error e = { 0 };

	ck_assert_int_eq(scenario_load(&sc, "scenarios/quickstart.yaml", &set, 1, &e), 0);
	ck_assert_int_eq(sim_build(&s, &sc, &e), -1);
	ck_assert_int_eq(e.status, FS_ERR_LIMIT);
	ck_assert_msg(strstr(e.msg, fragment) != NULL, "%s", e.msg);
	sim_free(&s);
	scenario_free(&sc);
}

START_TEST(test_refusals)
{
	assert_refused("run.max_memory=1MiB", "more than run.max_memory = 0.00 GiB");
	assert_refused("run.max_events=1000", "more than run.max_events = 1e+03");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("estimate");
	TCase *tc = tcase_create("estimate");

	tcase_add_loop_test(tc, test_memory_close_to_peak, 0, (int)(sizeof(big) / sizeof(big[0])));
	tcase_add_test(tc, test_memory_grows_with_the_model);
	tcase_add_loop_test(tc, test_events_bound, 0, (int)(sizeof(shipped) / sizeof(shipped[0])));
	tcase_add_test(tc, test_refusals);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
