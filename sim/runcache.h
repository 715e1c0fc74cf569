/* SPDX-License-Identifier: MIT */
/* Figures of simulations already made, so that no point is simulated twice. A key is
 * the revision built, the figure's name and the scenario as resolved (presets merged,
 * overrides applied: the text that makes a result bit-identical), so two equal keys
 * give the same figure. Entries live in memory for one invocation and, given a
 * directory (the tools' --cache DIR), in a file each there for the next ones: DIR/HASH
 * holds a header line, the figure and the whole key, which a read compares, so a hash
 * collision or a foreign file is a miss, never another point's figure. Only a revision
 * that names the code (a clean git tree's) is kept on disk: with uncommitted changes
 * ("...-dirty") or "unknown" the directory is not used and the open says why. */
#ifndef FUTEXSIM_RUNCACHE_H
#define FUTEXSIM_RUNCACHE_H

#include <stdbool.h>
#include <stddef.h>

#include "sim/core/error.h"

struct runcache_entry {
	unsigned long long hash;
	char *key;
	double figure;
};

struct runcache {
	const char *revision;            /* the caller's, for the cache's life */
	const char *dir;                 /* the caller's; NULL: memory only */
	struct runcache_entry *v;
	size_t n, cap;
	unsigned hits, disk_hits, misses; /* lookups: in memory, from DIR, neither */
	unsigned stored;                  /* entries written to DIR */
};

/* A cache for figures of `revision` (futexsim_git_rev), in memory, and in `dir` when
 * not NULL (made if missing, one level); both strings must outlive the cache, which
 * allocates nothing until a figure is stored. *why gets a message (static text or "") when
 * the directory is not used because the revision does not name the code. -1 with a
 * message when dir is not a usable directory. */
int runcache_open(struct runcache *c, const char *revision, const char *dir, const char **why, struct fs_error *e);
void runcache_close(struct runcache *c);

/* The key of `figure` of a run of the scenario whose resolved YAML is `scenario`
 * (malloc'd; NULL when out of memory). */
char *runcache_key(const struct runcache *c, const char *figure, const char *scenario);

/* The figure stored under key: in memory, else in DIR (then kept in memory too). */
bool runcache_get(struct runcache *c, const char *key, double *figure);

/* Stores a figure (>= 0, finite) under key, in memory and in DIR; -1 with a message
 * when DIR cannot be written (the memory entry is kept). */
int runcache_put(struct runcache *c, const char *key, double figure, struct fs_error *e);

#endif
