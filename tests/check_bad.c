/* SPDX-License-Identifier: MIT */
/* Every file in tests/bad/ is an invalid scenario (or a valid one made invalid
 * by its --set overrides). Each one says in its leading comments what futexsim
 * must answer:
 *
 *   # expect-status: 3          the exit status (sim/core/error.h)
 *   # expect-at: 5:3            the message starts "futexsim: tests/bad/F.yaml:5:3: "
 *   # expect: unknown key       a fragment the message must contain (repeatable)
 *   # set: workload.threads=9   a --set override to pass (repeatable, in order)
 *   # pad-to: 1100000           run a copy padded with comment lines to this many bytes
 *
 * Each is run as `futexsim run FILE -o DIR/out.h5 [--set ...]` from the source
 * tree; besides the status and the message, nothing may be written to standard
 * output and no result file may appear.
 */
#include <check.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/testutil.h"

#define BAD_DIR "tests/bad"
#define MAX_CASES 256
#define MAX_LINES 16
#define MIN_CASES 40

struct bad_case {
	char path[256];
	int status;
	char at[32];
	char expect[MAX_LINES][256];
	size_t nexpect;
	char set[MAX_LINES][256];
	size_t nset;
	long pad_to;
};

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Whether a name in tests/bad/ is a case: a scenario file (helper files live
 * in subdirectories). */
static bool is_case(const char *name)
{
	size_t len = strlen(name);

	return len > 5 && !strcmp(name + len - 5, ".yaml");
}

/* The cases of tests/bad/, sorted. */
static size_t list_cases(char *names[MAX_CASES])
{
	DIR *d = opendir(BAD_DIR);
	struct dirent *ent;
	size_t n = 0;

	ck_assert_msg(d != NULL, "cannot open %s (run from the source tree)", BAD_DIR);
	while ((ent = readdir(d)) && n < MAX_CASES)
		if (is_case(ent->d_name))
			names[n++] = strdup(ent->d_name);
	closedir(d);
	qsort(names, n, sizeof(names[0]), cmp_names);
	return n;
}

static void free_names(char *names[], size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
}

static void chomp(char *s)
{
	size_t len = strlen(s);

	while (len && (s[len - 1] == '\n' || s[len - 1] == '\r' || s[len - 1] == ' '))
		s[--len] = '\0';
}

static void read_case(const char *name, struct bad_case *c)
{
	char line[512];
	FILE *f;

	memset(c, 0, sizeof(*c));
	c->status = -1;
	snprintf(c->path, sizeof(c->path), "%s/%s", BAD_DIR, name);
	f = fopen(c->path, "r");
	ck_assert_msg(f != NULL, "cannot read %s", c->path);
	while (fgets(line, sizeof(line), f) && line[0] == '#') {
		char *v;

		chomp(line);
		if ((v = strchr(line, ':')) == NULL)
			continue;
		for (v++; *v == ' '; v++)
			;
		if (!strncmp(line, "# expect-status:", 16))
			c->status = atoi(v);
		else if (!strncmp(line, "# expect-at:", 12))
			snprintf(c->at, sizeof(c->at), "%s", v);
		else if (!strncmp(line, "# expect:", 9) && c->nexpect < MAX_LINES)
			snprintf(c->expect[c->nexpect++], sizeof(c->expect[0]), "%s", v);
		else if (!strncmp(line, "# set:", 6) && c->nset < MAX_LINES)
			snprintf(c->set[c->nset++], sizeof(c->set[0]), "%s", v);
		else if (!strncmp(line, "# pad-to:", 9))
			c->pad_to = atol(v);
	}
	fclose(f);
	ck_assert_msg(c->status > 0, "%s: no '# expect-status:' line", c->path);
	ck_assert_msg(c->nexpect > 0, "%s: no '# expect:' line", c->path);
}

