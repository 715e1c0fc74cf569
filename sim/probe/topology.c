/* SPDX-License-Identifier: MIT */
/* futexsim probe, step 1: the topology of a machine from sysfs and /proc under a
 * root directory, turned into the machine schema's topology (docs/machine.md), or
 * refused when the schema cannot express it. Also the clock, the CPU model, the
 * kernel release, its nearest kernel preset and the mitigations it reports. */
#define _GNU_SOURCE /* strcasestr */
#include "sim/probe/probe.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>
#include <unistd.h>

#define CPU_DIR "sys/devices/system/cpu"
#define NODE_DIR "sys/devices/system/node"
/* Linux CPU and node numbers above these are not read (NR_CPUS is at most 8192,
 * MAX_NUMNODES 1024). */
#define MAX_LINUX_CPU 65535u
#define MAX_LINUX_NODE 4095u
#define ASSUMED_FREQ_KHZ 2000000u
#define SLIT_LOCAL 10u
#define SLIT_MAX 254u

static const char refuse_prefix[] = "this machine's topology cannot be written as a futexsim machine file "
				    "(docs/machine.md): ";

/* ---- reading files ----------------------------------------------------------- */

static void join(char *out, size_t size, const char *root, const char *fmt, va_list ap)
{
	size_t n;

	snprintf(out, size, "%s", root);
	n = strlen(out);
	while (n > 0 && out[n - 1] == '/')
		out[--n] = '\0';
	if (n + 1 < size) {
		out[n++] = '/';
		out[n] = '\0';
	}
	vsnprintf(out + n, size - n, fmt, ap);
}

