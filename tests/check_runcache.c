/* SPDX-License-Identifier: MIT */
/* Tests of sim/runcache.c and runpool_map_cached: a figure is reused only under its
 * exact key (revision, figure, resolved scenario), from memory or from a --cache
 * directory; a damaged, foreign or colliding file there is a miss; a revision that
 * does not name its code keeps nothing on disk; tasks of equal keys run once and a
 * cached task not at all. */
#include <check.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/runcache.h"
#include "sim/runpool.h"
#include "tests/testutil.h"

static const char *const rev = "0123456789ab";

/* The one entry file of dir (a put writes one), into path. */
static void only_file(const char *dir, char *path, size_t size)
{
	DIR *d = opendir(dir);
	struct dirent *x;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((x = readdir(d)))
		if (x->d_name[0] != '.') {
			snprintf(path, size, "%s/%s", dir, x->d_name);
			n++;
		}
	closedir(d);
	ck_assert_int_eq(n, 1);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

START_TEST(memory_keys)
{
	struct runcache c;
	struct fs_error e = { 0 };
	const char *why;
	char *k1, *k2, *k3;
	double v = 0;

	ck_assert_int_eq(runcache_open(&c, rev, NULL, &why, &e), 0);
	ck_assert_str_eq(why, "");
	k1 = runcache_key(&c, "averaged", "machine: a\n");
	k2 = runcache_key(&c, "averaged", "machine: b\n");
	k3 = runcache_key(&c, "ops/s", "machine: a\n");
	ck_assert(!runcache_get(&c, k1, &v));
	ck_assert_int_eq(runcache_put(&c, k1, 2585100, &e), 0);
	ck_assert(runcache_get(&c, k1, &v));
	ck_assert(v == 2585100);
	/* another scenario, another figure of the same scenario: misses */
	ck_assert(!runcache_get(&c, k2, &v));
	ck_assert(!runcache_get(&c, k3, &v));
	/* a failure is never stored */
	ck_assert_int_eq(runcache_put(&c, k2, -1, &e), 0);
	ck_assert_int_eq(runcache_put(&c, k3, NAN, &e), 0);
	ck_assert(!runcache_get(&c, k2, &v));
	ck_assert(!runcache_get(&c, k3, &v));
	ck_assert_uint_eq(c.hits, 1);
	ck_assert_uint_eq(c.misses, 5);
	ck_assert_uint_eq(c.stored, 0);
	free(k1), free(k2), free(k3);
	runcache_close(&c);
}
END_TEST

START_TEST(disk_across_opens)
{
	char dir[64], path[4200];
	struct runcache c;
	struct fs_error e = { 0 };
	const char *why;
	char *k;
	double v = 0;

	tu_mkdtemp(dir, "runcache");
	ck_assert_int_eq(runcache_open(&c, rev, dir, &why, &e), 0);
	k = runcache_key(&c, "averaged", "workload: {type: hash-bench}\n");
	ck_assert_int_eq(runcache_put(&c, k, 1234.5, &e), 0);
	ck_assert_uint_eq(c.stored, 1);
	free(k);
	runcache_close(&c);

	/* the next invocation finds it on disk, exactly */
	ck_assert_int_eq(runcache_open(&c, rev, dir, &why, &e), 0);
	k = runcache_key(&c, "averaged", "workload: {type: hash-bench}\n");
	ck_assert(runcache_get(&c, k, &v));
	ck_assert(v == 1234.5);
	ck_assert_uint_eq(c.disk_hits, 1);
	ck_assert(runcache_get(&c, k, &v)); /* then from memory */
	ck_assert_uint_eq(c.hits, 1);
	free(k);
	runcache_close(&c);

	/* another revision: another key, a miss */
	ck_assert_int_eq(runcache_open(&c, "ba9876543210", dir, &why, &e), 0);
	k = runcache_key(&c, "averaged", "workload: {type: hash-bench}\n");
	ck_assert(!runcache_get(&c, k, &v));
	free(k);
	runcache_close(&c);
	only_file(dir, path, sizeof(path));
	unlink(path);
	rmdir(dir);
}
END_TEST

START_TEST(damaged_and_foreign_files)
{
	static const char *const bad[] = {
		"",                                            /* empty */
		"not a cache entry\n12\n",                     /* foreign */
		"futexsim-runcache 1\nNaN\n",                  /* no figure */
		"futexsim-runcache 1\n-5\n",                   /* a failure */
		"futexsim-runcache 1\n12 \n",                  /* trailing junk */
		"futexsim-runcache 2\n12\n",                   /* another format */
	};
	char dir[64], path[4200], text[8192];
	struct runcache c;
	struct fs_error e = { 0 };
	const char *why;
	char *k;
	double v = 0;

	tu_mkdtemp(dir, "runcache");
	ck_assert_int_eq(runcache_open(&c, rev, dir, &why, &e), 0);
	k = runcache_key(&c, "averaged", "run: {seed: 3}\n");
	ck_assert_int_eq(runcache_put(&c, k, 99, &e), 0);
	runcache_close(&c);
	only_file(dir, path, sizeof(path));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		write_file(path, bad[i]);
		ck_assert_int_eq(runcache_open(&c, rev, dir, &why, &e), 0);
		ck_assert_msg(!runcache_get(&c, k, &v), "case %zu read as a figure", i);
		runcache_close(&c);
	}
	/* the right header and figure under another key (a hash collision), and the
	 * right key cut short or followed by more: misses */
	snprintf(text, sizeof(text), "futexsim-runcache 1\n7\n%s", "revision: x\nfigure: y\nscenario:\n");
	write_file(path, text);
	ck_assert_int_eq(runcache_open(&c, rev, dir, &why, &e), 0);
	ck_assert(!runcache_get(&c, k, &v));
	snprintf(text, sizeof(text), "futexsim-runcache 1\n7\n%.*s", (int)strlen(k) - 1, k);
	write_file(path, text);
	ck_assert(!runcache_get(&c, k, &v));
	snprintf(text, sizeof(text), "futexsim-runcache 1\n7\n%sx", k);
	write_file(path, text);
	ck_assert(!runcache_get(&c, k, &v));
	snprintf(text, sizeof(text), "futexsim-runcache 1\n7\n%s", k);
	write_file(path, text);
	ck_assert(runcache_get(&c, k, &v));
	ck_assert(v == 7);
	runcache_close(&c);
	free(k);
	unlink(path);
	rmdir(dir);
}
END_TEST