/* A copy of `src` in `dir` (same name) grown with comment lines to `size` bytes. */
static void padded_copy(const char *src, const char *dir, long size, char *out, size_t outlen)
{
	char cmd[4096], *res;

	snprintf(out, outlen, "%s/%s", dir, strrchr(src, '/') + 1);
	snprintf(cmd, sizeof(cmd),
		 "cp '%s' '%s' && while [ $(wc -c < '%s') -lt %ld ]; do "
		 "printf '# padding padding padding padding padding padding padding padding\\n%%.0s' "
		 "$(seq 1000) >> '%s'; done",
		 src, out, out, size, out);
	ck_assert_int_eq(tu_shell(cmd, &res), 0);
	free(res);
}

/* Appends ' arg' to cmd, single-quoted for /bin/sh. */
static void append_quoted(char *cmd, size_t size, const char *arg)
{
	size_t n = strlen(cmd);

	n += (size_t)snprintf(cmd + n, size - n, " '");
	for (const char *p = arg; *p && n + 5 < size; p++)
		n += (size_t)(*p == '\'' ? snprintf(cmd + n, size - n, "'\\''")
					 : snprintf(cmd + n, size - n, "%c", *p));
	snprintf(cmd + n, size - n, "'");
}

START_TEST(test_bad_file)
{
	char *names[MAX_CASES], dir[64], path[512], out_file[128], cmd[8192] = "run", prefix[600];
	size_t n = list_cases(names);
	struct bad_case c;
	struct stat st;
	char *out;
	int status;

	ck_assert_msg((size_t)_i < n, "case %d of %zu", _i, n);
	read_case(names[_i], &c);
	tu_mkdtemp(dir, "futexsim-bad");
	snprintf(path, sizeof(path), "%s", c.path);
	if (c.pad_to)
		padded_copy(c.path, dir, c.pad_to, path, sizeof(path));
	snprintf(out_file, sizeof(out_file), "%s/out.h5", dir);
	append_quoted(cmd, sizeof(cmd), path);
	append_quoted(cmd, sizeof(cmd), "-o");
	append_quoted(cmd, sizeof(cmd), out_file);
	for (size_t i = 0; i < c.nset; i++) {
		append_quoted(cmd, sizeof(cmd), "--set");
		append_quoted(cmd, sizeof(cmd), c.set[i]);
	}
	status = tu_futexsim(cmd, &out);
	ck_assert_msg(status == c.status, "%s: exit status %d, expected %d; output:\n%s", c.path, status,
		      c.status, out);
	/* one message, from main, and nothing else */
	ck_assert_msg(!strncmp(out, "futexsim: ", 10), "%s: output does not start with 'futexsim: ':\n%s",
		      c.path, out);
	ck_assert_msg(strchr(out, '\n') == out + strlen(out) - 1, "%s: more than one line:\n%s", c.path, out);
	if (c.at[0]) {
		snprintf(prefix, sizeof(prefix), "futexsim: %s:%s: ", path, c.at);
		ck_assert_msg(!strncmp(out, prefix, strlen(prefix)), "%s: expected the message to start with '%s':\n%s",
			      c.path, prefix, out);
	}
	for (size_t i = 0; i < c.nexpect; i++)
		ck_assert_msg(strstr(out, c.expect[i]) != NULL, "%s: expected '%s' in:\n%s", c.path, c.expect[i],
			      out);
	ck_assert_msg(stat(out_file, &st) != 0, "%s: a result file was written", c.path);
	free(out);
	tu_rmtree(dir);
	free_names(names, n);
}
END_TEST

/* The issue asks for at least 40, and each class of bad input at least once. */
START_TEST(test_enough_cases)
{
	char *names[MAX_CASES];
	size_t n = list_cases(names);

	ck_assert_msg(n >= MIN_CASES, "%zu files in %s, expected at least %d", n, BAD_DIR, MIN_CASES);
	free_names(names, n);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("bad");
	TCase *tc = tcase_create("bad");
	size_t n = 0;
	DIR *d = opendir(BAD_DIR);
	struct dirent *ent;

	/* counted here (outside a test) to size the loop */
	while (d && (ent = readdir(d)))
		n += is_case(ent->d_name);
	if (d)
		closedir(d);
	tcase_add_test(tc, test_enough_cases);
	tcase_add_loop_test(tc, test_bad_file, 0, (int)n);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(suite());
}
