/* SPDX-License-Identifier: MIT */
#include "sim/runcache.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RUNCACHE_HEADER "futexsim-runcache 1\n"

/* FNV-1a, 64 bits: a file name and a fast first comparison, never the identity. */
static unsigned long long fnv1a(const char *s)
{
	unsigned long long h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

static bool names_code(const char *revision)
{
	size_t n = strlen(revision);

	return n && strcmp(revision, "unknown") && !(n >= 6 && !strcmp(revision + n - 6, "-dirty"));
}

int runcache_open(struct runcache *c, const char *revision, const char *dir, const char **why, struct fs_error *e)
{
	struct stat st;

	memset(c, 0, sizeof(*c));
	*why = "";
	c->revision = revision;
	if (!dir)
		return 0;
	if (!*dir)
		return fs_fail(e, FS_ERR_USAGE, "--cache: an empty directory name");
	if (mkdir(dir, 0777) < 0 && errno != EEXIST)
		return fs_fail(e, FS_ERR_OUTPUT, "--cache %s: cannot make the directory: %s", dir, strerror(errno));
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || access(dir, R_OK | W_OK | X_OK) < 0)
		return fs_fail(e, FS_ERR_OUTPUT, "--cache %s: not a directory this user can read and write", dir);
	if (!names_code(revision)) {
		*why = "the build's revision does not name its code (uncommitted changes, or built outside git): "
		       "figures are reused within this run only";
		return 0;
	}
	c->dir = dir;
	return 0;
}

void runcache_close(struct runcache *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i].key);
	free(c->v);
	memset(c, 0, sizeof(*c));
}

char *runcache_key(const struct runcache *c, const char *figure, const char *scenario)
{
	size_t n = strlen(c->revision) + strlen(figure) + strlen(scenario) + 64;
	char *k = malloc(n);

	if (k)
		snprintf(k, n, "revision: %s\nfigure: %s\nscenario:\n%s", c->revision, figure, scenario);
	return k;
}

static struct runcache_entry *find(struct runcache *c, const char *key, unsigned long long h)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].hash == h && !strcmp(c->v[i].key, key))
			return &c->v[i];
	return NULL;
}

static int remember(struct runcache *c, const char *key, unsigned long long h, double figure)
{
	struct runcache_entry *x = find(c, key, h);

	if (x) {
		x->figure = figure;
		return 0;
	}
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		struct runcache_entry *v = realloc(c->v, cap * sizeof(*v));

		if (!v)
			return -1;
		c->v = v, c->cap = cap;
	}
	if (!(c->v[c->n].key = strdup(key)))
		return -1;
	c->v[c->n].hash = h;
	c->v[c->n++].figure = figure;
	return 0;
}

static void entry_path(const struct runcache *c, unsigned long long h, char *buf, size_t size)
{
	snprintf(buf, size, "%s/%016llx", c->dir, h);
}

/* The figure of DIR's file for key: a miss unless the file is an entry of exactly this
 * key with a figure that could have been stored. */
static bool read_entry(const struct runcache *c, const char *key, unsigned long long h, double *figure)
{
	char path[4096], line[64], *end;
	size_t klen = strlen(key), got = 0;
	bool ok = false;
	FILE *f;

	entry_path(c, h, path, sizeof(path));
	if (!(f = fopen(path, "r")))
		return false;
	if (fgets(line, sizeof(line), f) && !strcmp(line, RUNCACHE_HEADER) && fgets(line, sizeof(line), f)) {
		double v;

		errno = 0;
		v = strtod(line, &end);
		if (!errno && end != line && *end == '\n' && isfinite(v) && v >= 0) {
			char *rest = malloc(klen + 2);

			if (rest && (got = fread(rest, 1, klen + 1, f)) == klen && !memcmp(rest, key, klen)) {
				*figure = v;
				ok = true;
			}
			free(rest);
		}
	}
	fclose(f);
	return ok;
}

bool runcache_get(struct runcache *c, const char *key, double *figure)
{
	unsigned long long h = fnv1a(key);
	struct runcache_entry *x = find(c, key, h);

	if (x) {
		*figure = x->figure;
		c->hits++;
		return true;
	}
	if (c->dir && read_entry(c, key, h, figure)) {
		c->disk_hits++;
		(void)remember(c, key, h, *figure); /* out of memory: read again next time */
		return true;
	}
	c->misses++;
	return false;
}

int runcache_put(struct runcache *c, const char *key, double figure, struct fs_error *e)
{
	unsigned long long h = fnv1a(key);
	char path[4096], tmp[4200];
	FILE *f;
	int bad;

	if (!(isfinite(figure) && figure >= 0))
		return 0; /* a failure is never a figure */
	if (remember(c, key, h, figure) < 0)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	if (!c->dir)
		return 0;
	/* written beside, then renamed: a reader sees the old entry or the whole new one */
	entry_path(c, h, path, sizeof(path));
	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
	if (!(f = fopen(tmp, "w")))
		return fs_fail(e, FS_ERR_OUTPUT, "--cache: cannot write %s: %s", tmp, strerror(errno));
	bad = fprintf(f, RUNCACHE_HEADER "%.17g\n%s", figure, key) < 0;
	bad |= fclose(f) != 0;
	if (bad || rename(tmp, path) < 0) {
		int err = errno;

		unlink(tmp);
		return fs_fail(e, FS_ERR_OUTPUT, "--cache: cannot write %s: %s", path, strerror(err));
	}
	c->stored++;
	return 0;
}
