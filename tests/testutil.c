/* SPDX-License-Identifier: MIT */
#include "tests/testutil.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

void tu_machine(struct machine *m, const char *yaml)
{
	struct yt_doc *d = yt_doc_new();
	struct fs_error e = { 0 };
	struct yt_node *root;

	ck_assert_ptr_nonnull(d);
	root = yt_load_string(d, "test-machine.yaml", yaml, strlen(yaml), &e);
	ck_assert_msg(root != NULL, "%s", e.msg);
	ck_assert_msg(machine_from_yaml(m, root, &e) == 0, "%s", e.msg);
	yt_doc_free(d);
}

char *tu_write_temp(const char *text)
{
	char *path = strdup("/tmp/futexsim-test-XXXXXX.yaml");
	int fd;

	ck_assert_ptr_nonnull(path);
	fd = mkstemps(path, 5);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

void tu_run(struct tu_run *r, const char *path, const char *const *sets, size_t nsets)
{
	struct fs_error e = { 0 };

	ck_assert_msg(scenario_load(&r->sc, path, sets, nsets, &e) == 0, "%s", e.msg);
	ck_assert_msg(sim_build(&r->s, &r->sc, &e) == 0, "%s", e.msg);
	ck_assert_msg(sim_run(&r->s, &e) == 0, "%s", e.msg);
}

void tu_run_free(struct tu_run *r)
{
	sim_free(&r->s);
	scenario_free(&r->sc);
}

double tu_figure(const struct tu_run *r, const char *name)
{
	struct workload_figures f = { 0 };

	r->s.sc->wl_type->figures(r->s.wl, &f);
	for (uint32_t i = 0; i < f.n; i++)
		if (!strcmp(f.v[i].name, name))
			return f.v[i].value;
	ck_abort_msg("no workload figure %s", name);
	return 0;
}

/* Whether line `l`'s object name starts with `prefix`. */
static bool line_of(const struct sim *s, uint32_t l, const char *prefix)
{
	return strncmp(s->mem.objects[s->mem.labels[l].object].name, prefix, strlen(prefix)) == 0;
}

unsigned long long tu_transfers_of(const struct sim *s, const char *prefix)
{
	unsigned long long sum = 0;

	for (uint32_t l = 0; l < s->coh.nlines; l++)
		if (line_of(s, l, prefix))
			for (int k = 0; k < XFER_NCLASSES; k++)
				sum += s->coh.lines[l].stats.transfers[k];
	return sum;
}

unsigned long long tu_accesses_of(const struct sim *s, const char *prefix)
{
	unsigned long long sum = 0;

	for (uint32_t l = 0; l < s->coh.nlines; l++)
		if (line_of(s, l, prefix))
			sum += s->coh.lines[l].reads + s->coh.lines[l].writes;
	return sum;
}

const char *tu_bin(void)
{
	const char *bin = getenv("FUTEXSIM");

	return bin && *bin ? bin : "bin/futexsim";
}

int tu_futexsim(const char *args, char **output)
{
	char cmd[4096];

	snprintf(cmd, sizeof(cmd), "%s %s", tu_bin(), args);
	return tu_shell(cmd, output);
}

int tu_futexsimf(char **output, const char *fmt, ...)
{
	char args[3072];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	return tu_futexsim(args, output);
}

int tu_shell(const char *command, char **output)
{
	char cmd[8192];
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	FILE *p;
	int status;

	ck_assert_ptr_nonnull(buf);
	/* braces: stderr of every command in the line, not just the last */
	snprintf(cmd, sizeof(cmd), "{ %s\n} 2>&1", command);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	for (;;) {
		size_t n;

		if (len + 1024 > cap) {
			cap *= 2;
			buf = realloc(buf, cap);
			ck_assert_ptr_nonnull(buf);
		}
		n = fread(buf + len, 1, cap - len - 1, p);
		if (n == 0)
			break;
		len += n;
	}
	buf[len] = '\0';
	status = pclose(p);
	*output = buf;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int tu_shellf(char **output, const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return tu_shell(cmd, output);
}

int tu_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

void tu_mkdtemp(char dir[64], const char *prefix)
{
	snprintf(dir, 64, "/tmp/%s-XXXXXX", prefix);
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		exit(1);
	}
}

void tu_rmtree(const char *dir)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
}

int tu_run_suite(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
