/* futexsim probe, step 3 and the command: the machine YAML from the topology and
 * the measurements, every constant with its source comment, checked by loading it
 * as the config loader does and written atomically. docs/probe.md. */
#include "sim/probe.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/core/yamltree.h"

#define DEFAULT_SECONDS 20.0
#define MAX_SECONDS 3600.0
#define COMMENT_COLUMN 26

/* ---- rendering -------------------------------------------------------------------- */

/* A line `INDENT key: value` padded to the comment column, then `# comment`. */
static void line(FILE *f, const char *indent, const char *key, const char *value, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void line(FILE *f, const char *indent, const char *key, const char *value, const char *fmt, ...)
{
	va_list ap;
	int n = fprintf(f, "%s%s:%s%s", indent, key, value[0] ? " " : "", value);

	fprintf(f, "%*s# ", n < COMMENT_COLUMN ? COMMENT_COLUMN - n : 1, "");
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
}

static void spread(char *buf, size_t size, const struct probe_value *v, bool ratio)
{
	if (ratio)
		snprintf(buf, size, "median %.3f, spread %.3f-%.3f (%s) over %" PRIu32 " trials", v->median, v->lo, v->hi,
			 v->percentiles ? "p10-p90" : "min-max", v->n);
	else
		snprintf(buf, size, "median %.2fns, spread %.2f-%.2fns (%s) over %" PRIu32 " trials", v->median, v->lo,
			 v->hi, v->percentiles ? "p10-p90" : "min-max", v->n);
}

/* The comment of one value: "[M] measured by futexsim probe: median ..., METHOD,
 * DATE, MODEL, kernel RELEASE" or "[A] WHY". */
static void value_comment(char *buf, size_t size, const struct probe_value *v, bool ratio, const char *stamp)
{
	char s[160];

	if (!v->measured) {
		snprintf(buf, size, "[%c] %s", v->label ? v->label : 'A', v->why_not);
		return;
	}
	spread(s, sizeof(s), v, ratio);
	snprintf(buf, size, "[M] measured by futexsim probe: %s; %s%s; %s", s, v->how,
		 ratio && v->median < 1.0 ? " (below 1.0 by noise: written as 1.000)" : "", stamp);
}

static void cost_line(FILE *f, const char *key, const struct probe_value *v, bool ratio, const char *stamp)
{
	char c[900];

	value_comment(c, sizeof(c), v, ratio, stamp);
	line(f, "  ", key, v->value, "%s", c);
}

/* transfer_remote / memory_remote: one cost, or a map by distance. */
static void distance_cost_line(FILE *f, const char *key, const struct probe_results *r,
			       const struct probe_value *vals, const char *stamp)
{
	char value[512] = "", comment[2400] = "";
	size_t vl = 0, cl = 0;
	bool any_measured = false;

	if (r->ndistances == 1) {
		cost_line(f, key, &vals[0], false, stamp);
		return;
	}
	for (uint32_t k = 0; k < r->ndistances; k++)
		any_measured |= vals[k].measured;
	cl += (size_t)snprintf(comment, sizeof(comment), "%s", any_measured ? "[M] measured by futexsim probe:" : "");
	vl += (size_t)snprintf(value, sizeof(value), "{");
	for (uint32_t k = 0; k < r->ndistances && vl < sizeof(value) && cl < sizeof(comment); k++) {
		const struct probe_value *v = &vals[k];
		char s[160];

		vl += (size_t)snprintf(value + vl, sizeof(value) - vl, "%s%" PRIu32 ": %s", k ? ", " : "", r->distances[k],
				       v->value);
		if (v->measured) {
			spread(s, sizeof(s), v, false);
			cl += (size_t)snprintf(comment + cl, sizeof(comment) - cl, "%s distance %" PRIu32 ": %s, %s",
					       k ? ";" : "", r->distances[k], s, v->how);
		} else {
			cl += (size_t)snprintf(comment + cl, sizeof(comment) - cl, "%s distance %" PRIu32 ": [%c] %s",
					       k ? ";" : "", r->distances[k], v->label, v->why_not);
		}
	}
	if (vl < sizeof(value))
		snprintf(value + vl, sizeof(value) - vl, "}");
	if (cl < sizeof(comment))
		snprintf(comment + cl, sizeof(comment) - cl, "; %s", stamp);
	line(f, "  ", key, value, "%s", comment[0] == ' ' ? comment + 1 : comment);
}

static void header(FILE *f, const struct probe_topology *t, const struct probe_results *r)
{
	const char *preset = probe_kernel_preset(t->release);

	fprintf(f, "# Machine file written by `futexsim probe --seconds %g` (futexsim %s, git %s; docs/probe.md)\n",
		r->budget, FUTEXSIM_VERSION, FUTEXSIM_GIT_REV);
	fprintf(f, "# on %s, %s, after %.1f s of measurements:\n", t->hostname, r->when, r->seconds);
	fprintf(f, "# %s, kernel %s (nearest kernel preset: %s).\n", t->model, t->release, preset ? preset : "unknown");
	fprintf(f, "# Topology read from sysfs under %s; costs measured by micro-benchmarks pinned with\n", t->root);
	fprintf(f, "# sched_setaffinity, each the median of repeated trials with its spread (p10-p90 from 10\n");
	fprintf(f, "# trials on, else min-max); the machine was not otherwise idle. Labels: [M] measured or read\n");
	fprintf(f, "# on this machine by futexsim probe, [D] derived from what was read, [A] assumed (the\n");
	fprintf(f, "# comment says why). Not measured and left at the schema's defaults (1.0, docs/machine.md):\n");
	fprintf(f, "# transfer_occupancy, transfer_contended, invalidation.\n");
	if (r->dram_buffer_bytes)
		fprintf(f, "# DRAM: %" PRIu64 " MiB buffers (last-level cache %" PRIu64 " KiB)%s%s.\n",
			r->dram_buffer_bytes >> 20, t->llc_bytes >> 10, r->dram_note[0] ? "; " : "", r->dram_note);
	fprintf(f, "# CPU vulnerabilities the kernel reports (the syscall cost includes their mitigations):\n");
	probe_mitigations_print(t, "#   ", f);
	for (uint32_t i = 0; i < t->nnotes; i++)
		fprintf(f, "# Note: %s.\n", t->notes[i]);
	fprintf(f, "# Schema: docs/machine.md. Use: bin/futexsim run SCENARIO.yaml --set machine=PATH/OF/THIS.yaml\n");
}

char *probe_render(const struct probe_topology *t, const struct probe_results *r, const char *name,
		   struct fs_error *e)
{
	char *text = NULL, stamp[400], freq[32], read_stamp[400], v[32];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f) {
		fs_fail(e, FS_ERR_RUNTIME, "out of memory");
		return NULL;
	}
	snprintf(stamp, sizeof(stamp), "%s, %s, kernel %s", r->date, t->model, t->release);
	snprintf(read_stamp, sizeof(read_stamp), "%s, %s", r->date, t->model);
	header(f, t, r);
	fprintf(f, "name: \"%s\"\n", name);
	fprintf(f,
		"description: \"%s, %" PRIu32 " node%s x %" PRIu32 " core%s x %" PRIu32 " thread%s = %" PRIu32
		" CPU%s, probed on %s %s (kernel %s)\"\n",
		t->model, t->nodes, t->nodes == 1 ? "" : "s", t->cores_per_node, t->cores_per_node == 1 ? "" : "s",
		t->threads_per_core, t->threads_per_core == 1 ? "" : "s", t->ncpus, t->ncpus == 1 ? "" : "s", t->hostname,
		r->date, t->release);

	fprintf(f, "topology:\n");
	snprintf(v, sizeof(v), "%" PRIu32, t->nodes);
	if (t->node_dirs)
		line(f, "  ", "nodes", v, "[M] read by futexsim probe: NUMA nodes with online CPUs in %s/devices/system/node; %s",
		     "/sys", read_stamp);
	else
		line(f, "  ", "nodes", v, "[M] read by futexsim probe: no NUMA node directories in /sys/devices/system/node "
					  "(a kernel without NUMA): one node; %s",
		     read_stamp);
	snprintf(v, sizeof(v), "%" PRIu32, t->cores_per_node);
	line(f, "  ", "cores_per_node", v,
	     "[M] read by futexsim probe: distinct thread sibling lists of the online CPUs, per node; %s", read_stamp);
	snprintf(v, sizeof(v), "%" PRIu32, t->threads_per_core);
	if (t->siblings_known)
		line(f, "  ", "threads_per_core", v,
		     "[M] read by futexsim probe: online CPUs per topology/thread_siblings_list; %s", read_stamp);
	else
		line(f, "  ", "threads_per_core", v,
		     "[A] sysfs has no topology/thread_siblings_list for every CPU: each CPU taken as a core; %s",
		     read_stamp);
	if (t->threads_per_core == 1)
		line(f, "  ", "numbering", "cores-first",
		     "[D] one thread per core: both numberings are the same; CPUs ordered node by node (checked)");
	else if (t->numbering == NUMBERING_CORES_FIRST)
		line(f, "  ", "numbering", "cores-first",
		     "[D] from the sibling lists: CPU %" PRIu32 "'s sibling is CPU %" PRIu32
		     ", every core first, then their siblings, node by node (checked for every CPU)",
		     t->cpus[0].linux_id, t->cpus[t->ncores].linux_id);
	else
		line(f, "  ", "numbering", "smt-adjacent",
		     "[D] from the sibling lists: CPU %" PRIu32 "'s sibling is CPU %" PRIu32
		     ", siblings consecutive, cores node by node (checked for every CPU)",
		     t->cpus[0].linux_id, t->cpus[1].linux_id);
	if (t->clusters) {
		snprintf(v, sizeof(v), "%" PRIu32, t->cores_per_cluster);
		line(f, "  ", "cores_per_cluster", v,
		     "[D] from cache/index*/shared_cpu_list: cores sharing a level-%" PRIu32 " cache of %" PRIu64 " KiB",
		     t->llc_level, t->llc_bytes >> 10);
	}
	snprintf(freq, sizeof(freq), "%" PRIu64 "kHz", t->freq_khz);
	if (t->freq_assumed)
		line(f, "", "frequency", freq, "[A] %s; it converts the costs given in cycles (line_hold here, the kernel "
					       "designs' costs)",
		     t->freq_source);
	else
		line(f, "", "frequency", freq,
		     "[M] read by futexsim probe: %s; it converts the costs given in cycles (line_hold here, the kernel "
		     "designs' costs); %s",
		     t->freq_source, read_stamp);
	if (t->nodes > 1) {
		line(f, "", "distance", "", "[M] read by futexsim probe: node*/distance (ACPI SLIT) of the nodes above; %s",
		     read_stamp);
		for (uint32_t a = 0; a < t->nodes; a++) {
			fprintf(f, "  - [");
			for (uint32_t b = 0; b < t->nodes; b++)
				fprintf(f, "%s%" PRIu32, b ? ", " : "", t->distance[a * t->nodes + b]);
			fprintf(f, "]\n");
		}
	}

	fprintf(f, "costs:\n");
	cost_line(f, "line_hit", &r->line_hit, false, stamp);
	cost_line(f, "atomic_hit", &r->atomic_hit, false, stamp);
	cost_line(f, "transfer_smt", &r->transfer_smt, false, stamp);
	if (t->clusters)
		cost_line(f, "transfer_cluster", &r->transfer_cluster, false, stamp);
	cost_line(f, "transfer_node", &r->transfer_node, false, stamp);
	if (t->nodes > 1)
		distance_cost_line(f, "transfer_remote", r, r->transfer_remote, stamp);
	cost_line(f, "memory_local", &r->memory_local, false, stamp);
	if (t->nodes > 1)
		distance_cost_line(f, "memory_remote", r, r->memory_remote, stamp);
	cost_line(f, "syscall", &r->syscall, false, stamp);
	line(f, "  ", "line_hold", "10 cycles",
	     "[A] not measurable by futexsim probe: how long a core that just received a contended line keeps it "
	     "before a queued request takes it; 10 cycles, as the shipped presets assume");
	cost_line(f, "smt_slowdown", &r->smt_slowdown, true, stamp);
	if (fclose(f) != 0 || !text) {
		free(text);
		fs_fail(e, FS_ERR_RUNTIME, "out of memory");
		return NULL;
	}
	return text;
}