START_TEST(revisions_that_do_not_name_code)
{
	static const char *const revs[] = { "0123456789ab-dirty", "unknown", "" };
	char dir[64];
	struct runcache c;
	struct fs_error e = { 0 };
	const char *why;
	char *k;
	double v;

	tu_mkdtemp(dir, "runcache");
	for (size_t i = 0; i < 3; i++) {
		ck_assert_int_eq(runcache_open(&c, revs[i], dir, &why, &e), 0);
		ck_assert_str_ne(why, "");
		ck_assert_ptr_null(c.dir);
		k = runcache_key(&c, "averaged", "x: 1\n");
		ck_assert_int_eq(runcache_put(&c, k, 5, &e), 0);
		ck_assert(runcache_get(&c, k, &v)); /* within the run */
		ck_assert_uint_eq(c.stored, 0);
		free(k);
		runcache_close(&c);
	}
	ck_assert_int_eq(rmdir(dir), 0); /* empty: nothing was written */
}
END_TEST

START_TEST(bad_directories)
{
	char dir[64], file[128];
	struct runcache c;
	struct fs_error e = { 0 };
	const char *why;

	tu_mkdtemp(dir, "runcache");
	snprintf(file, sizeof(file), "%s/a-file", dir);
	write_file(file, "x");
	ck_assert_int_eq(runcache_open(&c, rev, file, &why, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "not a directory"));
	memset(&e, 0, sizeof(e));
	ck_assert_int_eq(runcache_open(&c, rev, "", &why, &e), -1);
	ck_assert_int_eq(e.status, FS_ERR_USAGE);
	memset(&e, 0, sizeof(e));
	snprintf(file, sizeof(file), "%s/no/such/parent", dir);
	ck_assert_int_eq(runcache_open(&c, rev, file, &why, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "cannot make"));
	snprintf(file, sizeof(file), "%s/a-file", dir);
	unlink(file);
	rmdir(dir);
}
END_TEST

/* figure 10 + i, or a failure for the tasks ctx forbids (a cached or shared one
 * must not run) */
static double task(size_t i, void *ctx)
{
	const int *forbidden = ctx;

	return forbidden && forbidden[i] ? -1 : 10.0 + (double)i;
}

START_TEST(pool_runs_each_key_once)
{
	struct runcache c;
	struct fs_error e = { 0 };
	const char *why;
	char *keys[4];
	double out[4];
	int forbid_shared[4] = { 0, 0, 1, 0 }, forbid_cached[4] = { 1, 1, 1, 0 };

	ck_assert_int_eq(runcache_open(&c, rev, NULL, &why, &e), 0);
	keys[0] = runcache_key(&c, "f", "a\n");
	keys[1] = runcache_key(&c, "f", "b\n");
	keys[2] = runcache_key(&c, "f", "a\n");
	keys[3] = NULL;
	/* task 2 shares task 0's key: it takes task 0's figure without running */
	ck_assert_int_eq(runpool_map_cached(4, keys, task, forbid_shared, 2, &c, out, &e), 0);
	ck_assert(out[0] == 10 && out[1] == 11 && out[2] == 10 && out[3] == 13);
	ck_assert_uint_eq(c.misses, 3);
	/* again: the keyed tasks come from the cache, the unkeyed one runs */
	ck_assert_int_eq(runpool_map_cached(4, keys, task, forbid_cached, 2, &c, out, &e), 0);
	ck_assert(out[0] == 10 && out[1] == 11 && out[2] == 10 && out[3] == 13);
	ck_assert_uint_eq(c.hits, 3);
	/* a failed task is reported and not stored */
	free(keys[1]);
	keys[1] = runcache_key(&c, "f", "c\n");
	ck_assert_int_eq(runpool_map_cached(4, keys, task, forbid_cached, 1, &c, out, &e), -1);
	ck_assert(out[1] < 0 && out[0] == 10);
	ck_assert_int_eq(runpool_map_cached(2, keys, task, NULL, 1, &c, out, &e), 0);
	ck_assert(out[1] == 11);
	for (int i = 0; i < 3; i++)
		free(keys[i]);
	runcache_close(&c);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("runcache");
	TCase *t = tcase_create("runcache");

	tcase_add_test(t, memory_keys);
	tcase_add_test(t, disk_across_opens);
	tcase_add_test(t, damaged_and_foreign_files);
	tcase_add_test(t, revisions_that_do_not_name_code);
	tcase_add_test(t, bad_directories);
	tcase_add_test(t, pool_runs_each_key_once);
	suite_add_tcase(s, t);
	return tu_run_suite(s);
}