static void path_of(const struct probe_topology *t, char *out, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void path_of(const struct probe_topology *t, char *out, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	join(out, size, t->root, fmt, ap);
	va_end(ap);
}

static void trim(char *s)
{
	size_t n = strlen(s), i = 0;

	while (n > 0 && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	while (s[i] && isspace((unsigned char)s[i]))
		i++;
	if (i)
		memmove(s, s + i, n - i + 1);
}

/* The first `size` - 1 bytes of ROOT/REL, trimmed; -1 (errno set) when it cannot be read. */
static int vread_text(const struct probe_topology *t, char *buf, size_t size, const char *fmt, va_list ap)
{
	char path[1024];
	FILE *f;
	size_t n;

	join(path, sizeof(path), t->root, fmt, ap);
	buf[0] = '\0';
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	if (ferror(f)) {
		fclose(f);
		errno = EIO;
		return -1;
	}
	fclose(f);
	trim(buf);
	return 0;
}

static int read_text(const struct probe_topology *t, char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int read_text(const struct probe_topology *t, char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vread_text(t, buf, size, fmt, ap);
	va_end(ap);
	return rc;
}

/* A decimal integer file; -1 when absent or not a number. */
static int read_long(const struct probe_topology *t, long *out, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int read_long(const struct probe_topology *t, long *out, const char *fmt, ...)
{
	char buf[64], *end;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vread_text(t, buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (rc < 0)
		return -1;
	errno = 0;
	*out = strtol(buf, &end, 10);
	if (end == buf || *end || errno)
		return -1;
	return 0;
}

/* "32K", "1024K", "16M", "1G" or bytes -> bytes; 0 when unreadable. */
static uint64_t parse_size(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (end == s || errno)
		return 0;
	switch (toupper((unsigned char)*end)) {
	case 'K':
		return (uint64_t)v << 10;
	case 'M':
		return (uint64_t)v << 20;
	case 'G':
		return (uint64_t)v << 30;
	case '\0':
		return v;
	default:
		return 0;
	}
}

/* ---- CPU lists ---------------------------------------------------------------- */

struct idlist {
	uint32_t *ids; /* ascending, unique */
	uint32_t n;
};

static void idlist_free(struct idlist *l)
{
	free(l->ids);
	l->ids = NULL;
	l->n = 0;
}

/* A Linux list "0-3,8,10-11" (or "" for none) -> ascending unique ids <= `max`.
 * -1 on a syntax error, a backwards range, an id above `max` or out of memory. */
static int parse_list(const char *s, uint32_t max, struct idlist *out)
{
	uint8_t *seen = NULL;
	uint32_t hi_all = 0, count = 0;
	const char *p;

	out->ids = NULL;
	out->n = 0;
	/* pass 1: syntax and the largest id; pass 2: mark */
	for (int pass = 0; pass < 2; pass++) {
		p = s;
		while (*p == ' ' || *p == '\t')
			p++;
		while (*p) {
			char *end;
			unsigned long lo, hi;

			if (!isdigit((unsigned char)*p))
				goto bad;
			lo = strtoul(p, &end, 10);
			hi = lo;
			p = end;
			if (*p == '-') {
				p++;
				if (!isdigit((unsigned char)*p))
					goto bad;
				hi = strtoul(p, &end, 10);
				p = end;
			}
			if (lo > hi || hi > max)
				goto bad;
			if (pass == 0 && hi > hi_all)
				hi_all = (uint32_t)hi;
			for (unsigned long i = lo; pass == 1 && i <= hi; i++)
				seen[i] = 1;
			if (*p == ',')
				p++;
			else if (*p && !isspace((unsigned char)*p))
				goto bad;
			while (*p == ' ' || *p == '\t' || *p == '\n')
				p++;
		}
		if (pass == 0) {
			seen = calloc((size_t)hi_all + 1, 1);
			if (!seen)
				return -1;
		}
	}
	for (uint32_t i = 0; i <= hi_all; i++)
		count += seen[i];
	if (count) {
		out->ids = malloc(count * sizeof(*out->ids));
		if (!out->ids)
			goto bad;
		for (uint32_t i = 0; i <= hi_all; i++)
			if (seen[i])
				out->ids[out->n++] = i;
	}
	free(seen);
	return 0;
bad:
	free(seen);
	idlist_free(out);
	return -1;
}

/* ---- the topology ------------------------------------------------------------- */

static void note(struct probe_topology *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct probe_topology *t, const char *fmt, ...)
{
	va_list ap;

	if (t->nnotes == PROBE_MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(t->notes[t->nnotes++], PROBE_NOTE_LEN, fmt, ap);
	va_end(ap);
}

static int refuse(struct fs_error *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int refuse(struct fs_error *e, const char *fmt, ...)
{
	char why[900];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return fs_fail(e, FS_ERR_INPUT, "%s%s; nothing written", refuse_prefix, why);
}

static int unreadable(struct fs_error *e, const struct probe_topology *t, const char *rel)
{
	char path[1024];
	int err = errno;

	path_of(t, path, sizeof(path), "%s", rel);
	return fs_fail(e, FS_ERR_INPUT, "cannot read %s: %s (is %s a Linux sysfs root?)", path,
		       err ? strerror(err) : "bad contents", t->root);
}

/* Model index of Linux CPU `id`, or UINT32_MAX when it is not online. */
struct cpu_index {
	uint32_t *of; /* [linux id] */
	uint32_t max; /* largest online Linux id */
};

static uint32_t index_of(const struct cpu_index *x, uint32_t id)
{
	return id <= x->max ? x->of[id] : UINT32_MAX;
}

static int read_online(struct probe_topology *t, struct cpu_index *x, struct fs_error *e)
{
	char buf[8192];
	struct idlist l;

	if (read_text(t, buf, sizeof(buf), CPU_DIR "/online") < 0)
		return unreadable(e, t, CPU_DIR "/online");
	if (parse_list(buf, MAX_LINUX_CPU, &l) < 0 || l.n == 0) {
		errno = 0;
		return unreadable(e, t, CPU_DIR "/online");
	}
	if (l.n > MACHINE_MAX_CPUS) {
		idlist_free(&l);
		return refuse(e, "%" PRIu32 " online CPUs (the simulator models at most %u)", l.n, MACHINE_MAX_CPUS);
	}
	t->ncpus = l.n;
	t->cpus = calloc(l.n, sizeof(*t->cpus));
	x->max = l.ids[l.n - 1];
	x->of = malloc(((size_t)x->max + 1) * sizeof(*x->of));
	if (!t->cpus || !x->of) {
		idlist_free(&l);
		return fs_fail(e, FS_ERR_RUNTIME, "out of memory");
	}
	for (uint32_t i = 0; i <= x->max; i++)
		x->of[i] = UINT32_MAX;
	for (uint32_t i = 0; i < l.n; i++) {
		t->cpus[i].linux_id = l.ids[i];
		t->cpus[i].llc_key = UINT32_MAX;
		x->of[l.ids[i]] = i;
	}
	idlist_free(&l);
	if (read_text(t, buf, sizeof(t->offline), CPU_DIR "/offline") == 0)
		snprintf(t->offline, sizeof(t->offline), "%.100s", buf);
	return 0;
}

/* The lowest online CPU of a list that names `self`; -1 when the list is bad. */
static int lowest_online(const char *list, const struct cpu_index *x, uint32_t self, uint32_t *key)
{
	struct idlist l;
	uint32_t k = self;

	if (parse_list(list, MAX_LINUX_CPU, &l) < 0)
		return -1;
	for (uint32_t i = 0; i < l.n; i++)
		if (index_of(x, l.ids[i]) != UINT32_MAX && l.ids[i] < k)
			k = l.ids[i];
	idlist_free(&l);
	*key = k;
	return 0;
}

static int read_cores(struct probe_topology *t, const struct cpu_index *x, struct fs_error *e)
{
	char buf[8192];

	t->siblings_known = true;
	for (uint32_t i = 0; i < t->ncpus; i++) {
		struct probe_cpu *c = &t->cpus[i];
		long v;

		c->core_id = read_long(t, &v, CPU_DIR "/cpu%" PRIu32 "/topology/core_id", c->linux_id) == 0 ? (int32_t)v : -1;
		c->package_id = read_long(t, &v, CPU_DIR "/cpu%" PRIu32 "/topology/physical_package_id", c->linux_id) == 0
					? (int32_t)v
					: -1;
		c->core_key = c->linux_id;
		if (read_text(t, buf, sizeof(buf), CPU_DIR "/cpu%" PRIu32 "/topology/thread_siblings_list", c->linux_id) <
		    0) {
			t->siblings_known = false;
			continue;
		}
		if (lowest_online(buf, x, c->linux_id, &c->core_key) < 0) {
			char rel[128];

			errno = 0;
			snprintf(rel, sizeof(rel), CPU_DIR "/cpu%" PRIu32 "/topology/thread_siblings_list", c->linux_id);
			return unreadable(e, t, rel);
		}
	}
	if (!t->siblings_known) {
		for (uint32_t i = 0; i < t->ncpus; i++)
			t->cpus[i].core_key = t->cpus[i].linux_id;
		note(t, "no topology/thread_siblings_list for some online CPUs: every CPU taken as a core of its own "
			"(threads_per_core 1, assumed)");
		return 0;
	}
	/* a core is named by its lowest online CPU, which must agree */
	for (uint32_t i = 0; i < t->ncpus; i++) {
		const struct probe_cpu *c = &t->cpus[i];
		uint32_t k = index_of(x, c->core_key);

		if (k == UINT32_MAX || t->cpus[k].core_key != c->core_key)
			return refuse(e,
				      "the thread sibling lists disagree: CPU %" PRIu32 " names CPU %" PRIu32
				      " as a sibling, which does not name it back",
				      c->linux_id, c->core_key);
	}
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Node numbers of the sysfs node directories, ascending. */
static int list_nodes(const struct probe_topology *t, uint32_t **ids, uint32_t *n)
{
	char path[1024];
	DIR *d;
	struct dirent *ent;
	uint32_t cap = 0;

	*ids = NULL;
	*n = 0;
	path_of(t, path, sizeof(path), NODE_DIR);
	d = opendir(path);
	if (!d)
		return 0;
	while ((ent = readdir(d))) {
		char *end;
		unsigned long v;

		if (strncmp(ent->d_name, "node", 4) || !isdigit((unsigned char)ent->d_name[4]))
			continue;
		v = strtoul(ent->d_name + 4, &end, 10);
		if (*end || v > MAX_LINUX_NODE)
			continue;
		if (*n == cap) {
			uint32_t *grown = realloc(*ids, (cap = cap ? 2 * cap : 16) * sizeof(**ids));

			if (!grown) {
				closedir(d);
				return -1;
			}
			*ids = grown;
		}
		(*ids)[(*n)++] = (uint32_t)v;
	}
	closedir(d);
	if (*n)
		qsort(*ids, *n, sizeof(**ids), cmp_u32);
	return 0;
}

/* Every online CPU's node; nodes without online CPUs are left out. */
static int assign_nodes(struct probe_topology *t, const struct cpu_index *x, const uint32_t *sys_ids, uint32_t nsys,
			uint32_t *col_of, struct fs_error *e)
{
	char buf[8192];
	uint32_t *node_of = malloc(t->ncpus * sizeof(*node_of));

	if (!node_of)
		return fs_fail(e, FS_ERR_RUNTIME, "out of memory");
	for (uint32_t i = 0; i < t->ncpus; i++)
		node_of[i] = UINT32_MAX;
	t->nodes = 0;
	for (uint32_t s = 0; s < nsys; s++) {
		struct idlist l;
		uint32_t here = 0;

		if (read_text(t, buf, sizeof(buf), NODE_DIR "/node%" PRIu32 "/cpulist", sys_ids[s]) < 0 ||
		    parse_list(buf, MAX_LINUX_CPU, &l) < 0) {
			char rel[128];

			free(node_of);
			snprintf(rel, sizeof(rel), NODE_DIR "/node%" PRIu32 "/cpulist", sys_ids[s]);
			return unreadable(e, t, rel);
		}
		for (uint32_t i = 0; i < l.n; i++) {
			uint32_t k = index_of(x, l.ids[i]);

			if (k == UINT32_MAX)
				continue; /* offline */
			if (node_of[k] != UINT32_MAX) {
				idlist_free(&l);
				free(node_of);
				return refuse(e, "CPU %" PRIu32 " is listed by two nodes", l.ids[i]);
			}
			node_of[k] = t->nodes;
			here++;
		}
		idlist_free(&l);
		if (!here) {
			note(t, "node %" PRIu32 " has no online CPUs (memory only, or all its CPUs offline): left out",
			     sys_ids[s]);
			continue;
		}
		if (t->nodes == MACHINE_MAX_NODES) {
			free(node_of);
			return refuse(e, "more than %u NUMA nodes with CPUs", MACHINE_MAX_NODES);
		}
		t->node_ids[t->nodes] = sys_ids[s];
		col_of[t->nodes] = s;
		t->nodes++;
	}
	for (uint32_t i = 0; i < t->ncpus; i++) {
		if (node_of[i] == UINT32_MAX) {
			uint32_t id = t->cpus[i].linux_id;

			free(node_of);
			return refuse(e, "online CPU %" PRIu32 " is in no node's cpulist", id);
		}
		t->cpus[i].node = node_of[i];
	}
	free(node_of);
	return 0;
}

/* The measurements keep one figure per distinct distance between nodes. */
static int count_distances(const struct probe_topology *t, struct fs_error *e)
{
	uint32_t seen[PROBE_MAX_DISTANCES], n = 0;

	for (uint32_t i = 0; i < t->nodes * t->nodes; i++) {
		uint32_t d = t->distance[i], k = 0;

		if (d == SLIT_LOCAL)
			continue;
		while (k < n && seen[k] != d)
			k++;
		if (k < n)
			continue;
		if (n == PROBE_MAX_DISTANCES)
			return refuse(e, "more than %d distinct distances between nodes (futexsim probe measures at most %d)",
				      PROBE_MAX_DISTANCES, PROBE_MAX_DISTANCES);
		seen[n++] = d;
	}
	return 0;
}

static int read_distances(struct probe_topology *t, uint32_t nsys, const uint32_t *col_of, struct fs_error *e)
{
	char buf[8192];

	for (uint32_t a = 0; a < t->nodes; a++) {
		uint32_t row[MAX_LINUX_NODE + 1], n = 0;
		char *p = buf, *end;

		if (read_text(t, buf, sizeof(buf), NODE_DIR "/node%" PRIu32 "/distance", t->node_ids[a]) < 0) {
			char rel[128];

			if (t->nodes == 1) {
				t->distance[0] = SLIT_LOCAL;
				return 0;
			}
			snprintf(rel, sizeof(rel), NODE_DIR "/node%" PRIu32 "/distance", t->node_ids[a]);
			return unreadable(e, t, rel);
		}
		for (;;) {
			unsigned long v = strtoul(p, &end, 10);

			if (end == p)
				break;
			if (n <= MAX_LINUX_NODE)
				row[n] = v > 100000 ? 100000 : (uint32_t)v;
			n++;
			p = end;
		}
		if (n != nsys)
			return refuse(e, "node%" PRIu32 "/distance has %" PRIu32 " entries for %" PRIu32 " nodes",
				      t->node_ids[a], n, nsys);
		for (uint32_t b = 0; b < t->nodes; b++) {
			uint32_t d = row[col_of[b]];

			if (a == b && d != SLIT_LOCAL)
				return refuse(e, "node %" PRIu32 " is at distance %" PRIu32 " from itself (the schema needs 10)",
					      t->node_ids[a], d);
			if (a != b && (d <= SLIT_LOCAL || d > SLIT_MAX))
				return refuse(e,
					      "nodes %" PRIu32 " and %" PRIu32 " are at distance %" PRIu32
					      " (the schema needs 11..254 between two nodes)",
					      t->node_ids[a], t->node_ids[b], d);
			t->distance[a * t->nodes + b] = d;
		}
	}
	return count_distances(t, e);
}

static int read_nodes(struct probe_topology *t, const struct cpu_index *x, struct fs_error *e)
{
	uint32_t *sys_ids, nsys, col_of[MACHINE_MAX_NODES];
	int rc;

	if (list_nodes(t, &sys_ids, &nsys) < 0)
		return fs_fail(e, FS_ERR_RUNTIME, "out of memory");
	t->node_dirs = nsys > 0;
	if (!nsys) {
		/* a kernel without NUMA (or sysfs without node directories): one node */
		t->nodes = 1;
		t->node_ids[0] = 0;
		t->distance[0] = SLIT_LOCAL;
		for (uint32_t i = 0; i < t->ncpus; i++)
			t->cpus[i].node = 0;
		return 0;
	}
	rc = assign_nodes(t, x, sys_ids, nsys, col_of, e);
	if (rc == 0)
		rc = read_distances(t, nsys, col_of, e);
	free(sys_ids);
	return rc;
}

/* Cores per node and threads per core, equal everywhere or refused. */
static int count_cores(struct probe_topology *t, const struct cpu_index *x, struct fs_error *e)
{
	uint32_t *threads = calloc(t->ncpus, sizeof(*threads)); /* [model index of the core's key CPU] */
	uint32_t cores_of[MACHINE_MAX_NODES] = { 0 };
	int rc = 0;

	if (!threads)
		return fs_fail(e, FS_ERR_RUNTIME, "out of memory");
	for (uint32_t i = 0; i < t->ncpus; i++) {
		uint32_t k = index_of(x, t->cpus[i].core_key);

		if (t->cpus[k].node != t->cpus[i].node) {
			rc = refuse(e, "CPUs %" PRIu32 " and %" PRIu32 " share a core but are on different nodes",
				    t->cpus[k].linux_id, t->cpus[i].linux_id);
			goto out;
		}
		if (threads[k]++ == 0)
			cores_of[t->cpus[i].node]++;
	}
	t->ncores = 0;
	t->threads_per_core = 0;
	for (uint32_t i = 0; i < t->ncpus; i++) {
		if (!threads[i])
			continue;
		t->ncores++;
		if (!t->threads_per_core) {
			t->threads_per_core = threads[i];
		} else if (threads[i] != t->threads_per_core) {
			rc = refuse(e,
				    "the core of CPU %" PRIu32 " has %" PRIu32 " online threads and the core of CPU %" PRIu32
				    " has %" PRIu32 " (the schema needs the same threads on every core; offlining or "
				    "onlining SMT siblings evenly, e.g. with /sys/devices/system/cpu/smt/control, fixes it)",
				    t->cpus[0].core_key, threads[index_of(x, t->cpus[0].core_key)], t->cpus[i].linux_id,
				    threads[i]);
			goto out;
		}
	}
	if (t->threads_per_core > 8) {
		rc = refuse(e, "%" PRIu32 " threads per core (the schema allows at most 8)", t->threads_per_core);
		goto out;
	}
	t->cores_per_node = cores_of[0];
	for (uint32_t n = 1; n < t->nodes; n++) {
		if (cores_of[n] != t->cores_per_node) {
			rc = refuse(e,
				    "node %" PRIu32 " has %" PRIu32 " cores and node %" PRIu32 " has %" PRIu32
				    " (the schema needs the same number of cores on every node)",
				    t->node_ids[0], t->cores_per_node, t->node_ids[n], cores_of[n]);
			goto out;
		}
	}
out:
	free(threads);
	return rc;
}

/* Whether Linux's numbers follow `numbering` with nodes in order; when not, the
 * first CPU that breaks it, in `why`. */
static bool numbering_fits(const struct probe_topology *t, enum cpu_numbering numbering, char *why, size_t size)
{
	const uint32_t ncores = t->ncores, tpc = t->threads_per_core;

	/* the first thread of each model core is a different physical core */
	for (uint32_t k = 0; k < ncores; k++) {
		uint32_t first = numbering == NUMBERING_CORES_FIRST ? k : k * tpc;

		for (uint32_t j = 0; j < k; j++) {
			uint32_t other = numbering == NUMBERING_CORES_FIRST ? j : j * tpc;

			if (t->cpus[first].core_key == t->cpus[other].core_key) {
				snprintf(why, size, "CPUs %" PRIu32 " and %" PRIu32 " are SMT siblings", t->cpus[other].linux_id,
					 t->cpus[first].linux_id);
				return false;
			}
		}
		if (ncores > 512 && k > 512)
			break; /* the check below covers the rest: a repeated core would break it */
	}
	for (uint32_t c = 0; c < t->ncpus; c++) {
		uint32_t core = numbering == NUMBERING_CORES_FIRST ? c % ncores : c / tpc;
		uint32_t first = numbering == NUMBERING_CORES_FIRST ? core : core * tpc;

		if (t->cpus[c].core_key != t->cpus[first].core_key) {
			snprintf(why, size, "CPU %" PRIu32 " is not an SMT sibling of CPU %" PRIu32, t->cpus[c].linux_id,
				 t->cpus[first].linux_id);
			return false;
		}
		if (t->cpus[c].node != core / t->cores_per_node) {
			snprintf(why, size, "CPU %" PRIu32 " is on node %" PRIu32 ", where node %" PRIu32 " was expected",
				 t->cpus[c].linux_id, t->node_ids[t->cpus[c].node], t->node_ids[core / t->cores_per_node]);
			return false;
		}
	}
	return true;
}

static int derive_numbering(struct probe_topology *t, struct fs_error *e)
{
	char why_cf[200] = "", why_sa[200] = "";

	if (numbering_fits(t, NUMBERING_CORES_FIRST, why_cf, sizeof(why_cf)))
		t->numbering = NUMBERING_CORES_FIRST;
	else if (numbering_fits(t, NUMBERING_SMT_ADJACENT, why_sa, sizeof(why_sa)))
		t->numbering = NUMBERING_SMT_ADJACENT;
	else
		return refuse(e,
			      "the CPU numbering is neither cores-first (all cores node by node, then their siblings: %s) "
			      "nor smt-adjacent (siblings consecutive, cores node by node: %s)",
			      why_cf, why_sa);
	for (uint32_t c = 0; c < t->ncpus; c++)
		t->cpus[c].core = t->numbering == NUMBERING_CORES_FIRST ? c % t->ncores : c / t->threads_per_core;
	return 0;
}

/* ---- caches and last-level cache groups ----------------------------------------- */

/* The highest-level data or unified cache of `cpu`: its level, size and the list
 * of CPUs sharing it (into `shared`). -1 when the CPU has no cache directory. */
static int read_llc(const struct probe_topology *t, uint32_t cpu, uint32_t *level, uint64_t *bytes, char *shared,
		    size_t size)
{
	int best = -1;

	*level = 0;
	*bytes = 0;
	for (int i = 0; i < 32; i++) {
		char type[32], sz[32];
		long lv;

		if (read_long(t, &lv, CPU_DIR "/cpu%" PRIu32 "/cache/index%d/level", cpu, i) < 0)
			continue;
		if (read_text(t, type, sizeof(type), CPU_DIR "/cpu%" PRIu32 "/cache/index%d/type", cpu, i) < 0 ||
		    !strcmp(type, "Instruction") || lv <= 0 || (uint32_t)lv <= *level)
			continue;
		if (read_text(t, shared, size, CPU_DIR "/cpu%" PRIu32 "/cache/index%d/shared_cpu_list", cpu, i) < 0)
			shared[0] = '\0';
		*level = (uint32_t)lv;
		*bytes = read_text(t, sz, sizeof(sz), CPU_DIR "/cpu%" PRIu32 "/cache/index%d/size", cpu, i) == 0
				 ? parse_size(sz)
				 : 0;
		best = i;
	}
	return best;
}

static void read_cache_sizes(struct probe_topology *t)
{
	const uint32_t cpu = t->cpus[0].linux_id;

	for (int i = 0; i < 32; i++) {
		char type[32], sz[32];
		long lv;

		if (read_long(t, &lv, CPU_DIR "/cpu%" PRIu32 "/cache/index%d/level", cpu, i) < 0 ||
		    read_text(t, type, sizeof(type), CPU_DIR "/cpu%" PRIu32 "/cache/index%d/type", cpu, i) < 0 ||
		    read_text(t, sz, sizeof(sz), CPU_DIR "/cpu%" PRIu32 "/cache/index%d/size", cpu, i) < 0)
			continue;
		if (lv == 1 && !strcmp(type, "Data"))
			t->l1d_bytes = parse_size(sz);
		else if (lv == 2 && strcmp(type, "Instruction"))
			t->l2_bytes = parse_size(sz);
	}
}

/* The first CPU (model index) of model core k under the derived numbering. */
static uint32_t first_cpu_of_core(const struct probe_topology *t, uint32_t k)
{
	return t->numbering == NUMBERING_CORES_FIRST ? k : k * t->threads_per_core;
}

/* Each CPU's last-level cache group; clusters (docs/machine.md cores_per_cluster)
 * when the groups split nodes evenly and in CPU order. */
static void read_clusters(struct probe_topology *t, const struct cpu_index *x)
{
	char *shared = malloc(8192);
	uint32_t *cores_in = NULL, cpc = 0;
	bool split = false;

	t->cores_per_cluster = t->cores_per_node;
	t->clusters = false;
	if (!shared)
		return;
	for (uint32_t i = 0; i < t->ncpus; i++) {
		uint32_t level;
		uint64_t bytes;

		if (read_llc(t, t->cpus[i].linux_id, &level, &bytes, shared, 8192) < 0 || !shared[0] ||
		    lowest_online(shared, x, t->cpus[i].linux_id, &t->cpus[i].llc_key) < 0) {
			for (uint32_t j = 0; j < t->ncpus; j++)
				t->cpus[j].llc_key = UINT32_MAX;
			free(shared);
			return;
		}
		if (i == 0) {
			t->llc_level = level;
			t->llc_bytes = bytes;
		}
	}
	free(shared);
	/* split: a node whose CPUs do not all share one last-level cache */
	for (uint32_t i = 0; i < t->ncpus && !split; i++)
		split = t->cpus[first_cpu_of_core(t, t->cpus[i].node * t->cores_per_node)].llc_key != t->cpus[i].llc_key;
	if (!split)
		return; /* a last-level cache per node or larger: no clusters */
	cores_in = calloc(t->ncpus, sizeof(*cores_in));
	if (!cores_in)
		return;
	for (uint32_t k = 0; k < t->ncores; k++)
		cores_in[index_of(x, t->cpus[first_cpu_of_core(t, k)].llc_key)]++;
	for (uint32_t i = 0; i < t->ncpus; i++) {
		uint32_t k = index_of(x, t->cpus[i].llc_key);

		if (!cores_in[k])
			goto uneven;
		if (!cpc)
			cpc = cores_in[k];
		else if (cores_in[k] != cpc)
			goto uneven;
		if (t->cpus[k].node != t->cpus[i].node)
			goto uneven;
		/* threads of a core share its cache; cluster members are consecutive cores */
		if (t->cpus[i].llc_key != t->cpus[first_cpu_of_core(t, t->cpus[i].core)].llc_key ||
		    t->cpus[i].llc_key != t->cpus[first_cpu_of_core(t, t->cpus[i].core / cpc * cpc)].llc_key)
			goto uneven;
	}
	if (!cpc || t->cores_per_node % cpc)
		goto uneven;
	free(cores_in);
	t->clusters = true;
	t->cores_per_cluster = cpc;
	return;
uneven:
	free(cores_in);
	note(t, "the last-level caches split the nodes unevenly or out of CPU order: clusters are not modelled, and "
		"transfer_node mixes pairs that share a last-level cache and pairs that do not");
}

/* ---- clock, model, release, mitigations ----------------------------------------- */

/* The first "KEY : value" of /proc/cpuinfo for each key asked (NULL-terminated). */
static void read_cpuinfo(const struct probe_topology *t, const char *const keys[], char values[][160])
{
	char path[1024], *line = NULL;
	size_t cap = 0;
	FILE *f;

	for (int k = 0; keys[k]; k++)
		values[k][0] = '\0';
	path_of(t, path, sizeof(path), "proc/cpuinfo");
	f = fopen(path, "r");
	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		char *colon = strchr(line, ':');

		if (!colon)
			continue;
		*colon = '\0';
		trim(line);
		for (int k = 0; keys[k]; k++) {
			if (!values[k][0] && !strcmp(line, keys[k])) {
				snprintf(values[k], 160, "%s", colon + 1);
				trim(values[k]);
			}
		}
	}
	free(line);
	fclose(f);
}

/* Printable ASCII with single spaces, no quotes or backslashes: safe in a comment
 * and in a quoted YAML string. */
static void clean(char *s)
{
	char *w = s;

	for (const char *r = s; *r; r++) {
		char c = *r;

		if (c == '"' || c == '\\' || c == '#')
			c = '\'';
		if ((unsigned char)c < 32 || (unsigned char)c > 126)
			c = ' ';
		if (c == ' ' && (w == s || w[-1] == ' '))
			continue;
		*w++ = c;
	}
	while (w > s && w[-1] == ' ')
		w--;
	*w = '\0';
}

static void read_identity(struct probe_topology *t)
{
	static const char *const keys[] = { "model name", "cpu model", "cpu", "cpu MHz", "Hardware", NULL };
	char values[5][160], mhz_src[80];
	const uint32_t cpu = t->cpus[0].linux_id;
	const bool real = !strcmp(t->root, "/");
	long khz;

	read_cpuinfo(t, keys, values);
	snprintf(t->model, sizeof(t->model), "%s",
		 values[0][0] ? values[0] : values[1][0] ? values[1] : values[2][0] ? values[2] :
		 values[4][0] ? values[4] : "unknown CPU");
	clean(t->model);
	if (!t->model[0])
		snprintf(t->model, sizeof(t->model), "unknown CPU");

	t->freq_assumed = false;
	if (read_long(t, &khz, CPU_DIR "/cpu%" PRIu32 "/cpufreq/base_frequency", cpu) == 0 && khz >= 1000 &&
	    khz <= 100000000) {
		t->freq_khz = (uint64_t)khz;
		snprintf(t->freq_source, sizeof(t->freq_source), "cpufreq/base_frequency of CPU %" PRIu32 " (the nominal clock)",
			 cpu);
	} else if (read_long(t, &khz, CPU_DIR "/cpu%" PRIu32 "/cpufreq/cpuinfo_max_freq", cpu) == 0 && khz >= 1000 &&
		   khz <= 100000000) {
		t->freq_khz = (uint64_t)khz;
		snprintf(t->freq_source, sizeof(t->freq_source),
			 "cpufreq/cpuinfo_max_freq of CPU %" PRIu32 " (the highest clock, boost included)", cpu);
	} else if (values[3][0] && atof(values[3]) >= 1.0 && atof(values[3]) <= 100000.0) {
		t->freq_khz = (uint64_t)(atof(values[3]) * 1000.0 + 0.5);
		snprintf(mhz_src, sizeof(mhz_src), "%.30s", values[3]);
		clean(mhz_src);
		snprintf(t->freq_source, sizeof(t->freq_source),
			 "cpu MHz %.30s of /proc/cpuinfo: the first CPU's clock when read (no cpufreq; under a "
			 "hypervisor the host's nominal clock)",
			 mhz_src);
	} else {
		t->freq_khz = ASSUMED_FREQ_KHZ;
		t->freq_assumed = true;
		snprintf(t->freq_source, sizeof(t->freq_source),
			 "the kernel reports no clock (no cpufreq, no cpu MHz): 2.0 GHz assumed");
	}

	if (read_text(t, t->release, sizeof(t->release), "proc/sys/kernel/osrelease") < 0 || !t->release[0]) {
		struct utsname u;

		if (real && uname(&u) == 0)
			snprintf(t->release, sizeof(t->release), "%s", u.release);
		else
			snprintf(t->release, sizeof(t->release), "unknown");
	}
	clean(t->release);
	if (real) {
		if (gethostname(t->hostname, sizeof(t->hostname)) != 0)
			snprintf(t->hostname, sizeof(t->hostname), "localhost");
		t->hostname[sizeof(t->hostname) - 1] = '\0';
	} else {
		const char *base;
		size_t n = strlen(t->root);

		while (n > 1 && t->root[n - 1] == '/')
			n--;
		for (base = t->root + n; base > t->root && base[-1] != '/'; base--)
			;
		snprintf(t->hostname, sizeof(t->hostname), "%.*s", (int)(t->root + n - base), base);
	}
	clean(t->hostname);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void read_vulnerabilities(struct probe_topology *t)
{
	char path[1024], *names[PROBE_MAX_VULNS];
	uint32_t n = 0;
	struct dirent *ent;
	DIR *d;

	path_of(t, path, sizeof(path), CPU_DIR "/vulnerabilities");
	d = opendir(path);
	if (!d)
		return;
	while ((ent = readdir(d)) && n < PROBE_MAX_VULNS) {
		if (ent->d_name[0] == '.')
			continue;
		names[n] = strdup(ent->d_name);
		if (names[n])
			n++;
	}
	closedir(d);
	qsort(names, n, sizeof(names[0]), cmp_str);
	for (uint32_t i = 0; i < n; i++) {
		char text[PROBE_VULN_LEN - 40];

		if (read_text(t, text, sizeof(text), CPU_DIR "/vulnerabilities/%s", names[i]) == 0) {
			clean(text);
			snprintf(t->vulns[t->nvulns++], sizeof(t->vulns[0]), "%.38s: %s", names[i], text);
		}
		free(names[i]);
	}
}

static void read_packages(struct probe_topology *t)
{
	t->packages = 0;
	for (uint32_t i = 0; i < t->ncpus; i++) {
		bool seen = false;

		if (t->cpus[i].package_id < 0) {
			t->packages = 0;
			return;
		}
		for (uint32_t j = 0; j < i && !seen; j++)
			seen = t->cpus[j].package_id == t->cpus[i].package_id;
		t->packages += !seen;
	}
	for (uint32_t i = 0; i < t->ncpus; i++) {
		const struct probe_cpu *first = &t->cpus[first_cpu_of_core(t, t->cpus[i].node * t->cores_per_node)];

		if (first->package_id != t->cpus[i].package_id) {
			note(t,
			     "node %" PRIu32 " holds CPUs of packages %" PRId32 " and %" PRId32
			     ": hand-offs between them are modelled at transfer_node",
			     t->node_ids[t->cpus[i].node], first->package_id, t->cpus[i].package_id);
			return;
		}
	}
}

/* ---- cpuidle -------------------------------------------------------------------- */

bool probe_idle_polls(const char *driver, const char *name, const char *desc, char *why, size_t size)
{
	if (!strcmp(name, "POLL")) {
		snprintf(why, size, "the poll state (drivers/cpuidle/poll_state.c): the idle task spins on need_resched "
				    "with TIF_POLLING_NRFLAG set");
		return true;
	}
	if (strstr(desc, "MWAIT") || strstr(desc, "FFH") || !strcmp(driver, "intel_idle")) {
		snprintf(why, size, "entered by MWAIT (%s), which monitors the thread flags with TIF_POLLING_NRFLAG set "
				    "(arch/x86/include/asm/mwait.h, mwait_idle_with_hints)",
			 !strcmp(driver, "intel_idle") ? "intel_idle" : desc);
		return true;
	}
	if (strstr(desc, "HLT") || !strcmp(driver, "haltpoll"))
		snprintf(why, size, "HLT (%s): the CPU does not watch the flag, a wake-up sends an IPI",
			 !strcmp(driver, "haltpoll") ? "drivers/cpuidle/cpuidle-haltpoll.c, default_idle" : desc);
	else if (strstr(desc, "IOPORT"))
		snprintf(why, size, "an I/O-port C-state (%s): the CPU does not watch the flag, a wake-up sends an IPI",
			 desc);
	else
		snprintf(why, size, "not known to poll (driver %s, %s): a wake-up is assumed to send an IPI",
			 driver[0] ? driver : "unknown", desc[0] ? desc : "no description");
	return false;
}

int probe_idle_usage(const struct probe_topology *t, uint32_t cpu, uint64_t *usage)
{
	for (uint32_t k = 0; k < t->idle.n; k++) {
		long n;

		if (read_long(t, &n, CPU_DIR "/cpu%" PRIu32 "/cpuidle/state%" PRIu32 "/usage", cpu, t->idle.s[k].index) < 0 ||
		    n < 0)
			return -1;
		usage[k] = (uint64_t)n;
	}
	return 0;
}

int probe_idle_dominant(const uint64_t *before, const uint64_t *after, uint32_t ncpus, uint32_t n)
{
	uint64_t best = 0;
	int which = -1;

	for (uint32_t k = 0; k < n; k++) {
		uint64_t sum = 0;

		for (uint32_t c = 0; c < ncpus; c++)
			sum += after[c * n + k] > before[c * n + k] ? after[c * n + k] - before[c * n + k] : 0;
		if (sum > best) {
			best = sum;
			which = (int)k;
		}
	}
	return which;
}

/* cpuidle's states of the first online CPU, in sysfs order (state0 first: the
 * shallowest); a state that cannot be read ends the list. */
static void read_idle(struct probe_topology *t)
{
	struct probe_idle *d = &t->idle;

	memset(d, 0, sizeof(*d));
	d->cpu = t->cpus[0].linux_id;
	if (read_text(t, d->driver, sizeof(d->driver), CPU_DIR "/cpuidle/current_driver") < 0)
		d->driver[0] = '\0';
	if (read_text(t, d->governor, sizeof(d->governor), CPU_DIR "/cpuidle/current_governor_ro") < 0 &&
	    read_text(t, d->governor, sizeof(d->governor), CPU_DIR "/cpuidle/current_governor") < 0)
		d->governor[0] = '\0';
	for (uint32_t k = 0; d->n < PROBE_MAX_IDLE; k++) {
		struct probe_idle_state *s = &d->s[d->n];
		long disable = 0;

		memset(s, 0, sizeof(*s));
		s->index = k;
		if (read_text(t, s->name, sizeof(s->name), CPU_DIR "/cpu%" PRIu32 "/cpuidle/state%" PRIu32 "/name", d->cpu,
			      k) < 0 ||
		    !s->name[0] ||
		    read_long(t, &s->latency_us, CPU_DIR "/cpu%" PRIu32 "/cpuidle/state%" PRIu32 "/latency", d->cpu, k) < 0 ||
		    read_long(t, &s->residency_us, CPU_DIR "/cpu%" PRIu32 "/cpuidle/state%" PRIu32 "/residency", d->cpu,
			      k) < 0 ||
		    s->latency_us < 0 || s->residency_us < 0)
			break;
		if (read_text(t, s->desc, sizeof(s->desc), CPU_DIR "/cpu%" PRIu32 "/cpuidle/state%" PRIu32 "/desc", d->cpu,
			      k) < 0)
			s->desc[0] = '\0';
		clean(s->name);
		clean(s->desc);
		for (char *c = s->name; *c; c++)
			if (*c == '"' || *c == '\\')
				*c = '_';
		s->disabled = read_long(t, &disable, CPU_DIR "/cpu%" PRIu32 "/cpuidle/state%" PRIu32 "/disable", d->cpu,
					 k) == 0 && disable != 0;
		s->polls = probe_idle_polls(d->driver, s->name, s->desc, s->why, sizeof(s->why));
		d->n++;
	}
	d->present = d->n > 0;
}

static void note_offline(struct probe_topology *t)
{
	char runs[PROBE_NOTE_LEN - 120] = "";
	size_t len = 0;
	bool renumbered = false;

	for (uint32_t i = 0; i < t->ncpus; i++)
		renumbered |= t->cpus[i].linux_id != i;
	if (t->offline[0])
		note(t, "CPUs %s are offline: the file models the %" PRIu32 " online CPUs", t->offline, t->ncpus);
	if (!renumbered)
		return;
	/* runs of consecutive Linux numbers: "model 0-3 = Linux 0-3, model 4-5 = Linux 6-7" */
	for (uint32_t i = 0; i < t->ncpus && len < sizeof(runs);) {
		uint32_t j = i;

		while (j + 1 < t->ncpus && t->cpus[j + 1].linux_id == t->cpus[j].linux_id + 1)
			j++;
		len += (size_t)snprintf(runs + len, sizeof(runs) - len,
					"%s%" PRIu32 "-%" PRIu32 " = Linux %" PRIu32 "-%" PRIu32, len ? ", " : "", i, j,
					t->cpus[i].linux_id, t->cpus[j].linux_id);
		i = j + 1;
	}
	note(t, "model CPU numbers are not Linux's (the online CPUs renumbered from 0): model %s", runs);
}

/* ---- public ------------------------------------------------------------------- */

int probe_topology_read(struct probe_topology *t, const char *root, struct fs_error *e)
{
	struct cpu_index x = { NULL, 0 };
	int rc;

	memset(t, 0, sizeof(*t));
	snprintf(t->root, sizeof(t->root), "%s", root && *root ? root : "/");
	rc = read_online(t, &x, e);
	if (rc == 0) {
		read_identity(t);
		read_vulnerabilities(t);
		read_cache_sizes(t);
		rc = read_cores(t, &x, e);
	}
	if (rc == 0)
		rc = read_nodes(t, &x, e);
	if (rc == 0)
		rc = count_cores(t, &x, e);
	if (rc == 0)
		rc = derive_numbering(t, e);
	if (rc == 0) {
		read_clusters(t, &x);
		read_packages(t);
		read_idle(t);
		note_offline(t);
	}
	free(x.of);
	return rc;
}

void probe_topology_free(struct probe_topology *t)
{
	free(t->cpus);
	t->cpus = NULL;
	t->ncpus = 0;
}

/* " WHAT N KiB" (or MiB) appended to buf, comma-separated; nothing when unknown. */
static void add_bytes(char *buf, size_t size, const char *what, uint64_t b)
{
	size_t n = strlen(buf);

	if (!b || n >= size)
		return;
	if (b >= (1u << 20) && b % (1u << 20) == 0)
		snprintf(buf + n, size - n, "%s %s %" PRIu64 " MiB", n ? "," : "", what, b >> 20);
	else
		snprintf(buf + n, size - n, "%s %s %" PRIu64 " KiB", n ? "," : "", what, b >> 10);
}

void probe_topology_print(const struct probe_topology *t, FILE *f)
{
	char ids[256];
	uint32_t *linux_ids = malloc(t->ncpus * sizeof(*linux_ids));

	fprintf(f, "machine: %s, %" PRIu32 " node%s x %" PRIu32 " core%s x %" PRIu32 " thread%s = %" PRIu32
		   " CPU%s, %s numbering",
		t->model, t->nodes, t->nodes == 1 ? "" : "s", t->cores_per_node, t->cores_per_node == 1 ? "" : "s",
		t->threads_per_core, t->threads_per_core == 1 ? "" : "s", t->ncpus, t->ncpus == 1 ? "" : "s",
		t->numbering == NUMBERING_CORES_FIRST ? "cores-first" : "smt-adjacent");
	if (t->clusters)
		fprintf(f, ", %" PRIu32 " cores per last-level cache", t->cores_per_cluster);
	fprintf(f, "\n");
	if (linux_ids) {
		for (uint32_t i = 0; i < t->ncpus; i++)
			linux_ids[i] = t->cpus[i].linux_id;
		probe_cpulist(linux_ids, t->ncpus, ids, sizeof(ids));
		fprintf(f, "  online CPUs %s%s%s\n", ids, t->offline[0] ? ", offline " : "", t->offline);
		free(linux_ids);
	}
	if (!t->node_dirs) {
		fprintf(f, "  no NUMA node directories in sysfs: one node\n");
	} else {
		fprintf(f, "  nodes");
		for (uint32_t n = 0; n < t->nodes; n++)
			fprintf(f, " %" PRIu32, t->node_ids[n]);
		fprintf(f, ", distances");
		for (uint32_t a = 0; a < t->nodes; a++) {
			fprintf(f, " %s", a ? "" : "[");
			for (uint32_t b = 0; b < t->nodes; b++)
				fprintf(f, "%s%" PRIu32, b ? " " : "[", t->distance[a * t->nodes + b]);
			fprintf(f, "]%s", a + 1 == t->nodes ? "]" : ",");
		}
		fprintf(f, "\n");
	}
	if (t->l1d_bytes || t->l2_bytes || t->llc_bytes) {
		char caches[160] = "", what[16];

		add_bytes(caches, sizeof(caches), "L1d", t->l1d_bytes);
		add_bytes(caches, sizeof(caches), "L2", t->l2_bytes);
		snprintf(what, sizeof(what), "L%" PRIu32, t->llc_level);
		if (t->llc_level > 2)
			add_bytes(caches, sizeof(caches), what, t->llc_bytes);
		fprintf(f, "  caches:%s\n", caches);
	}
	fprintf(f, "  clock %.3f MHz: %s\n", (double)t->freq_khz / 1000.0, t->freq_source);
	fprintf(f, "  kernel %s: nearest preset %s\n", t->release,
		probe_kernel_preset(t->release) ? probe_kernel_preset(t->release) : "unknown (release not MAJOR.MINOR)");
	probe_idle_print(t, "  ", f);
	for (uint32_t i = 0; i < t->nnotes; i++)
		fprintf(f, "  note: %s\n", t->notes[i]);
}

void probe_idle_print(const struct probe_topology *t, const char *prefix, FILE *f)
{
	const struct probe_idle *d = &t->idle;

	if (!d->present) {
		fprintf(f, "%sidle states: none in sysfs (no cpuidle driver: the architecture's default idle)\n", prefix);
		return;
	}
	fprintf(f, "%sidle states of CPU %" PRIu32 " (cpuidle driver %s, governor %s):", prefix, d->cpu,
		d->driver[0] ? d->driver : "unknown", d->governor[0] ? d->governor : "unknown");
	for (uint32_t k = 0; k < d->n; k++)
		fprintf(f, "%s %s %ld/%ld us (%s%s)", k ? "," : "", d->s[k].name, d->s[k].latency_us, d->s[k].residency_us,
			d->s[k].polls ? "polls" : "no poll: IPI", d->s[k].disabled ? ", disabled" : "");
	fprintf(f, "\n");
}

void probe_mitigations_print(const struct probe_topology *t, const char *prefix, FILE *f)
{
	uint32_t shown = 0;

	for (uint32_t i = 0; i < t->nvulns; i++) {
		const char *colon = strchr(t->vulns[i], ':');

		if (colon && !strcmp(colon, ": Not affected"))
			continue;
		fprintf(f, "%s%s\n", prefix, t->vulns[i]);
		shown++;
	}
	if (!shown)
		fprintf(f, "%s%s\n", prefix,
			t->nvulns ? "none: every vulnerability the kernel knows is 'Not affected'"
				  : "none reported (no cpu/vulnerabilities directory)");
}

const char *probe_vuln_text(const struct probe_topology *t, const char *name)
{
	size_t len = strlen(name);

	for (uint32_t i = 0; i < t->nvulns; i++)
		if (!strncmp(t->vulns[i], name, len) && t->vulns[i][len] == ':' && t->vulns[i][len + 1] == ' ')
			return t->vulns[i] + len + 2;
	return NULL;
}

/* Whether `text` contains `word`, ignoring case. */
static bool has_word(const char *text, const char *word)
{
	return strcasestr(text, word) != NULL;
}

static bool starts_with(const char *text, const char *prefix)
{
	return !strncmp(text, prefix, strlen(prefix));
}

const char *probe_mitigation_pti(const char *meltdown)
{
	if (!meltdown)
		return "unknown";
	if (starts_with(meltdown, "Mitigation: PTI"))
		return "on";
	if (starts_with(meltdown, "Not affected") || starts_with(meltdown, "Vulnerable"))
		return "off";
	return "unknown"; /* e.g. "Unknown (XEN PV detected, hypervisor mitigation required)" */
}

const char *probe_mitigation_spectre_v2(const char *spectre_v2)
{
	char first[PROBE_VULN_LEN];

	if (!spectre_v2)
		return "unknown";
	/* the mode is the first clause (before ';', or ',' before Linux 5.x's format):
	 * the later ones (IBPB, STIBP, IBRS_FW, RSB filling, "PBRSB-eIBRS: Not
	 * affected", "BHI: Retpoline") are other mitigations */
	snprintf(first, sizeof(first), "%.*s", (int)strcspn(spectre_v2, ";,"), spectre_v2);
	if (starts_with(first, "Not affected"))
		return "off";
	/* a thunk on every indirect call: retpolines, also with eIBRS, or AMD's
	 * LFENCE form (spectre_v2=retpoline,lfence or eibrs,lfence) */
	if (has_word(first, "retpoline") || has_word(first, "LFENCE"))
		return "retpoline";
	if (strstr(first, "Enhanced / Automatic IBRS") || strstr(first, "Enhanced IBRS") || strstr(first, "eIBRS"))
		return "eibrs";
	if (strstr(first, "IBRS"))
		return "ibrs";
	if (starts_with(first, "Vulnerable"))
		return "off";
	return "unknown"; /* e.g. arm64's "Mitigation: CSV2, BHB" */
}

bool probe_uses_return_thunk(const char *text)
{
	const char *safe;

	if (!text)
		return false;
	if (has_word(text, "untrained return") || has_word(text, "return thunk") || has_word(text, "Stuffing") ||
	    has_word(text, "call depth tracking"))
		return true;
	/* "Safe RET" (the SRSO return thunk), but not "Microcode, no safe RET" */
	for (safe = strcasestr(text, "safe ret"); safe; safe = strcasestr(safe + 1, "safe ret"))
		if (!(safe - text >= 3 && !strncasecmp(safe - 3, "no ", 3)))
			return true;
	return false;
}

/* One file's say on return thunks: 1 uses one, 0 does not, -1 unknown. */
static int return_thunk_of(const char *text)
{
	if (!text || !*text)
		return -1;
	if (probe_uses_return_thunk(text))
		return 1;
	if (starts_with(text, "Not affected") || starts_with(text, "Vulnerable") || starts_with(text, "Mitigation:"))
		return 0;
	return -1;
}

const char *probe_mitigation_return_thunk(const char *retbleed, const char *spec_rstack_overflow)
{
	int a = return_thunk_of(retbleed), b = return_thunk_of(spec_rstack_overflow);

	if (a == 1 || b == 1)
		return "on";
	if (a == 0 && b == 0)
		return "off";
	return "unknown";
}

const char *probe_kernel_preset(const char *release)
{
	unsigned major, minor, patch = 0;
	int n;

	if (!release || !isdigit((unsigned char)release[0]) || sscanf(release, "%u.%u%n", &major, &minor, &n) != 2 ||
	    major > 999 || minor > 999)
		return NULL;
	if (release[n] == '.' && isdigit((unsigned char)release[n + 1]))
		patch = (unsigned)strtoul(release + n + 1, NULL, 10) % 1000;
	/* MAJOR.MINOR.PATCH as one number, compared with each preset's first release */
	const unsigned long v = ((unsigned long)major * 1000 + minor) * 1000 + patch;
#define RELEASE(a, b, c) ((((unsigned long)(a)) * 1000 + (b)) * 1000 + (c))
	if (v >= RELEASE(6, 18, 0))
		return "linux-6.18";
	if (v >= RELEASE(6, 17, 0))
		return "linux-6.17";
	if (v >= RELEASE(6, 16, 0))
		return "linux-6.16-dev";
	if (v >= RELEASE(5, 6, 0))
		return "linux-6.15";
	if (v >= RELEASE(3, 14, 0))
		return "linux-3.14";
	if (v >= RELEASE(2, 6, 22))
		return "linux-2.6.22";
	return "linux-2.6.18";
#undef RELEASE
}