/* ---- checking and writing -------------------------------------------------------- */

static int differs(struct fs_error *e, const char *file, const char *what, uint64_t got, uint64_t want)
{
	return fs_fail(e, FS_ERR_RUNTIME,
		       "%s: loads with %s %" PRIu64 " where the probed machine has %" PRIu64
		       " (a bug in futexsim probe; nothing written)",
		       file, what, got, want);
}

static int compare(const struct machine *m, const char *file, const struct probe_topology *t, struct fs_error *e)
{
	if (m->nodes != t->nodes)
		return differs(e, file, "nodes", m->nodes, t->nodes);
	if (m->cores_per_node != t->cores_per_node)
		return differs(e, file, "cores_per_node", m->cores_per_node, t->cores_per_node);
	if (m->threads_per_core != t->threads_per_core)
		return differs(e, file, "threads_per_core", m->threads_per_core, t->threads_per_core);
	if (m->ncpus != t->ncpus)
		return differs(e, file, "CPUs", m->ncpus, t->ncpus);
	if (m->cores_per_cluster != t->cores_per_cluster)
		return differs(e, file, "cores_per_cluster", m->cores_per_cluster, t->cores_per_cluster);
	for (uint32_t i = 0; i < t->nodes * t->nodes; i++)
		if (m->distance[i] != t->distance[i])
			return differs(e, file, "a distance", m->distance[i], t->distance[i]);
	for (uint32_t c = 0; c < t->ncpus; c++) {
		if (m->cpu_core[c] != t->cpus[c].core)
			return differs(e, file, "the core of a CPU", m->cpu_core[c], t->cpus[c].core);
		if (m->cpu_node[c] != t->cpus[c].node)
			return differs(e, file, "the node of a CPU", m->cpu_node[c], t->cpus[c].node);
		if (m->cpu_cluster[c] != t->cpus[c].core / t->cores_per_cluster)
			return differs(e, file, "the cluster of a CPU", m->cpu_cluster[c], t->cpus[c].core / t->cores_per_cluster);
	}
	return 0;
}

/* `root` (a loaded document) through machine_from_yaml, compared with t. */
static int verify_tree(const struct yt_node *root, const char *file, const struct probe_topology *t, struct fs_error *e)
{
	struct machine m;
	struct fs_error load = { 0 };
	int rc;

	if (machine_from_yaml(&m, root, &load) < 0)
		return fs_fail(e, FS_ERR_RUNTIME,
			       "the machine file futexsim probe made does not load (a bug; nothing written): %s", load.msg);
	rc = compare(&m, file, t, e);
	machine_free(&m);
	return rc;
}

int probe_verify(const char *text, const char *file, const struct probe_topology *t, struct fs_error *e)
{
	struct yt_doc *d = yt_doc_new();
	struct fs_error load = { 0 };
	struct yt_node *root;
	int rc;

	if (!d)
		return fs_fail(e, FS_ERR_RUNTIME, "out of memory");
	root = yt_load_string(d, file, text, strlen(text), &load);
	rc = root ? verify_tree(root, file, t, e)
		  : fs_fail(e, FS_ERR_RUNTIME, "the machine file futexsim probe made is not YAML (a bug): %s", load.msg);
	yt_doc_free(d);
	return rc;
}

static int write_all(int fd, const char *text)
{
	size_t len = strlen(text), done = 0;

	while (done < len) {
		ssize_t n = write(fd, text + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return 0;
}

/* A temporary file beside `path`: PATH.tmp-XXXXXX, readable as a config would be. */
static int make_temp(const char *path, char *tmp, size_t size, struct fs_error *e)
{
	mode_t mask = umask(0);
	int fd;

	umask(mask);
	if ((size_t)snprintf(tmp, size, "%s.tmp-XXXXXX", path) >= size)
		return fs_fail(e, FS_ERR_OUTPUT, "%s: path too long", path);
	fd = mkstemp(tmp);
	if (fd < 0)
		return fs_fail(e, FS_ERR_OUTPUT, "cannot write beside %s: %s", path, strerror(errno));
	(void)fchmod(fd, 0666 & ~mask);
	return fd;
}

int probe_write(const char *path, const char *text, const struct probe_topology *t, struct fs_error *e)
{
	char tmp[4200];
	struct yt_doc *d;
	struct yt_node *root;
	struct fs_error load = { 0 };
	int fd = make_temp(path, tmp, sizeof(tmp), e), rc;

	if (fd < 0)
		return -1;
	if (write_all(fd, text) < 0 || fsync(fd) < 0) {
		rc = fs_fail(e, FS_ERR_OUTPUT, "cannot write %s: %s", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
		return rc;
	}
	if (close(fd) < 0) {
		rc = fs_fail(e, FS_ERR_OUTPUT, "cannot write %s: %s", tmp, strerror(errno));
		unlink(tmp);
		return rc;
	}
	/* what is on disk loads as the config loader loads it, with this topology */
	d = yt_doc_new();
	root = d ? yt_load_file(d, tmp, &load) : NULL;
	if (!d)
		rc = fs_fail(e, FS_ERR_RUNTIME, "out of memory");
	else if (!root)
		rc = fs_fail(e, FS_ERR_OUTPUT, "cannot read back %s: %s", tmp, load.msg);
	else
		rc = verify_tree(root, path, t, e);
	yt_doc_free(d);
	if (rc == 0 && rename(tmp, path) != 0)
		rc = fs_fail(e, FS_ERR_OUTPUT, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
	if (rc < 0)
		unlink(tmp);
	return rc;
}

void probe_name_from_path(const char *path, char *out, size_t size)
{
	const char *base = strrchr(path, '/');
	size_t n = 0, len;

	base = base ? base + 1 : path;
	len = strlen(base);
	if (len >= 5 && !strcmp(base + len - 5, ".yaml"))
		len -= 5;
	else if (len >= 4 && !strcmp(base + len - 4, ".yml"))
		len -= 4;
	for (size_t i = 0; i < len && n + 1 < size; i++) {
		char c = base[i];

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
		    c == '-')
			out[n++] = c;
	}
	out[n] = '\0';
	if (!n || !strcmp(out, "-"))
		snprintf(out, size, "probed");
}

/* ---- the command ----------------------------------------------------------------- */

struct probe_args {
	const char *output;   /* -o FILE, "-" for stdout */
	const char *name;
	const char *root;
	double seconds;
	bool topology_only;
};

static const char *arg_value(int argc, char **argv, int *i, const char *opt)
{
	size_t len = strlen(opt);

	if (!strncmp(argv[*i], opt, len) && argv[*i][len] == '=')
		return argv[*i] + len + 1;
	return *i + 1 < argc ? argv[++*i] : NULL;
}

static bool is_opt(const char *a, const char *opt)
{
	size_t len = strlen(opt);

	return !strncmp(a, opt, len) && (a[len] == '\0' || a[len] == '=');
}

static int parse_args(int argc, char **argv, struct probe_args *a, struct fs_error *e)
{
	memset(a, 0, sizeof(*a));
	a->root = "/";
	a->seconds = DEFAULT_SECONDS;
	for (int i = 2; i < argc; i++) {
		const char *arg = argv[i], *v;

		if (!strcmp(arg, "-o") || is_opt(arg, "--output")) {
			v = arg_value(argc, argv, &i, "--output");
			if (!v || !*v)
				return fs_fail(e, FS_ERR_USAGE, "futexsim probe: %s needs a file name (or - for standard output)",
					       arg);
			a->output = v;
		} else if (is_opt(arg, "--seconds")) {
			char *end;

			v = arg_value(argc, argv, &i, "--seconds");
			a->seconds = v && *v ? strtod(v, &end) : 0;
			if (!v || !*v || *end || !(a->seconds >= 0.1 && a->seconds <= MAX_SECONDS))
				return fs_fail(e, FS_ERR_USAGE, "futexsim probe: --seconds needs a number from 0.1 to %.0f",
					       MAX_SECONDS);
		} else if (is_opt(arg, "--name")) {
			v = arg_value(argc, argv, &i, "--name");
			if (!v || !*v || strpbrk(v, "\"\\\n"))
				return fs_fail(e, FS_ERR_USAGE,
					       "futexsim probe: --name needs a machine name (no quotes, backslashes or newlines)");
			a->name = v;
		} else if (is_opt(arg, "--root")) {
			v = arg_value(argc, argv, &i, "--root");
			if (!v || !*v)
				return fs_fail(e, FS_ERR_USAGE, "futexsim probe: --root needs a directory");
			a->root = v;
		} else if (!strcmp(arg, "--topology")) {
			a->topology_only = true;
		} else {
			return fs_fail(e, FS_ERR_USAGE, "futexsim probe: unknown %s '%s' (see futexsim probe --help)",
				       arg[0] == '-' ? "option" : "argument", arg);
		}
	}
	if (!a->output && !a->topology_only)
		return fs_fail(e, FS_ERR_USAGE,
			       "futexsim probe: missing -o FILE.yaml (or --topology to only read the topology; see "
			       "futexsim probe --help)");
	if (a->output && a->topology_only)
		return fs_fail(e, FS_ERR_USAGE, "futexsim probe: --topology writes no file (drop -o or --topology)");
	if (strcmp(a->root, "/") && !a->topology_only)
		return fs_fail(e, FS_ERR_USAGE,
			       "futexsim probe: --root reads another machine's topology, which cannot be measured here "
			       "(use it with --topology)");
	return 0;
}

/* Fails at once when `path` cannot be written, before minutes of measuring. */
static int check_writable(const char *path, struct fs_error *e)
{
	char tmp[4200];
	struct stat st;
	int fd;

	if ((stat(path, &st) == 0 && S_ISDIR(st.st_mode)) || path[strlen(path) - 1] == '/')
		return fs_fail(e, FS_ERR_OUTPUT, "%s is a directory (expected a file name such as %s%smachine.yaml)", path,
			       path, path[strlen(path) - 1] == '/' ? "" : "/");
	fd = make_temp(path, tmp, sizeof(tmp), e);
	if (fd < 0)
		return -1;
	close(fd);
	unlink(tmp);
	return 0;
}

int probe_command(int argc, char **argv, struct fs_error *e)
{
	struct probe_args a;
	struct probe_topology t;
	struct probe_results *r = NULL;
	struct probe_options o;
	char name[128];
	char *text = NULL;
	FILE *out;
	int rc;

	if (parse_args(argc, argv, &a, e) < 0)
		return e->status;
	out = a.output && !strcmp(a.output, "-") ? stderr : stdout;
	if (probe_topology_read(&t, a.root, e) < 0) {
		probe_topology_free(&t);
		return e->status;
	}
	probe_topology_print(&t, out);
	fprintf(out, "  CPU vulnerabilities the kernel reports:\n");
	probe_mitigations_print(&t, "    ", out);
	fflush(out);
	if (a.topology_only) {
		probe_topology_free(&t);
		return FS_OK;
	}
	if (strcmp(a.output, "-") && check_writable(a.output, e) < 0) {
		probe_topology_free(&t);
		return e->status;
	}
	if (a.name)
		snprintf(name, sizeof(name), "%s", a.name);
	else if (strcmp(a.output, "-"))
		probe_name_from_path(a.output, name, sizeof(name));
	else
		snprintf(name, sizeof(name), "probed-%s", t.hostname);
	r = calloc(1, sizeof(*r));
	if (!r) {
		probe_topology_free(&t);
		fs_fail(e, FS_ERR_RUNTIME, "out of memory");
		return FS_ERR_RUNTIME;
	}
	o.seconds = a.seconds;
	o.progress = stderr;
	rc = probe_measure(&t, &o, r, e);
	if (rc == 0) {
		text = probe_render(&t, r, name, e);
		rc = text ? 0 : -1;
	}
	if (rc == 0) {
		if (!strcmp(a.output, "-")) {
			rc = probe_verify(text, "<stdout>", &t, e);
			if (rc == 0 && (fputs(text, stdout) == EOF || fflush(stdout) != 0))
				rc = fs_fail(e, FS_ERR_OUTPUT, "cannot write to standard output");
		} else {
			rc = probe_write(a.output, text, &t, e);
		}
	}
	if (rc == 0) {
		probe_results_print(&t, r, out);
		if (strcmp(a.output, "-"))
			fprintf(out,
				"wrote %s (machine '%s'); simulate it with e.g.\n"
				"  bin/futexsim run scenarios/quickstart.yaml --set machine=%s --set workload.threads=%" PRIu32 "\n",
				a.output, name, a.output, t.ncpus);
		fflush(out);
	}
	free(text);
	free(r);
	probe_topology_free(&t);
	return rc < 0 ? (e->status ? e->status : FS_ERR_RUNTIME) : FS_OK;
}
