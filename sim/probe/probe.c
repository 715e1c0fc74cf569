/* SPDX-License-Identifier: MIT */
/* futexsim probe, step 3 and the command: the machine YAML from the topology and
 * the measurements, every constant with its source comment, checked by loading it
 * as the config loader does and written atomically. docs/probe.md. */
#include "sim/probe/probe.h"
#include "sim/probe/measure.h"
#include "sim/fit.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sim/cliopt.h"
#include "sim/core/yamltree.h"
#include "sim/perfbench.h"
#include "sim/perfstat.h"
#include "sim/results.h"
#include "sim/revision.h"
#include "sim/scenario.h"
#include "sim/sim.h"
#include "sim/views/text.h"
#include "sim/views/csv.h"

#define DEFAULT_SECONDS 20.0
#define MAX_SECONDS 3600.0
#define COMMENT_COLUMN 26

/* ---- rendering -------------------------------------------------------------------- */

/* A line `INDENT key: value` padded to the comment column, then `# comment`. */
void probe_yaml_line(FILE *f, const char *indent, const char *key, const char *value, const char *fmt, ...)
{
	va_list ap;
	int n = fprintf(f, "%s%s:%s%s", indent, key, value[0] ? " " : "", value);

	fprintf(f, "%*s# ", n < COMMENT_COLUMN ? COMMENT_COLUMN - n : 1, "");
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
}

/* "low tail X, median M, spread Y-Z (p10-p90) over N rounds" (a latency) or
 * "median M, spread Y-Z (p10-p90) over N trials" (the SMT slowdown). */
static void spread(char *buf, size_t size, const struct probe_value *v, bool ratio)
{
	if (ratio)
		snprintf(buf, size, "median %.3f, spread %.3f-%.3f (%s) over %" PRIu32 " trials", v->median, v->lo, v->hi,
			 v->percentiles ? "p10-p90" : "min-max", v->n);
	else if (v->low_tail)
		snprintf(buf, size, "low tail %.2fns, median %.2fns, spread %.2f-%.2fns (%s) over %" PRIu32 " rounds%s",
			 v->estimate, v->median, v->lo, v->hi, v->percentiles ? "p10-p90" : "min-max", v->n,
			 v->attempts > 1 ? (v->unstable ? ", unstable after every retry" : ", stable on a retry") : "");
	else
		snprintf(buf, size, "median %.2fns, spread %.2f-%.2fns (%s) over %" PRIu32 " trials", v->median, v->lo,
			 v->hi, v->percentiles ? "p10-p90" : "min-max", v->n);
}

/* The comment of one value: "[M] measured by futexsim probe: low tail ..., METHOD,
 * DATE, MODEL, kernel RELEASE" or "[A] WHY". */
static void value_comment(char *buf, size_t size, const struct probe_value *v, bool ratio, const char *stamp)
{
	char s[200];

	if (!v->measured) {
		snprintf(buf, size, "[%c] %s", v->label ? v->label : 'A', v->why_not);
		return;
	}
	spread(s, sizeof(s), v, ratio);
	snprintf(buf, size, "[M] measured by futexsim probe: %s; %s%s; %s", s, v->how,
		 ratio && v->estimate < 1.0 ? " (below 1.0 by noise: written as 1.000)" : "", stamp);
}

/* A measurement still unstable after its retries: a comment line of its own just
 * above the value (and a warning on standard error when it was measured). */
static void warning_line(FILE *f, const char *indent, const char *key, const struct probe_value *v)
{
	if (v->measured && v->unstable)
		fprintf(f, "%s# [warning] unstable: %s: %s; its lowest low tail kept\n", indent, key,
			v->warning);
}

static void cost_line(FILE *f, const char *key, const struct probe_value *v, bool ratio, const char *stamp)
{
	char c[1200];

	value_comment(c, sizeof(c), v, ratio, stamp);
	warning_line(f, "  ", key, v);
	probe_yaml_line(f, "  ", key, v->value, "%s", c);
}

/* transfer_remote / memory_remote: one cost, or a map by distance. */
static void distance_cost_line(FILE *f, const char *key, const struct probe_results *r,
			       const struct probe_value *vals, const char *stamp)
{
	char value[512] = "", comment[4000] = "";
	size_t vl = 0, cl = 0;
	bool any_measured = false;

	if (r->ndistances == 1) {
		cost_line(f, key, &vals[0], false, stamp);
		return;
	}
	for (uint32_t k = 0; k < r->ndistances; k++) {
		char what[64];

		any_measured |= vals[k].measured;
		snprintf(what, sizeof(what), "%s[%" PRIu32 "]", key, r->distances[k]);
		warning_line(f, "  ", what, &vals[k]);
	}
	cl += (size_t)snprintf(comment, sizeof(comment), "%s", any_measured ? "[M] measured by futexsim probe:" : "");
	vl += (size_t)snprintf(value, sizeof(value), "{");
	for (uint32_t k = 0; k < r->ndistances && vl < sizeof(value) && cl < sizeof(comment); k++) {
		const struct probe_value *v = &vals[k];
		char s[200];

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
	probe_yaml_line(f, "  ", key, value, "%s", comment[0] == ' ' ? comment + 1 : comment);
}

/* One entry of the uncertainty block: a measured value's spread over its trials,
 * widened to the value as written (rounding may put it just outside). */
static void range_line(FILE *f, const char *name, const struct probe_value *v, bool ratio)
{
	double x = strtod(v->value, NULL), lo = v->lo < x ? v->lo : x, hi = v->hi > x ? v->hi : x;
	char range[96];

	if (!v->measured || v->label != 'M')
		return;
	if (ratio && lo < 1.0)
		lo = 1.0; /* a slowdown below none is noise, as the value's own floor */
	snprintf(range, sizeof(range), ratio ? "[%.3f, %.3f]" : "[%.3fns, %.3fns]", lo, hi);
	probe_yaml_line(f, "    ", name, range, "[M] the spread (%s) of futexsim probe's %" PRIu32 " %s",
	     v->percentiles ? "p10-p90" : "min-max", v->n, v->low_tail ? "rounds" : "trials");
}

/* The ranges futexsim run --band moves a probed machine's costs over (sim/band.h):
 * each measured cost's spread, and the assumed hold time's physical bounds. */
static void uncertainty(FILE *f, const struct probe_topology *t, const struct probe_results *r)
{
	fprintf(f, "uncertainty:  # [M] the range of each cost, for futexsim run --band (docs/calibration.md)\n");
	fprintf(f, "  costs:\n");
	range_line(f, "syscall", &r->syscall, false);
	range_line(f, "transfer_smt", &r->transfer_smt, false);
	if (t->clusters)
		range_line(f, "transfer_cluster", &r->transfer_cluster, false);
	range_line(f, "transfer_node", &r->transfer_node, false);
	range_line(f, "memory_local", &r->memory_local, false);
	range_line(f, "smt_slowdown", &r->smt_slowdown, true);
	probe_yaml_line(f, "    ", "call_return", "[0ns, 10ns]",
	     "[A] none to a mispredicted return (about 20-40 cycles) on every call and return: the range of a return "
	     "thunk or retpoline, for which no per-call figure is published (docs/sources.md: srso-doc)");
	probe_yaml_line(f, "    ", "line_hold", "[0 cycles, 40 cycles]",
	     "[A] from none to 40 cycles, the bounds the E5 calibration allows it (analysis/calibration.yaml)");
}

/* "meltdown: TEXT" for a mitigation's comment: the raw text of each file it comes
 * from, or that the file is missing. */
static size_t raw_texts(char *buf, size_t size, const struct probe_topology *t, const char *const *files, size_t n)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && len < size; i++) {
		const char *text = probe_vuln_text(t, files[i]);

		len += (size_t)snprintf(buf + len, size - len, "%s%s: %s", i ? "; " : "", files[i],
					text ? text : "no such file");
	}
	return len;
}

/* The `mitigations:` block: what the kernel's cpu/vulnerabilities files say of
 * the mitigations that cost time on the futex path, a word each (docs/probe.md),
 * with the raw texts as the comments. */
static void mitigations(FILE *f, const struct probe_topology *t)
{
	static const char *const pti[] = { "meltdown" }, *const v2[] = { "spectre_v2" },
			       *const ret[] = { "retbleed", "spec_rstack_overflow" };
	char raw[3 * PROBE_VULN_LEN];
	if (!strcmp(t->root, "/"))
		fprintf(f, "mitigations:               # [M] read from /sys/devices/system/cpu/vulnerabilities on this host\n");
	else
		fprintf(f, "mitigations:               # [M] read from %s/sys/devices/system/cpu/vulnerabilities (--root)\n",
			t->root);
	raw_texts(raw, sizeof(raw), t, pti, 1);
	probe_yaml_line(f, "  ", "pti", probe_mitigation_pti(probe_vuln_text(t, "meltdown")), "[M] %s", raw);
	raw_texts(raw, sizeof(raw), t, v2, 1);
	probe_yaml_line(f, "  ", "spectre_v2", probe_mitigation_spectre_v2(probe_vuln_text(t, "spectre_v2")), "[M] %s", raw);
	raw_texts(raw, sizeof(raw), t, ret, 2);
	probe_yaml_line(f, "  ", "return_thunk",
	     probe_mitigation_return_thunk(probe_vuln_text(t, "retbleed"), probe_vuln_text(t, "spec_rstack_overflow")),
	     "[M] %s", raw);
}

static void header(FILE *f, const struct probe_topology *t, const struct probe_results *r)
{
	const char *preset = probe_kernel_preset(t->release);

	fprintf(f, "# Machine file written by `futexsim probe --seconds %g` (futexsim %s, git %s; docs/probe.md)\n",
		r->budget, FUTEXSIM_VERSION, futexsim_git_rev);
	fprintf(f, "# on %s, %s, after %.1f s of measurements:\n", t->hostname, r->when, r->seconds);
	fprintf(f, "# %s, kernel %s (nearest kernel preset: %s).\n", t->model, t->release, preset ? preset : "unknown");
	fprintf(f, "# Topology read from sysfs under %s; costs measured by micro-benchmarks pinned with\n", t->root);
	fprintf(f, "# sched_setaffinity. A latency is the low tail (p10) of many short rounds, as noise (other\n");
	fprintf(f, "# load, a descheduled virtual CPU) only adds time, written with its median and spread\n");
	fprintf(f, "# (p10-p90 from 10 rounds on, else min-max); a measurement whose rounds spread (p90 over\n");
	fprintf(f, "# %.1f x p10) or drift (the two halves' low tails %.0f%% apart) is measured again, up to %u times,\n",
		PROBE_SPREAD_LIMIT, 100 * PROBE_DRIFT_LIMIT, PROBE_RETRIES);
	fprintf(f, "# and marked [warning] when it stays unstable; smt_slowdown is the median of its trials.\n");
	fprintf(f, "# The machine was not otherwise idle. Labels: [M] measured or read on this machine by\n");
	fprintf(f, "# futexsim probe, [D] derived from what was read, [A] assumed (the comment says why). Not\n");
	fprintf(f, "# measured and left at the schema's defaults (1.0, docs/machine.md): transfer_occupancy,\n");
	fprintf(f, "# transfer_contended, invalidation.\n");
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
		probe_yaml_line(f, "  ", "nodes", v, "[M] read by futexsim probe: NUMA nodes with online CPUs in %s/devices/system/node; %s",
		     "/sys", read_stamp);
	else
		probe_yaml_line(f, "  ", "nodes", v, "[M] read by futexsim probe: no NUMA node directories in /sys/devices/system/node "
					  "(a kernel without NUMA): one node; %s",
		     read_stamp);
	snprintf(v, sizeof(v), "%" PRIu32, t->cores_per_node);
	probe_yaml_line(f, "  ", "cores_per_node", v,
	     "[M] read by futexsim probe: distinct thread sibling lists of the online CPUs, per node; %s", read_stamp);
	snprintf(v, sizeof(v), "%" PRIu32, t->threads_per_core);
	if (t->siblings_known)
		probe_yaml_line(f, "  ", "threads_per_core", v,
		     "[M] read by futexsim probe: online CPUs per topology/thread_siblings_list; %s", read_stamp);
	else
		probe_yaml_line(f, "  ", "threads_per_core", v,
		     "[A] sysfs has no topology/thread_siblings_list for every CPU: each CPU taken as a core; %s",
		     read_stamp);
	if (t->threads_per_core == 1)
		probe_yaml_line(f, "  ", "numbering", "cores-first",
		     "[D] one thread per core: both numberings are the same; CPUs ordered node by node (checked)");
	else if (t->numbering == NUMBERING_CORES_FIRST)
		probe_yaml_line(f, "  ", "numbering", "cores-first",
		     "[D] from the sibling lists: CPU %" PRIu32 "'s sibling is CPU %" PRIu32
		     ", every core first, then their siblings, node by node (checked for every CPU)",
		     t->cpus[0].linux_id, t->cpus[t->ncores].linux_id);
	else
		probe_yaml_line(f, "  ", "numbering", "smt-adjacent",
		     "[D] from the sibling lists: CPU %" PRIu32 "'s sibling is CPU %" PRIu32
		     ", siblings consecutive, cores node by node (checked for every CPU)",
		     t->cpus[0].linux_id, t->cpus[1].linux_id);
	if (t->clusters) {
		snprintf(v, sizeof(v), "%" PRIu32, t->cores_per_cluster);
		probe_yaml_line(f, "  ", "cores_per_cluster", v,
		     "[D] from cache/index*/shared_cpu_list: cores sharing a level-%" PRIu32 " cache of %" PRIu64 " KiB",
		     t->llc_level, t->llc_bytes >> 10);
	}
	snprintf(freq, sizeof(freq), "%" PRIu64 "kHz", t->freq_khz);
	if (t->freq_assumed)
		probe_yaml_line(f, "", "frequency", freq, "[A] %s; it converts the costs given in cycles (line_hold here, the kernel "
					       "designs' costs)",
		     t->freq_source);
	else
		probe_yaml_line(f, "", "frequency", freq,
		     "[M] read by futexsim probe: %s; it converts the costs given in cycles (line_hold here, the kernel "
		     "designs' costs); %s",
		     t->freq_source, read_stamp);
	if (t->nodes > 1) {
		probe_yaml_line(f, "", "distance", "", "[M] read by futexsim probe: node*/distance (ACPI SLIT) of the nodes above; %s",
		     read_stamp);
		for (uint32_t a = 0; a < t->nodes; a++) {
			fprintf(f, "  - [");
			for (uint32_t b = 0; b < t->nodes; b++)
				fprintf(f, "%s%" PRIu32, b ? ", " : "", t->distance[a * t->nodes + b]);
			fprintf(f, "]\n");
		}
	}

	mitigations(f, t);
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
	probe_yaml_line(f, "  ", "call_return", "0ns",
	     "[A] not measured here: what each call and return of the futex path pays under this kernel's "
	     "mitigations (a getppid loop makes few of them); futexsim probe --check fits it to this machine's own "
	     "futex loop (its anchored table)");
	probe_yaml_line(f, "  ", "line_hold", "10 cycles",
	     "[A] not measurable by futexsim probe: how long a core that just received a contended line keeps it "
	     "before a queued request takes it; 10 cycles, as the shipped presets assume");
	cost_line(f, "smt_slowdown", &r->smt_slowdown, true, stamp);
	probe_sched_render(f, t, r);
	uncertainty(f, t, r);
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
	const char *output;   /* -o FILE, "-" for stdout; with --check the CSV */
	const char *name;
	const char *root;
	double seconds;
	bool topology_only;
	bool check;           /* --check: the real futex loop beside the simulation */
	const char *machine;  /* --check --machine FILE.yaml; NULL: probe first */
	const char *kernel;   /* --check --kernel PRESET; NULL: probe_kernel_preset */
	bool no_anchor;       /* --check --no-anchor: no fit to the stock rows */
	bool no_blocking;     /* --check --no-blocking: the hash rows only */
};

static int parse_args(int argc, char **argv, struct probe_args *a, struct fs_error *e)
{
	memset(a, 0, sizeof(*a));
	a->root = "/";
	a->seconds = DEFAULT_SECONDS;
	for (int i = 2; i < argc; i++) {
		const char *arg = argv[i], *v;

		if (!strcmp(arg, "-o") || cli_is_option(arg, "--output")) {
			v = cli_option_value(argc, argv, &i, "--output");
			if (!v || !*v)
				return fs_fail(e, FS_ERR_USAGE, "futexsim probe: %s needs a file name (or - for standard output)",
					       arg);
			a->output = v;
		} else if (cli_is_option(arg, "--seconds")) {
			char *end;

			v = cli_option_value(argc, argv, &i, "--seconds");
			a->seconds = v && *v ? strtod(v, &end) : 0;
			if (!v || !*v || *end || !(a->seconds >= 0.1 && a->seconds <= MAX_SECONDS))
				return fs_fail(e, FS_ERR_USAGE, "futexsim probe: --seconds needs a number from 0.1 to %.0f",
					       MAX_SECONDS);
		} else if (cli_is_option(arg, "--name")) {
			v = cli_option_value(argc, argv, &i, "--name");
			if (!v || !*v || strpbrk(v, "\"\\\n"))
				return fs_fail(e, FS_ERR_USAGE,
					       "futexsim probe: --name needs a machine name (no quotes, backslashes or newlines)");
			a->name = v;
		} else if (cli_is_option(arg, "--root")) {
			v = cli_option_value(argc, argv, &i, "--root");
			if (!v || !*v)
				return fs_fail(e, FS_ERR_USAGE, "futexsim probe: --root needs a directory");
			a->root = v;
		} else if (!strcmp(arg, "--topology")) {
			a->topology_only = true;
		} else if (!strcmp(arg, "--check")) {
			a->check = true;
		} else if (!strcmp(arg, "--no-anchor")) {
			a->no_anchor = true;
		} else if (!strcmp(arg, "--no-blocking")) {
			a->no_blocking = true;
		} else if (cli_is_option(arg, "--machine")) {
			v = cli_option_value(argc, argv, &i, "--machine");
			if (!v || !*v)
				return fs_fail(e, FS_ERR_USAGE, "futexsim probe: --machine needs a machine file (FILE.yaml)");
			a->machine = v;
		} else if (cli_is_option(arg, "--kernel")) {
			v = cli_option_value(argc, argv, &i, "--kernel");
			if (!v || !*v || strpbrk(v, "'\n"))
				return fs_fail(e, FS_ERR_USAGE, "futexsim probe: --kernel needs a kernel preset name or file");
			a->kernel = v;
		} else {
			return fs_fail(e, FS_ERR_USAGE, "futexsim probe: unknown %s '%s' (see futexsim probe --help)",
				       arg[0] == '-' ? "option" : "argument", arg);
		}
	}
	if (a->check) {
		if (a->topology_only || strcmp(a->root, "/"))
			return fs_fail(e, FS_ERR_USAGE, "futexsim probe: --check runs on this machine (drop %s)",
				       a->topology_only ? "--topology" : "--root");
		if (a->output && !strcmp(a->output, "-"))
			return fs_fail(e, FS_ERR_USAGE, "futexsim probe --check: -o names the CSV file (not -)");
		if (a->machine && a->name)
			return fs_fail(e, FS_ERR_USAGE,
				       "futexsim probe --check: --name names a machine it probes (not with --machine)");
		return 0;
	}
	if (a->machine || a->kernel || a->no_anchor || a->no_blocking)
		return fs_fail(e, FS_ERR_USAGE, "futexsim probe: %s goes with --check",
			       a->machine ? "--machine" : a->kernel ? "--kernel" : a->no_anchor ? "--no-anchor" : "--no-blocking");
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

/* Measures this machine and writes its machine file to `output` ("-": standard
 * output), printing the values on `out`: the second half of `futexsim probe -o`,
 * and the first step of --check without --machine. */
static int measure_and_write(const struct probe_topology *t, const char *output, const char *given_name,
			     double seconds, FILE *out, struct fs_error *e)
{
	struct probe_results *r = NULL;
	struct probe_options o;
	char name[128];
	char *text = NULL;
	int rc;

	if (given_name)
		snprintf(name, sizeof(name), "%s", given_name);
	else if (strcmp(output, "-"))
		probe_name_from_path(output, name, sizeof(name));
	else
		snprintf(name, sizeof(name), "probed-%s", t->hostname);
	r = calloc(1, sizeof(*r));
	if (!r)
		return fs_fail(e, FS_ERR_RUNTIME, "out of memory");
	o.seconds = seconds;
	o.progress = stderr;
	rc = probe_measure(t, &o, r, e);
	if (rc == 0) {
		text = probe_render(t, r, name, e);
		rc = text ? 0 : -1;
	}
	if (rc == 0) {
		if (!strcmp(output, "-")) {
			rc = probe_verify(text, "<stdout>", t, e);
			if (rc == 0 && (fputs(text, stdout) == EOF || fflush(stdout) != 0))
				rc = fs_fail(e, FS_ERR_OUTPUT, "cannot write to standard output");
		} else {
			rc = probe_write(output, text, t, e);
		}
	}
	if (rc == 0) {
		probe_results_print(t, r, out);
		if (strcmp(output, "-"))
			fprintf(out,
				"wrote %s (machine '%s'); simulate it with e.g.\n"
				"  bin/futexsim run scenarios/quickstart.yaml --set machine=%s --set workload.threads=%" PRIu32 "\n",
				output, name, output, t->ncpus);
		fflush(out);
	}
	free(text);
	free(r);
	return rc;
}

static int check_command(const struct probe_args *a, struct fs_error *e);

int probe_command(int argc, char **argv, struct fs_error *e)
{
	struct probe_args a;
	struct probe_topology t;
	FILE *out;
	int rc;

	if (parse_args(argc, argv, &a, e) < 0)
		return e->status;
	if (a.check)
		return check_command(&a, e);
	out = a.output && !strcmp(a.output, "-") ? stderr : stdout;
	if (probe_topology_read(&t, a.root, e) < 0) {
		probe_topology_free(&t);
		return e->status;
	}
	probe_topology_print(&t, out);
	fprintf(out, "  CPU vulnerabilities the kernel reports:\n");
	probe_mitigations_print(&t, "    ", out);
	fprintf(out, "  mitigations: pti %s, spectre_v2 %s, return_thunk %s\n",
		probe_mitigation_pti(probe_vuln_text(&t, "meltdown")),
		probe_mitigation_spectre_v2(probe_vuln_text(&t, "spectre_v2")),
		probe_mitigation_return_thunk(probe_vuln_text(&t, "retbleed"), probe_vuln_text(&t, "spec_rstack_overflow")));
	fflush(out);
	if (a.topology_only) {
		probe_topology_free(&t);
		return FS_OK;
	}
	if (strcmp(a.output, "-") && check_writable(a.output, e) < 0) {
		probe_topology_free(&t);
		return e->status;
	}
	rc = measure_and_write(&t, a.output, a.name, a.seconds, out, e);
	probe_topology_free(&t);
	return rc < 0 ? (e->status ? e->status : FS_ERR_RUNTIME) : FS_OK;
}

/* ---- futexsim probe --check ------------------------------------------------------ */

#define CHECK_DEFAULT_MACHINE "results/host-machine.yaml"
#define CHECK_DEFAULT_CSV "results/host-check.csv"
#define CHECK_SIM_WINDOW "5ms"
#define CHECK_SIM_WARMUP "1ms"
#define CHECK_SEEDS 3u
#define CHECK_MIN_REPEATS 3u
#define CHECK_MAX_REPEATS 5u
#define CHECK_MIN_RUN_S 0.1
#define CHECK_PERF_RUN_S 1.0 /* perf bench futex hash -r 1 */
#define CHECK_MEDIAN_ROW "median |error|"

/* the private hash sizes set with PR_FUTEX_HASH, in table order (0: the global hash
 * last, as perf -b 0 would) */
static const int32_t check_buckets[] = { 2, 16, 128, 0 };

void probe_cpulist(const uint32_t *cpus, uint32_t n, char *out, size_t size)
{
	size_t len = 0;

	out[0] = '\0';
	for (uint32_t i = 0; i < n && len < size;) {
		uint32_t j = i;

		while (j + 1 < n && cpus[j + 1] == cpus[j] + 1)
			j++;
		if (j == i)
			len += (size_t)snprintf(out + len, size - len, "%s%" PRIu32, i ? "," : "", cpus[i]);
		else
			len += (size_t)snprintf(out + len, size - len, "%s%" PRIu32 "-%" PRIu32, i ? "," : "", cpus[i],
						cpus[j]);
		i = j + 1;
	}
}

void probe_check_scenarios_free(struct probe_check_scenario *s, uint32_t n)
{
	for (uint32_t i = 0; s && i < n; i++)
		free(s[i].cpus);
	free(s);
}

static int add_scenario(struct probe_check_scenario *list, uint32_t *n, const char *base, const uint32_t *cpus,
			uint32_t threads, bool shared, int32_t buckets)
{
	struct probe_check_scenario *s = &list[*n];

	memset(s, 0, sizeof(*s));
	s->cpus = malloc(threads * sizeof(*s->cpus));
	if (!s->cpus)
		return -1;
	memcpy(s->cpus, cpus, threads * sizeof(*s->cpus));
	s->threads = threads;
	s->shared = shared;
	s->buckets = buckets;
	s->perf_placement = true;
	for (uint32_t i = 0; i < threads; i++)
		s->perf_placement &= cpus[i] == i;
	if (buckets != PROBE_BUCKETS_AUTO)
		snprintf(s->name, sizeof(s->name), "%s -b %" PRId32, base, buckets);
	else
		snprintf(s->name, sizeof(s->name), "%s%s", base, shared ? " -S" : "");
	(*n)++;
	return 0;
}

int probe_check_scenarios(const struct probe_topology *t, bool private_hash, const char *hash_why,
			  struct probe_check_scenario **out, uint32_t *n, struct fs_error *e)
{
	uint32_t *all = malloc(t->ncpus * sizeof(*all)), *per_core = malloc(t->ncpus * sizeof(*per_core));
	uint32_t ncores = 0, counts[3], ncounts = 0;
	struct probe_check_scenario *list = calloc(3 * 2 + sizeof(check_buckets) / sizeof(check_buckets[0]),
						   sizeof(*list));
	int rc = 0;

	*out = NULL;
	*n = 0;
	if (!all || !per_core || !list) {
		rc = -1;
		goto out;
	}
	/* every CPU, and the first CPU of each core (in CPU order) */
	for (uint32_t c = 0; c < t->ncpus; c++) {
		bool first = true;

		all[c] = c;
		for (uint32_t d = 0; d < c && first; d++)
			first = t->cpus[d].core_key != t->cpus[c].core_key;
		if (first)
			per_core[ncores++] = c;
	}
	/* 1, one per core, every CPU: each count once */
	counts[ncounts++] = 1;
	if (ncores > 1)
		counts[ncounts++] = ncores;
	if (t->ncpus > ncores)
		counts[ncounts++] = t->ncpus;
	for (uint32_t k = 0; k < ncounts && rc == 0; k++) {
		uint32_t c = counts[k];
		const uint32_t *cpus = c == ncores && c < t->ncpus ? per_core : all;
		char base[PROBE_CHECK_SCENARIO_LEN];

		if (c == 1)
			snprintf(base, sizeof(base), "1 thread");
		else if (c < t->ncpus)
			snprintf(base, sizeof(base), "1/core (%" PRIu32 ")", c);
		else
			snprintf(base, sizeof(base), "all CPUs (%" PRIu32 ")", c);
		for (int shared = 0; shared < 2 && rc == 0; shared++)
			rc = add_scenario(list, n, base, cpus, c, shared, PROBE_BUCKETS_AUTO);
		if (k + 1 == ncounts)
			for (size_t b = 0; b < sizeof(check_buckets) / sizeof(check_buckets[0]) && rc == 0; b++) {
				rc = add_scenario(list, n, base, cpus, c, false, check_buckets[b]);
				if (rc == 0 && !private_hash)
					snprintf(list[*n - 1].skip, sizeof(list[*n - 1].skip), "%s",
						 hash_why && *hash_why ? hash_why : "no PR_FUTEX_HASH");
			}
	}
out:
	free(all);
	free(per_core);
	if (rc < 0) {
		probe_check_scenarios_free(list, *n);
		*n = 0;
		return fs_fail(e, FS_ERR_RUNTIME, "out of memory");
	}
	*out = list;
	return 0;
}

/* ---- the table ------------------------------------------------------------------- */

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of v[0..n) (sorted in place); NAN when n is 0. */
/* The median of v's n values; sorts v. */
static double median_of(double *v, uint32_t n)
{
	if (!n)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_dbl);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Whether a row is one of the blocking suites' (not perf bench futex hash's). */
static bool is_blocking(const struct probe_check_row *r)
{
	return r->suite[0] && strcmp(r->suite, "hash");
}

double probe_check_median_abs_error(struct probe_check_table *t)
{
	double *v = malloc((t->n ? t->n : 1) * sizeof(*v));
	uint32_t k = 0;

	t->blocking_median = t->blocking_max = NAN;
	if (!v)
		return t->median_abs_error = NAN;
	for (int blocking = 1; blocking >= 0; blocking--) {
		k = 0;
		for (uint32_t i = 0; i < t->n; i++)
			if (!isnan(t->rows[i].error_pct) && is_blocking(&t->rows[i]) == (bool)blocking)
				v[k++] = fabs(t->rows[i].error_pct);
		if (blocking) {
			t->blocking_median = median_of(v, k); /* sorts v */
			t->blocking_max = k ? v[k - 1] : NAN;
		} else {
			t->median_abs_error = median_of(v, k);
		}
	}
	free(v);
	return t->median_abs_error;
}

/* A figure in its unit: ms as perf prints them (4 decimals), rates whole. */
static void fmt_ops(char *buf, size_t size, double v, const char *unit)
{
	if (isnan(v))
		snprintf(buf, size, "-");
	else if (!strcmp(unit, "ms"))
		snprintf(buf, size, "%.4f", v);
	else
		snprintf(buf, size, "%.0f", v);
}

static void print_row(const struct probe_check_row *r, FILE *f)
{
	char real[32], lo[32], hi[32], spread[80], perf[32], sim[32], err[16];

	fmt_ops(real, sizeof(real), r->real, r->unit);
	fmt_ops(lo, sizeof(lo), r->real_min, r->unit);
	fmt_ops(hi, sizeof(hi), r->real_max, r->unit);
	if (isnan(r->real))
		snprintf(spread, sizeof(spread), "(not run)");
	else
		snprintf(spread, sizeof(spread), "(%s-%s, %" PRIu32 ")", lo, hi, r->repeats);
	fmt_ops(perf, sizeof(perf), r->perf, r->unit);
	fmt_ops(sim, sizeof(sim), r->sim, r->unit);
	if (isnan(r->error_pct))
		snprintf(err, sizeof(err), "-");
	else
		snprintf(err, sizeof(err), "%+.1f%%", r->error_pct);
	fprintf(f, "%-26s %10s %-23s %10s %10s %8s\n", r->scenario, real, spread, perf, sim, err);
}

void probe_check_print(const struct probe_check_table *t, FILE *f)
{
	uint32_t nerr = 0, nblock = 0, nblock_err = 0, nnotes = 0;

	fprintf(f, "%-26s %10s %-23s %10s %10s %8s\n", "scenario", "real", "(min-max, runs)", "perf", "simulated",
		"error");
	for (uint32_t i = 0; i < t->n; i++) {
		const struct probe_check_row *r = &t->rows[i];

		if (is_blocking(r)) {
			nblock++;
			nblock_err += !isnan(r->error_pct);
			continue;
		}
		nerr += !isnan(r->error_pct);
		nnotes += r->note[0] != '\0';
		print_row(r, f);
	}
	if (isnan(t->median_abs_error))
		fprintf(f, "%s: no scenario has both a real and a simulated figure\n", CHECK_MEDIAN_ROW);
	else
		fprintf(f, "%s over %" PRIu32 " scenario%s: %.1f%%\n", CHECK_MEDIAN_ROW, nerr, nerr == 1 ? "" : "s",
			t->median_abs_error);
	if (nblock) {
		fprintf(f, "\nblocking suites (wake, wake-parallel, requeue: perf's ms a run, lower is faster; lock-pi: "
			   "ops/s; schbench: requests/s):\n");
		for (uint32_t i = 0; i < t->n; i++)
			if (is_blocking(&t->rows[i])) {
				nnotes += t->rows[i].note[0] != '\0';
				print_row(&t->rows[i], f);
			}
		if (isnan(t->blocking_median))
			fprintf(f, "blocking %s: no blocking row has both a real and a simulated figure\n", CHECK_MEDIAN_ROW);
		else
			fprintf(f, "blocking %s over %" PRIu32 " row%s: %.1f%%, max %.1f%%\n", CHECK_MEDIAN_ROW, nblock_err,
				nblock_err == 1 ? "" : "s", t->blocking_median, t->blocking_max);
	}
	if (nnotes) {
		fprintf(f, "notes:\n");
		for (uint32_t i = 0; i < t->n; i++)
			if (t->rows[i].note[0])
				fprintf(f, "  %s: %s\n", t->rows[i].scenario, t->rows[i].note);
	}
}

static const char *const csv_columns[] = {
	"scenario", "threads", "futexes", "buckets", "repeats", "real_median", "real_min", "real_max",
	"real_stderr_pct", "perf", "perf_stderr_pct", "simulated", "simulated_min", "simulated_max", "error_pct",
	"suite", "unit", "note", NULL,
};
#define CSV_NCOLUMNS 18
#define CSV_ERROR 14 /* the error_pct column */
#define CHECK_BLOCKING_MEDIAN_ROW "blocking median |error|"
#define CHECK_BLOCKING_MAX_ROW "blocking max |error|"

/* A field and its separator: a comma, or CRLF after the last (RFC 4180). */
static void csv_field(FILE *f, const char *s, bool last)
{
	results_csv_text(f, s);
	fputs(last ? "\r\n" : ",", f);
}

static void csv_num(FILE *f, double v, int decimals)
{
	char buf[48] = "";

	if (!isnan(v))
		snprintf(buf, sizeof(buf), "%.*f", decimals, v);
	csv_field(f, buf, false);
}

char *probe_check_csv(const struct probe_check_table *t)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	for (int c = 0; csv_columns[c]; c++)
		csv_field(f, csv_columns[c], !csv_columns[c + 1]);
	for (uint32_t i = 0; i < t->n; i++) {
		const struct probe_check_row *r = &t->rows[i];
		const int d = !strcmp(r->unit, "ms") ? 4 : 0; /* ms as perf prints them, rates whole */
		char buf[32];

		csv_field(f, r->scenario, false);
		snprintf(buf, sizeof(buf), "%" PRIu32, r->threads);
		csv_field(f, buf, false);
		csv_field(f, r->shared ? "shared" : "private", false);
		if (r->buckets == PROBE_BUCKETS_AUTO)
			snprintf(buf, sizeof(buf), "auto");
		else
			snprintf(buf, sizeof(buf), "%" PRId32, r->buckets);
		csv_field(f, buf, false);
		snprintf(buf, sizeof(buf), "%" PRIu32, r->repeats);
		csv_field(f, buf, false);
		csv_num(f, r->real, d);
		csv_num(f, r->real_min, d);
		csv_num(f, r->real_max, d);
		csv_num(f, r->real_stderr_pct, 2);
		csv_num(f, r->perf, d);
		csv_num(f, r->perf_stderr_pct, 2);
		csv_num(f, r->sim, d);
		csv_num(f, r->sim_min, d);
		csv_num(f, r->sim_max, d);
		csv_num(f, r->error_pct, 2);
		csv_field(f, r->suite[0] ? r->suite : "hash", false);
		csv_field(f, r->unit[0] ? r->unit : "ops/s", false);
		csv_field(f, r->note, true);
	}
	{
		const char *names[] = { CHECK_MEDIAN_ROW, CHECK_BLOCKING_MEDIAN_ROW, CHECK_BLOCKING_MAX_ROW };
		const double values[] = { t->median_abs_error, t->blocking_median, t->blocking_max };

		for (int k = 0; k < 3; k++) {
			if (k && isnan(values[k]))
				continue; /* no blocking rows compared */
			csv_field(f, names[k], false);
			for (int c = 1; c < CSV_ERROR; c++)
				csv_field(f, "", false);
			csv_num(f, values[k], 2);
			for (int c = CSV_ERROR + 1; c < CSV_NCOLUMNS; c++)
				csv_field(f, "", c + 1 == CSV_NCOLUMNS);
		}
	}
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

int probe_check_csv_write(const char *path, const struct probe_check_table *t, struct fs_error *e)
{
	char tmp[4200];
	char *text = probe_check_csv(t);
	int fd, rc = 0;

	if (!text)
		return fs_fail(e, FS_ERR_RUNTIME, "out of memory");
	fd = make_temp(path, tmp, sizeof(tmp), e);
	if (fd < 0) {
		free(text);
		return -1;
	}
	if (write_all(fd, text) < 0 || fsync(fd) < 0)
		rc = fs_fail(e, FS_ERR_OUTPUT, "cannot write %s: %s", tmp, strerror(errno));
	if (close(fd) < 0 && rc == 0)
		rc = fs_fail(e, FS_ERR_OUTPUT, "cannot write %s: %s", tmp, strerror(errno));
	if (rc == 0 && rename(tmp, path) != 0)
		rc = fs_fail(e, FS_ERR_OUTPUT, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
	if (rc < 0)
		unlink(tmp);
	free(text);
	return rc;
}

void probe_check_table_free(struct probe_check_table *t)
{
	free(t->rows);
	memset(t, 0, sizeof(*t));
}

/* One CSV record from *p into fields (each up to `width` bytes, truncated beyond);
 * advances *p past its line break. The number of fields; -1 at the end of text or
 * on an unterminated quote. */
static int csv_record(const char **p, char fields[][PROBE_CHECK_NOTE_LEN], int max)
{
	const char *s = *p;
	int n = 0;

	if (!*s)
		return -1;
	for (;;) {
		size_t len = 0;
		char *out = n < max ? fields[n] : NULL;

		if (*s == '"') {
			for (s++;; s++) {
				if (!*s)
					return -1;
				if (*s == '"') {
					if (s[1] != '"')
						break;
					s++;
				}
				if (out && len + 1 < PROBE_CHECK_NOTE_LEN)
					out[len++] = *s;
			}
			s++;
		} else {
			for (; *s && *s != ',' && *s != '\r' && *s != '\n'; s++)
				if (out && len + 1 < PROBE_CHECK_NOTE_LEN)
					out[len++] = *s;
		}
		if (out)
			out[len] = '\0';
		n++;
		if (*s == ',') {
			s++;
			continue;
		}
		if (*s == '\r')
			s++;
		if (*s == '\n')
			s++;
		else if (*s)
			return -1; /* text after a closing quote */
		break;
	}
	*p = s;
	return n;
}

static int csv_double(const char *s, double *v)
{
	char *end;

	if (!*s) {
		*v = NAN;
		return 0;
	}
	*v = strtod(s, &end);
	return *end ? -1 : 0;
}

static int csv_u32(const char *s, uint32_t *v)
{
	char *end;
	unsigned long x = strtoul(s, &end, 10);

	if (!*s || *end || x > UINT32_MAX)
		return -1;
	*v = (uint32_t)x;
	return 0;
}

int probe_check_csv_read(const char *path, struct probe_check_table *t, struct fs_error *e)
{
	static char fields[CSV_NCOLUMNS + 1][PROBE_CHECK_NOTE_LEN];
	FILE *f = fopen(path, "r");
	char *text = NULL;
	const char *p;
	long len;
	int nf, line = 1, rc = 0;

	memset(t, 0, sizeof(*t));
	t->median_abs_error = t->blocking_median = t->blocking_max = NAN;
	if (!f)
		return fs_fail(e, FS_ERR_INPUT, "%s: %s", path, strerror(errno));
	if (fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0 ||
	    !(text = calloc(1, (size_t)len + 1)) || fread(text, 1, (size_t)len, f) != (size_t)len) {
		fclose(f);
		free(text);
		return fs_fail(e, FS_ERR_INPUT, "%s: cannot read", path);
	}
	fclose(f);
	p = text;
	nf = csv_record(&p, fields, CSV_NCOLUMNS + 1);
	for (int c = 0; c < CSV_NCOLUMNS && nf == CSV_NCOLUMNS; c++)
		if (strcmp(fields[c], csv_columns[c]))
			nf = -1;
	if (nf != CSV_NCOLUMNS) {
		free(text);
		return fs_fail(e, FS_ERR_INPUT, "%s:1: not a futexsim probe --check table (header)", path);
	}
	while (rc == 0 && (nf = csv_record(&p, fields, CSV_NCOLUMNS + 1)) >= 0) {
		struct probe_check_row *r, *grown;

		line++;
		if (nf != CSV_NCOLUMNS) {
			rc = fs_fail(e, FS_ERR_INPUT, "%s:%d: %d fields, expected %d", path, line, nf, CSV_NCOLUMNS);
			break;
		}
		if (!strcmp(fields[0], CHECK_MEDIAN_ROW) || !strcmp(fields[0], CHECK_BLOCKING_MEDIAN_ROW) ||
		    !strcmp(fields[0], CHECK_BLOCKING_MAX_ROW)) {
			double *to = !strcmp(fields[0], CHECK_MEDIAN_ROW)	   ? &t->median_abs_error
				     : !strcmp(fields[0], CHECK_BLOCKING_MAX_ROW) ? &t->blocking_max
										  : &t->blocking_median;

			if (csv_double(fields[CSV_ERROR], to) < 0)
				rc = fs_fail(e, FS_ERR_INPUT, "%s:%d: bad error_pct '%s'", path, line, fields[CSV_ERROR]);
			continue;
		}
		grown = realloc(t->rows, (t->n + 1) * sizeof(*t->rows));
		if (!grown) {
			rc = fs_fail(e, FS_ERR_RUNTIME, "out of memory");
			break;
		}
		t->rows = grown;
		r = &t->rows[t->n++];
		memset(r, 0, sizeof(*r));
		snprintf(r->scenario, sizeof(r->scenario), "%.*s", (int)sizeof(r->scenario) - 1, fields[0]);
		snprintf(r->suite, sizeof(r->suite), "%.*s", (int)sizeof(r->suite) - 1, fields[15]);
		snprintf(r->unit, sizeof(r->unit), "%.*s", (int)sizeof(r->unit) - 1, fields[16]);
		snprintf(r->note, sizeof(r->note), "%.*s", (int)sizeof(r->note) - 1, fields[17]);
		r->shared = !strcmp(fields[2], "shared");
		r->buckets = PROBE_BUCKETS_AUTO;
		if (csv_u32(fields[1], &r->threads) < 0 || (!r->shared && strcmp(fields[2], "private")) ||
		    (strcmp(fields[3], "auto") && csv_u32(fields[3], (uint32_t *)&r->buckets) < 0) ||
		    csv_u32(fields[4], &r->repeats) < 0 || csv_double(fields[5], &r->real) < 0 ||
		    csv_double(fields[6], &r->real_min) < 0 || csv_double(fields[7], &r->real_max) < 0 ||
		    csv_double(fields[8], &r->real_stderr_pct) < 0 || csv_double(fields[9], &r->perf) < 0 ||
		    csv_double(fields[10], &r->perf_stderr_pct) < 0 || csv_double(fields[11], &r->sim) < 0 ||
		    csv_double(fields[12], &r->sim_min) < 0 || csv_double(fields[13], &r->sim_max) < 0 ||
		    csv_double(fields[14], &r->error_pct) < 0)
			rc = fs_fail(e, FS_ERR_INPUT, "%s:%d: a field is not what futexsim probe --check writes", path, line);
	}
	free(text);
	if (rc < 0)
		probe_check_table_free(t);
	return rc;
}

/* ---- the simulated side ---------------------------------------------------------- */

/* `s` as a single-quoted YAML scalar. */
static void yaml_quoted(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		fputc(*s, f);
	}
	fputc('\'', f);
}

int probe_check_simulate(const char *machine, const char *kernel, const struct probe_check_scenario *s,
			 uint64_t seed, double *averaged, int32_t *slots, struct fs_error *e)
{
	const char *tmpdir = getenv("TMPDIR");
	char path[4200];
	char *cpus = malloc((size_t)s->threads * 12 + 1);
	struct scenario sc;
	struct sim sim;
	FILE *f;
	int fd, rc = -1;
	uint64_t *per_thread;

	if (!cpus)
		return fs_fail(e, FS_ERR_RUNTIME, "out of memory");
	probe_cpulist(s->cpus, s->threads, cpus, (size_t)s->threads * 12 + 1);
	snprintf(path, sizeof(path), "%s/futexsim-check-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	fd = mkstemp(path);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		if (fd >= 0)
			close(fd);
		free(cpus);
		return fs_fail(e, FS_ERR_OUTPUT, "cannot write a scenario into %s: %s", path, strerror(errno));
	}
	fprintf(f, "# futexsim probe --check: %s\nname: probe-check\nmachine: ", s->name);
	yaml_quoted(f, machine);
	if (s->buckets == PROBE_BUCKETS_AUTO) {
		fprintf(f, "\nkernel: ");
		yaml_quoted(f, kernel);
	} else {
		fprintf(f, "\nkernel:\n  preset: ");
		yaml_quoted(f, kernel);
		fprintf(f, "\n  private_hash:\n    buckets: %" PRId32, s->buckets);
	}
	fprintf(f,
		"\nworkload:\n  type: hash-bench\n  threads: %" PRIu32 "\n  futexes: %u\n  shared: %s\n  cpus: '%s'\n"
		"run:\n  duration: " CHECK_SIM_WINDOW "\n  warmup: " CHECK_SIM_WARMUP "\n  seed: %" PRIu64 "\n"
		"output:\n  per_thread: false\n  hottest_lines: 0\n",
		s->threads, PROBE_CHECK_FUTEXES, s->shared ? "true" : "false", cpus, seed);
	free(cpus);
	if (fclose(f) != 0) {
		unlink(path);
		return fs_fail(e, FS_ERR_OUTPUT, "cannot write a scenario into %s", path);
	}
	if (scenario_load(&sc, path, NULL, 0, e) == 0) {
		if (sim_build(&sim, &sc, e) == 0 && sim_run(&sim, e) == 0) {
			per_thread = calloc(sim.nthreads ? sim.nthreads : 1, sizeof(*per_thread));
			if (!per_thread) {
				fs_fail(e, FS_ERR_RUNTIME, "out of memory");
			} else {
				for (uint32_t i = 0; i < sim.nthreads; i++)
					per_thread[i] = perf_ops_per_sec(sim.tasks.v[i].ops, sim_window_secs(&sim));
				*averaged = (double)perf_average(per_thread, sim.nthreads).mean;
				*slots = sim.ft.nprocs && sim.ft.procs[0].phash ? (int32_t)sim.ft.procs[0].phash->size : 0;
				free(per_thread);
				rc = 0;
			}
		}
		sim_free(&sim);
	}
	scenario_free(&sc);
	unlink(path);
	return rc;
}

/* ---- the command ----------------------------------------------------------------- */

/* The machine file describes this machine: loads, with t's CPUs, cores and nodes. */
static int check_machine_file(const char *path, const struct probe_topology *t, struct fs_error *e)
{
	struct yt_doc *d = yt_doc_new();
	struct fs_error load = { 0 };
	struct yt_node *root;
	struct machine m;
	int rc = 0;

	if (!d)
		return fs_fail(e, FS_ERR_RUNTIME, "out of memory");
	root = yt_load_file(d, path, &load);
	if (!root || machine_from_yaml(&m, root, &load) < 0) {
		yt_doc_free(d);
		return fs_fail(e, FS_ERR_INPUT, "%s", load.msg);
	}
	if (m.ncpus != t->ncpus || m.nodes != t->nodes || m.threads_per_core != t->threads_per_core ||
	    m.cores_per_node != t->cores_per_node)
		rc = fs_fail(e, FS_ERR_INPUT,
			     "%s describes %" PRIu32 " node(s) x %" PRIu32 " cores x %" PRIu32 " threads, this machine has %" PRIu32
			     " x %" PRIu32 " x %" PRIu32 ": --check compares a machine file with the machine it runs on "
			     "(probe this one: futexsim probe -o FILE.yaml)",
			     path, m.nodes, m.cores_per_node, m.threads_per_core, t->nodes, t->cores_per_node,
			     t->threads_per_core);
	for (uint32_t c = 0; rc == 0 && c < t->ncpus; c++)
		if (m.cpu_core[c] != t->cpus[c].core || m.cpu_node[c] != t->cpus[c].node)
			rc = fs_fail(e, FS_ERR_INPUT,
				     "%s puts CPU %" PRIu32 " on core %" PRIu32 " of node %" PRIu32 ", this machine on core %" PRIu32
				     " of node %" PRIu32 " (another machine's file? probe this one: futexsim probe -o FILE.yaml)",
				     path, c, m.cpu_core[c], m.cpu_node[c], t->cpus[c].core, t->cpus[c].node);
	machine_free(&m);
	yt_doc_free(d);
	return rc;
}

/* The directory of `path`, created when missing (results/ of a fresh checkout). */
static void make_parent(const char *path)
{
	char dir[4096];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		(void)mkdir(dir, 0777);
	}
}

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void append_note(struct probe_check_row *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void append_note(struct probe_check_row *r, const char *fmt, ...)
{
	size_t len = strlen(r->note);
	va_list ap;

	if (len && len + 2 < sizeof(r->note)) {
		snprintf(r->note + len, sizeof(r->note) - len, "; ");
		len += 2;
	}
	va_start(ap, fmt);
	vsnprintf(r->note + len, sizeof(r->note) - len, fmt, ap);
	va_end(ap);
}

/* The simulations of every scenario, seeds 1..CHECK_SEEDS: fast, so first, before
 * the real runs spend the budget. */
static void check_simulate_all(const char *machine, const char *kernel, const struct probe_check_scenario *sc,
			       uint32_t n, struct probe_check_row *rows, int32_t *sim_slots)
{
	for (uint32_t i = 0; i < n; i++) {
		double v[CHECK_SEEDS];
		uint32_t k = 0;

		if (sc[i].skip[0])
			continue;
		for (uint64_t seed = 1; seed <= CHECK_SEEDS; seed++) {
			struct fs_error err = { 0 };

			if (probe_check_simulate(machine, kernel, &sc[i], seed, &v[k], &sim_slots[i], &err) < 0) {
				fprintf(stderr, "futexsim probe --check: SIMULATION FAILED for %s (seed %" PRIu64 "): %s\n",
					sc[i].name, seed, err.msg);
				append_note(&rows[i], "simulation failed: %s", err.msg);
				k = 0;
				break;
			}
			k++;
		}
		if (k) {
			rows[i].sim = median_of(v, k); /* sorts v: its ends are the range */
			rows[i].sim_min = v[0];
			rows[i].sim_max = v[k - 1];
		}
		if (k)
			fprintf(stderr, "futexsim probe --check: simulated %-26s %10.0f ops/s (seeds 1-%u)\n", sc[i].name,
				rows[i].sim, CHECK_SEEDS);
	}
}

struct check_plan {
	uint32_t runnable, perf_runs, repeats;
	double run_s;
};

static bool perf_wanted(const struct probe_perf *perf, const struct probe_check_scenario *s)
{
	return perf->usable && s->perf_placement && !s->skip[0] && (s->buckets == PROBE_BUCKETS_AUTO || perf->buckets);
}

/* Splits the budget: perf's runs (1 s each) first, the rest among futexsim's runs,
 * CHECK_MIN_REPEATS to CHECK_MAX_REPEATS each (more only when runs would last over a
 * second), at least CHECK_MIN_RUN_S each. */
static void check_plan(const struct probe_check_scenario *sc, uint32_t n, const struct probe_perf *perf,
		       double budget, struct check_plan *p)
{
	double own;

	memset(p, 0, sizeof(*p));
	for (uint32_t i = 0; i < n; i++) {
		p->runnable += !sc[i].skip[0];
		p->perf_runs += perf_wanted(perf, &sc[i]);
	}
	own = budget - p->perf_runs * CHECK_PERF_RUN_S;
	if (own < budget / 2)
		own = budget / 2;
	p->repeats = CHECK_MIN_REPEATS;
	if (p->runnable) {
		double per = own / p->runnable;

		if (per > CHECK_MAX_REPEATS)
			p->repeats = CHECK_MAX_REPEATS;
		else if (per > CHECK_MIN_REPEATS)
			p->repeats = (uint32_t)per;
		p->run_s = own / (p->runnable * p->repeats);
	}
	if (p->run_s < CHECK_MIN_RUN_S)
		p->run_s = CHECK_MIN_RUN_S;
}

/* The real runs, round after round over the scenarios (a slow drift of the machine
 * then shows in every scenario's spread alike), perf's run after the first round's
 * own run of each scenario. */
static int check_real_all(const struct probe_topology *t, const struct probe_check_scenario *sc, uint32_t n,
			  const struct check_plan *plan, struct probe_perf *perf, struct probe_check_row *rows,
			  int32_t *real_slots, struct fs_error *e)
{
	double *avg = calloc((size_t)n * plan->repeats + 1, sizeof(*avg));
	double *pct = calloc((size_t)n * plan->repeats + 1, sizeof(*pct));
	uint32_t *linux_cpus = malloc(t->ncpus * sizeof(*linux_cpus));
	uint32_t done = 0, total = plan->runnable * plan->repeats;
	int rc = 0;

	if (!avg || !pct || !linux_cpus) {
		free(avg);
		free(pct);
		free(linux_cpus);
		return fs_fail(e, FS_ERR_RUNTIME, "out of memory");
	}
	for (uint32_t round = 0; round < plan->repeats && rc == 0; round++) {
		for (uint32_t i = 0; i < n && rc == 0; i++) {
			const struct probe_check_scenario *s = &sc[i];
			struct probe_futex_run run = { s->threads, linux_cpus, PROBE_CHECK_FUTEXES, s->shared, s->buckets,
						       plan->run_s };
			struct probe_futex_result res;
			char why[320];
			int got;

			if (s->skip[0] || (round > 0 && rows[i].repeats < round))
				continue; /* skipped, or refused in an earlier round */
			for (uint32_t k = 0; k < s->threads; k++)
				linux_cpus[k] = t->cpus[s->cpus[k]].linux_id;
			got = probe_futex_run(&run, &res, why, sizeof(why), e);
			done++;
			if (got < 0) {
				rc = -1;
				break;
			}
			if (got > 0) {
				fprintf(stderr, "futexsim probe --check: SKIPPED %s: %s\n", s->name, why);
				append_note(&rows[i], "not run: %s", why);
				continue;
			}
			avg[i * plan->repeats + rows[i].repeats] = res.averaged;
			pct[i * plan->repeats + rows[i].repeats] = res.stderr_pct;
			rows[i].repeats++;
			real_slots[i] = res.slots;
			if (res.unexpected && !strstr(rows[i].note, "did not return EAGAIN"))
				append_note(&rows[i], "%" PRIu64 " futex calls did not return EAGAIN", res.unexpected);
			fprintf(stderr,
				"futexsim probe --check: [%" PRIu32 "/%" PRIu32 "] %-26s %10.0f ops/s (+- %.2f%%, %.2f s)\n",
				done, total, s->name, res.averaged, res.stderr_pct, res.seconds);
			if (round == 0 && perf_wanted(perf, s)) {
				double pa, ps;

				if (probe_perf_run(perf, s->threads, s->shared, s->buckets, &pa, &ps, why, sizeof(why)) == 0) {
					rows[i].perf = pa;
					rows[i].perf_stderr_pct = ps;
					fprintf(stderr, "futexsim probe --check:   perf bench futex hash: %10.0f ops/s\n", pa);
				} else {
					fprintf(stderr, "futexsim probe --check: perf SKIPPED for %s: %s\n", s->name, why);
					append_note(&rows[i], "perf: %s", why);
				}
			}
		}
	}
	for (uint32_t i = 0; i < n && rc == 0; i++) {
		double *v = &avg[i * plan->repeats];
		uint32_t k = rows[i].repeats;

		if (!k)
			continue;
		rows[i].real = median_of(v, k); /* sorts v: its ends are the range */
		rows[i].real_min = v[0];
		rows[i].real_max = v[k - 1];
		rows[i].real_stderr_pct = median_of(&pct[i * plan->repeats], k);
	}
	free(avg);
	free(pct);
	free(linux_cpus);
	return rc;
}

static void slots_text(char *buf, size_t size, int32_t slots)
{
	if (slots < 0)
		snprintf(buf, size, "unknown (no PR_FUTEX_HASH: the global hash)");
	else if (slots == 0)
		snprintf(buf, size, "global hash");
	else
		snprintf(buf, size, "%" PRId32 " slots", slots);
}

/* "DIR/STEM" of `path` without its extension, then `suffix`. */
static void beside(char *out, size_t size, const char *path, const char *ext, const char *suffix)
{
	size_t len = strlen(path), elen = strlen(ext);

	if (len > elen && !strcmp(path + len - elen, ext))
		len -= elen;
	snprintf(out, size, "%.*s%s", (int)len, path, suffix);
}

/* The anchored table: the machine fitted (futexsim fit) to this machine's own stock
 * rows, the real loop's figures of the scenarios without -b (the kernel's own
 * sizing: what a user of the stock kernel runs), and every scenario simulated again
 * on the fitted file: the -b rows are then predictions. */
static int anchor(const char *machine, const char *kernel, const char *csv, const struct probe_check_scenario *sc,
		  uint32_t nhash, const struct probe_check_table *measured, struct fs_error *e)
{
	char rows_path[4200], fitted[4200], anchored_csv[4200];
	struct probe_check_table t = { NULL, nhash, NAN, NAN, NAN };
	struct fit_request req = { .measurements = rows_path, .output = fitted, .quiet = true };
	int32_t *slots = calloc(nhash ? nhash : 1, sizeof(*slots));
	uint32_t nrows = 0;
	FILE *f;
	int rc = -1;

	beside(rows_path, sizeof(rows_path), csv, ".csv", "-stock-rows.yaml");
	beside(fitted, sizeof(fitted), machine, ".yaml", "-anchored.yaml");
	beside(anchored_csv, sizeof(anchored_csv), csv, ".csv", "-anchored.csv");
	t.rows = calloc(nhash ? nhash : 1, sizeof(*t.rows));
	if (!t.rows || !slots) {
		fs_fail(e, FS_ERR_RUNTIME, "out of memory");
		goto out;
	}
	if (!(f = fopen(rows_path, "w"))) {
		fs_fail(e, FS_ERR_OUTPUT, "futexsim probe --check: cannot write %s: %s", rows_path, strerror(errno));
		goto out;
	}
	fprintf(f, "# futexsim probe --check: this machine's stock-kernel rows (the real loop's median figure of\n"
		   "# each scenario without -b), the measurements futexsim fit anchors the probed machine on.\n"
		   "machine: ");
	yaml_quoted(f, machine);
	fprintf(f, "\nruns:\n");
	for (uint32_t i = 0; i < nhash; i++) {
		const struct probe_check_row *r = &measured->rows[i];
		char cpus[4096];

		if (sc[i].buckets != PROBE_BUCKETS_AUTO || sc[i].skip[0] || !(r->real > 0))
			continue;
		probe_cpulist(sc[i].cpus, sc[i].threads, cpus, sizeof(cpus));
		fprintf(f, "  - {perf: \"perf bench futex hash -t %" PRIu32 "%s\", cpus: '%s', kernel: ", sc[i].threads,
			sc[i].shared ? " -S" : "", cpus);
		yaml_quoted(f, kernel);
		fprintf(f, ", averaged: %.1f}\n", r->real);
		nrows++;
	}
	if (fclose(f) != 0 || !nrows) {
		fs_fail(e, FS_ERR_OUTPUT, "futexsim probe --check: %s: %s", rows_path,
			nrows ? "cannot write it" : "no stock row has a real figure to anchor on");
		goto out;
	}
	fprintf(stderr, "futexsim probe --check: fitting %s to the %" PRIu32 " stock rows (%s)\n", machine, nrows,
		rows_path);
	if (fit_file(&req, e) < 0)
		goto out;
	for (uint32_t i = 0; i < t.n; i++) {
		struct probe_check_row *r = &t.rows[i];

		*r = measured->rows[i];
		r->sim = r->sim_min = r->sim_max = r->error_pct = NAN;
	}
	check_simulate_all(fitted, kernel, sc, t.n, t.rows, slots);
	for (uint32_t i = 0; i < t.n; i++) {
		struct probe_check_row *r = &t.rows[i];

		if (!isnan(r->real) && !isnan(r->sim) && r->real > 0)
			r->error_pct = 100.0 * (r->sim / r->real - 1.0);
		snprintf(r->note, sizeof(r->note), "%s",
			 sc[i].buckets == PROBE_BUCKETS_AUTO ? "a fit row" : "predicted from the fit");
	}
	probe_check_median_abs_error(&t);
	printf("\nanchored: %s fitted to this machine's %" PRIu32 " stock rows (%s), every scenario simulated again:\n",
	       fitted, nrows, rows_path);
	probe_check_print(&t, stdout);
	if (probe_check_csv_write(anchored_csv, &t, e) < 0)
		goto out;
	printf("wrote %s and %s\n", fitted, anchored_csv);
	rc = 0;
out:
	free(slots);
	free(t.rows);
	return rc;
}


/* ---- the blocking rows ------------------------------------------------------------ */

#define CHECK_BLOCK_REPEATS 3u
#define CHECK_BLOCK_MAX_N 8u        /* the rows' thread counts scale with the CPUs up to this */
#define CHECK_PERF_REPEAT 5u        /* perf bench -r: runs of a wake suite per invocation */
#define CHECK_LOCK_PI_REAL_S 1      /* perf bench futex lock-pi -r (whole seconds) */
#define CHECK_LOCK_PI_SIM "0.1"     /* ... simulated seconds */
#define CHECK_BLOCK_MAX_RUN_S 1.0   /* schbench's and futexsim's own lock-pi runs: --seconds / 20 in 0.2-1 s */
#define CHECK_BLOCK_MIN_RUN_S 0.2
#define CHECK_SCHBENCH_WINDOW "20ms"
#define CHECK_SCHBENCH_WARMUP "2ms"
#define CHECK_SB_EXTRA 3            /* futex calls per request, wake-up latency p50, p99 (us) */

static void add_block(struct probe_block_scenario *b, uint32_t *n, const char *suite, const char *unit,
		      uint32_t threads, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static void add_block(struct probe_block_scenario *b, uint32_t *n, const char *suite, const char *unit,
		      uint32_t threads, const char *fmt, ...)
{
	struct probe_block_scenario *x = &b[(*n)++];
	va_list ap;

	memset(x, 0, sizeof(*x));
	snprintf(x->suite, sizeof(x->suite), "%s", suite);
	snprintf(x->unit, sizeof(x->unit), "%s", unit);
	x->threads = threads;
	va_start(ap, fmt);
	vsnprintf(x->name, sizeof(x->name), fmt, ap);
	va_end(ap);
}

int probe_block_scenarios(const struct probe_topology *t, struct probe_block_scenario **out, uint32_t *n,
			  struct fs_error *e)
{
	const uint32_t c = t->ncpus < CHECK_BLOCK_MAX_N ? t->ncpus : CHECK_BLOCK_MAX_N;
	struct probe_block_scenario *b = calloc(8, sizeof(*b));
	const uint32_t wake[] = { c, 4 * c };

	*n = 0;
	*out = b;
	if (!b)
		return fs_fail(e, FS_ERR_RUNTIME, "out of memory");
	for (int k = 0; k < 2; k++) {
		add_block(b, n, "wake", "ms", wake[k], "wake -t %" PRIu32, wake[k]);
		snprintf(b[*n - 1].real, sizeof(b->real), "perf bench -r %u futex wake -t %" PRIu32, CHECK_PERF_REPEAT, wake[k]);
	}
	add_block(b, n, "wake-parallel", "ms", 2 * c, "wake-parallel -t %" PRIu32 " -w %" PRIu32, 2 * c, c);
	snprintf(b[*n - 1].real, sizeof(b->real), "perf bench -r %u futex wake-parallel -t %" PRIu32 " -w %" PRIu32,
		 CHECK_PERF_REPEAT, 2 * c, c);
	add_block(b, n, "requeue", "ms", 2 * c, "requeue -t %" PRIu32, 2 * c);
	snprintf(b[*n - 1].real, sizeof(b->real), "perf bench -r %u futex requeue -t %" PRIu32, CHECK_PERF_REPEAT, 2 * c);
	for (int multi = 0; multi < 2; multi++) {
		add_block(b, n, "lock-pi", "ops/s", c, "lock-pi -t %" PRIu32 "%s", c, multi ? " -M" : "");
		snprintf(b[*n - 1].real, sizeof(b->real), "perf bench futex lock-pi -t %" PRIu32 "%s -r %d", c,
			 multi ? " -M" : "", CHECK_LOCK_PI_REAL_S);
		snprintf(b[*n - 1].sim, sizeof(b->sim), "perf bench futex lock-pi -t %" PRIu32 "%s -r " CHECK_LOCK_PI_SIM, c,
			 multi ? " -M" : "");
	}
	for (uint32_t i = 0; i < *n; i++)
		if (!b[i].sim[0])
			snprintf(b[i].sim, sizeof(b[i].sim), "%s", b[i].real);
	/* schbench -m 1 -t N and -m N -t 2N: on 2 CPUs -m 1 -t 2 and -m 2 -t 4 */
	for (int k = 0; k < 2; k++) {
		uint32_t m = k ? c : 1, w = k ? 2 * c : c;

		add_block(b, n, "schbench", "requests/s", m * (w + 1), "schbench -m %" PRIu32 " -t %" PRIu32, m, w);
		b[*n - 1].m = m;
		b[*n - 1].t = w;
	}
	return 0;
}

/* `s` single-quoted for YAML into out. */
static void yaml_quote_into(char *out, size_t size, const char *s)
{
	size_t n = 0;

	if (size < 3) {
		if (size)
			out[0] = '\0';
		return;
	}
	out[n++] = '\'';
	for (; *s && n + 3 < size; s++) {
		if (*s == '\'')
			out[n++] = '\'';
		out[n++] = *s;
	}
	out[n++] = '\'';
	out[n] = '\0';
}

/* One blocking row simulated for `seed` on `machine` with kernel `kernel`: the
 * figure perf (or schbench) prints, and for schbench its futex calls per request
 * and wake-up latency p50 and p99 (us) into extra. */
static int block_simulate(const char *machine, const char *kernel, const struct probe_block_scenario *b, uint64_t seed,
			  double *figure, double *extra, struct fs_error *e)
{
	struct perfbench_sets *sets = calloc(1, sizeof(*sets));
	enum perfbench_figure kind = PERF_FIGURE_OPS_PER_SEC;
	char quoted[4200], msg[400], *text = NULL;
	const bool sb = !strcmp(b->suite, "schbench");
	struct results res;
	struct scenario sc;
	struct sim sim;
	size_t len = 0;
	FILE *out;
	int rc = -1;

	*figure = NAN;
	if (!sets)
		return fs_fail(e, FS_ERR_RUNTIME, "out of memory");
	yaml_quote_into(quoted, sizeof(quoted), machine);
	if (!sb) {
		if (perfbench_line_sets(b->sim, quoted, kernel, NULL, sets, &kind, msg, sizeof(msg)) < 0) {
			free(sets);
			return fs_fail(e, FS_ERR_RUNTIME, "%s: %s", b->sim, msg);
		}
	} else {
		const char *keys[] = { "name", "machine", "kernel", "workload.type", "run.duration", "run.warmup",
				       "output.per_thread", "output.hottest_lines" };
		const char *vals[] = { "probe-check-schbench", quoted, kernel, "schbench", CHECK_SCHBENCH_WINDOW,
				       CHECK_SCHBENCH_WARMUP, "false", "0" };

		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			snprintf(sets->buf[sets->n++], sizeof(sets->buf[0]), "%s=%s", keys[k], vals[k]);
		snprintf(sets->buf[sets->n++], sizeof(sets->buf[0]), "workload.message_threads=%" PRIu32, b->m);
		snprintf(sets->buf[sets->n++], sizeof(sets->buf[0]), "workload.workers=%" PRIu32, b->t);
		for (size_t k = 0; k < sets->n; k++)
			sets->v[k] = sets->buf[k];
	}
	snprintf(sets->buf[sets->n], sizeof(sets->buf[0]), "run.seed=%" PRIu64, seed);
	sets->v[sets->n] = sets->buf[sets->n];
	sets->n++;
	memset(&sim, 0, sizeof(sim));
	memset(&res, 0, sizeof(res));
	if (scenario_load(&sc, "/dev/null", sets->v, sets->n, e) == 0 && sim_build(&sim, &sc, e) == 0 &&
	    sim_run(&sim, e) == 0) {
		if (results_from_sim(&res, &sim, 0, 0) < 0) {
			fs_fail(e, FS_ERR_RUNTIME, "out of memory");
		} else if (sb) {
			static const char *const names[] = { "futex_calls_per_request", "wakeup_latency_p50",
							     "wakeup_latency_p99" };

			for (uint32_t k = 0; k < res.nfigures; k++) {
				if (!strcmp(res.figures[k].name, "rps"))
					*figure = res.figures[k].value;
				for (int x = 0; x < CHECK_SB_EXTRA; x++)
					if (!strcmp(res.figures[k].name, names[x]))
						extra[x] = res.figures[k].value / (x ? 1e6 : 1); /* ps -> us */
			}
			rc = isnan(*figure) ? fs_fail(e, FS_ERR_RUNTIME, "the simulation gave no rps") : 0;
		} else if ((out = open_memstream(&text, &len))) {
			results_print_perf(&res, 1, out);
			fclose(out);
			rc = perfbench_output_figure(text, kind, figure) < 0
				     ? fs_fail(e, FS_ERR_RUNTIME, "the simulation printed no summary line of perf's")
				     : 0;
			free(text);
		}
		results_free(&res);
	}
	sim_free(&sim);
	scenario_free(&sc);
	free(sets);
	return rc;
}

/* The blocking rows simulated, seeds 1..CHECK_SEEDS: the median into rows[i].sim,
 * schbench's extras (medians) into extra[i]. */
static void check_block_simulate(const char *machine, const char *kernel, const struct probe_block_scenario *bs,
				 uint32_t nb, struct probe_check_row *rows, double (*extra)[CHECK_SB_EXTRA])
{
	for (uint32_t i = 0; i < nb; i++) {
		double v[CHECK_SEEDS], x[CHECK_SB_EXTRA][CHECK_SEEDS];
		uint32_t k = 0;

		for (uint64_t seed = 1; seed <= CHECK_SEEDS; seed++) {
			struct fs_error err = { 0 };
			double ex[CHECK_SB_EXTRA] = { NAN, NAN, NAN };

			if (block_simulate(machine, kernel, &bs[i], seed, &v[k], ex, &err) < 0) {
				fprintf(stderr, "futexsim probe --check: SIMULATION FAILED for %s (seed %" PRIu64 "): %s\n",
					bs[i].name, seed, err.msg);
				append_note(&rows[i], "simulation failed: %s", err.msg);
				k = 0;
				break;
			}
			for (int j = 0; j < CHECK_SB_EXTRA; j++)
				x[j][k] = ex[j];
			k++;
		}
		if (!k)
			continue;
		rows[i].sim = median_of(v, k);
		rows[i].sim_min = v[0];
		rows[i].sim_max = v[k - 1];
		for (int j = 0; j < CHECK_SB_EXTRA; j++)
			extra[i][j] = median_of(x[j], k);
		fprintf(stderr, "futexsim probe --check: simulated %-26s %10.4g %s (seeds 1-%u)\n", bs[i].name, rows[i].sim,
			bs[i].unit, CHECK_SEEDS);
	}
}

/* The blocking rows' real runs, CHECK_BLOCK_REPEATS rounds over the rows: perf's
 * suites by perf when it has the suite and the options, schbench by futexsim's
 * own loop. */
static int check_block_real(const struct probe_topology *t, const struct probe_block_scenario *bs, uint32_t nb,
			    struct probe_perf *perf, double run_s, struct probe_check_row *rows,
			    double (*extra)[CHECK_SB_EXTRA], struct fs_error *e)
{
	double *v = calloc((size_t)nb * CHECK_BLOCK_REPEATS * (1 + CHECK_SB_EXTRA), sizeof(*v));
	uint32_t *cpus = malloc(t->ncpus * sizeof(*cpus)), total = 0, done = 0;
	bool *run = calloc(nb ? nb : 1, sizeof(*run));
	struct probe_suite_run *own = calloc(nb ? nb : 1, sizeof(*own)); /* suite[0]: by perf */
	int rc = 0;

	if (!v || !cpus || !run || !own) {
		free(v);
		free(cpus);
		free(run);
		free(own);
		return fs_fail(e, FS_ERR_RUNTIME, "out of memory");
	}
	for (uint32_t c = 0; c < t->ncpus; c++)
		cpus[c] = t->cpus[c].linux_id;
	for (uint32_t i = 0; i < nb; i++) {
		char why[320], msg[320];

		run[i] = true;
		total += CHECK_BLOCK_REPEATS;
		if (!bs[i].real[0]) {
			append_note(&rows[i], "real: futexsim's copy of schbench -L's loop, %.1f s a run, median of %u", run_s,
				    CHECK_BLOCK_REPEATS);
		} else if (probe_perf_has(perf, bs[i].real, why, sizeof(why))) {
			append_note(&rows[i], "real: `%s`, median of %u runs", bs[i].real, CHECK_BLOCK_REPEATS);
		} else if (probe_suite_from_line(bs[i].real, t->ncpus, &own[i], msg, sizeof(msg)) == 0) {
			own[i].cpus = cpus;
			own[i].ncpus = t->ncpus;
			if (!strcmp(own[i].suite, "lock-pi"))
				own[i].seconds = run_s;
			append_note(&rows[i], "real: futexsim's loop of `%s` (%s%s), median of %u runs", bs[i].real,
				    strncmp(why, "not run: ", 9) ? "perf: " : "perf ", why, CHECK_BLOCK_REPEATS);
		} else {
			run[i] = false;
			total -= CHECK_BLOCK_REPEATS;
			fprintf(stderr, "futexsim probe --check: SKIPPED %s: %s; %s\n", bs[i].name, why, msg);
			append_note(&rows[i], "not run: %s; %s", why, msg);
		}
	}
	for (uint32_t round = 0; round < CHECK_BLOCK_REPEATS && rc == 0; round++) {
		for (uint32_t i = 0; i < nb && rc == 0; i++) {
			double *vi = &v[(size_t)i * CHECK_BLOCK_REPEATS * (1 + CHECK_SB_EXTRA)];
			char why[320];
			double fig = NAN;

			if (!run[i])
				continue;
			done++;
			if (own[i].suite[0]) {
				if (probe_suite_run(&own[i], &fig, e) < 0) {
					rc = -1;
					break;
				}
			} else if (!bs[i].real[0]) {
				struct probe_schbench_run r = { bs[i].m, bs[i].t, cpus, t->ncpus, run_s };
				struct probe_schbench_result res;

				if (probe_schbench_run(&r, &res, e) < 0) {
					rc = -1;
					break;
				}
				fig = res.rps;
				vi[CHECK_BLOCK_REPEATS + rows[i].repeats] =
					res.requests ? (double)res.futex_calls / (double)res.requests : NAN;
				vi[2 * CHECK_BLOCK_REPEATS + rows[i].repeats] = res.p50_us;
				vi[3 * CHECK_BLOCK_REPEATS + rows[i].repeats] = res.p99_us;
			} else {
				char *text = NULL;

				if (probe_perf_line(perf, bs[i].real, &text, why, sizeof(why)) < 0 ||
				    perfbench_output_figure(text, strcmp(bs[i].unit, "ms") ? PERF_FIGURE_OPS_PER_SEC : PERF_FIGURE_MS,
							    &fig) < 0) {
					if (text)
						snprintf(why, sizeof(why), "%.100s printed no summary line", bs[i].real);
					free(text);
					fprintf(stderr, "futexsim probe --check: SKIPPED %s: %s\n", bs[i].name, why);
					append_note(&rows[i], "not run: %s", why);
					run[i] = false;
					continue;
				}
				free(text);
			}
			vi[rows[i].repeats++] = fig;
			fprintf(stderr, "futexsim probe --check: [%" PRIu32 "/%" PRIu32 "] %-26s %10.4g %s\n", done, total,
				bs[i].name, fig, bs[i].unit);
		}
	}
	for (uint32_t i = 0; i < nb && rc == 0; i++) {
		double *vi = &v[(size_t)i * CHECK_BLOCK_REPEATS * (1 + CHECK_SB_EXTRA)];
		uint32_t k = rows[i].repeats;

		if (!k)
			continue;
		rows[i].real = median_of(vi, k); /* sorts: its ends are the range */
		rows[i].real_min = vi[0];
		rows[i].real_max = vi[k - 1];
		if (!bs[i].real[0]) {
			double x[CHECK_SB_EXTRA];

			for (int j = 0; j < CHECK_SB_EXTRA; j++)
				x[j] = median_of(&vi[(size_t)(j + 1) * CHECK_BLOCK_REPEATS], k);
			append_note(&rows[i],
				    "futex calls per request %.2f real, %.2f simulated; wake-up latency p50 %.0f us real, %.1f us "
				    "simulated, p99 %.0f us real, %.1f us simulated",
				    x[0], extra[i][0], x[1], extra[i][1], x[2], extra[i][2]);
		}
	}
	free(v);
	free(cpus);
	free(run);
	free(own);
	return rc;
}

static int check_command(const struct probe_args *a, struct fs_error *e)
{
	const char *csv = a->output ? a->output : CHECK_DEFAULT_CSV;
	const char *machine = a->machine ? a->machine : CHECK_DEFAULT_MACHINE, *kernel;
	char hash_why[320], *machine_abs = NULL;
	struct probe_topology t;
	struct probe_check_scenario *sc = NULL;
	struct probe_block_scenario *bs = NULL;
	double (*extra)[CHECK_SB_EXTRA] = NULL;
	struct probe_check_table table = { NULL, 0, NAN, NAN, NAN };
	struct probe_perf perf;
	struct check_plan plan;
	int32_t *real_slots = NULL, *sim_slots = NULL;
	uint32_t n = 0, nb = 0, compared = 0;
	/* schbench's and futexsim's own lock-pi runs: 1 s with the default budget, shorter with less */
	const double block_run_s = fmin(CHECK_BLOCK_MAX_RUN_S, fmax(CHECK_BLOCK_MIN_RUN_S, a->seconds / 20));
	bool private_hash;
	double t0 = wall_now();
	int rc = 0;

	if (probe_topology_read(&t, "/", e) < 0) {
		probe_topology_free(&t);
		return e->status;
	}
	kernel = a->kernel ? a->kernel : probe_kernel_preset(t.release);
	if (!kernel) {
		rc = fs_fail(e, FS_ERR_INPUT,
			     "futexsim probe --check: no kernel preset for kernel release '%s' (give one with --kernel)",
			     t.release);
		goto out;
	}
	if (!a->output)
		make_parent(csv);
	if (check_writable(csv, e) < 0 || probe_futex_check_affinity(&t, e) < 0) {
		rc = -1;
		goto out;
	}
	if (!a->machine) {
		/* probe first, into the file make host-check writes */
		make_parent(machine);
		fprintf(stderr, "futexsim probe --check: no --machine: probing this machine into %s first\n", machine);
		probe_topology_print(&t, stdout);
		if (check_writable(machine, e) < 0 ||
		    measure_and_write(&t, machine, a->name, a->seconds, stdout, e) < 0) {
			rc = -1;
			goto out;
		}
	}
	if (check_machine_file(machine, &t, e) < 0 || !(machine_abs = realpath(machine, NULL))) {
		if (!e->status)
			fs_fail(e, FS_ERR_INPUT, "%s: %s", machine, strerror(errno));
		rc = -1;
		goto out;
	}
	private_hash = probe_futex_hash_supported(hash_why, sizeof(hash_why));
	if (!private_hash)
		fprintf(stderr, "futexsim probe --check: SKIPPING the private hash sizes (-b): %s\n", hash_why);
	if (probe_check_scenarios(&t, private_hash, hash_why, &sc, &n, e) < 0) {
		rc = -1;
		goto out;
	}
	probe_perf_find(&perf);
	if (!perf.usable)
		fprintf(stderr, "futexsim probe --check: perf SKIPPED: %s\n", perf.why);
	else if (!perf.buckets)
		fprintf(stderr, "futexsim probe --check: perf -b SKIPPED: %s\n", perf.why);
	check_plan(sc, n, &perf, a->seconds, &plan);
	if (!a->no_blocking && probe_block_scenarios(&t, &bs, &nb, e) < 0) {
		rc = -1;
		goto out;
	}
	table.rows = calloc(n + nb, sizeof(*table.rows));
	extra = calloc(nb ? nb : 1, sizeof(*extra));
	real_slots = calloc(n, sizeof(*real_slots));
	sim_slots = calloc(n, sizeof(*sim_slots));
	if (!table.rows || !real_slots || !sim_slots || !extra) {
		rc = fs_fail(e, FS_ERR_RUNTIME, "out of memory");
		goto out;
	}
	table.n = n + nb;
	for (uint32_t i = n; i < n + nb; i++) {
		struct probe_check_row *r = &table.rows[i];
		const struct probe_block_scenario *b = &bs[i - n];

		snprintf(r->scenario, sizeof(r->scenario), "%s", b->name);
		snprintf(r->suite, sizeof(r->suite), "%s", b->suite);
		snprintf(r->unit, sizeof(r->unit), "%s", b->unit);
		r->threads = b->threads;
		r->buckets = PROBE_BUCKETS_AUTO;
		r->real = r->real_min = r->real_max = r->real_stderr_pct = NAN;
		r->perf = r->perf_stderr_pct = NAN;
		r->sim = r->sim_min = r->sim_max = r->error_pct = NAN;
		for (int j = 0; j < CHECK_SB_EXTRA; j++)
			extra[i - n][j] = NAN;
	}
	for (uint32_t i = 0; i < n; i++) {
		struct probe_check_row *r = &table.rows[i];

		snprintf(r->scenario, sizeof(r->scenario), "%s", sc[i].name);
		snprintf(r->suite, sizeof(r->suite), "hash");
		snprintf(r->unit, sizeof(r->unit), "ops/s");
		r->threads = sc[i].threads;
		r->shared = sc[i].shared;
		r->buckets = sc[i].buckets;
		r->real = r->real_min = r->real_max = r->real_stderr_pct = NAN;
		r->perf = r->perf_stderr_pct = NAN;
		r->sim = r->sim_min = r->sim_max = r->error_pct = NAN;
		if (sc[i].skip[0])
			snprintf(r->note, sizeof(r->note), "not run: %s", sc[i].skip);
		else if (perf.usable && !sc[i].perf_placement)
			snprintf(r->note, sizeof(r->note),
				 "perf not run: perf pins thread i to online CPU i, not to the first CPU of each core");
		else if (perf.usable && !perf.buckets && sc[i].buckets != PROBE_BUCKETS_AUTO)
			snprintf(r->note, sizeof(r->note), "perf not run: %s", perf.why);
	}
	fprintf(stdout,
		"futexsim probe --check: perf bench futex hash's loop on this machine (%s, kernel %s) and simulated on %s "
		"with kernel preset %s\n",
		t.model, t.release, machine, kernel);
	fprintf(stdout,
		"  real: futexsim's loop, %" PRIu32 " runs of %.2f s per scenario, interleaved (%" PRIu32
		" futexes per thread, thread i pinned to the scenario's CPU i); perf: %s\n"
		"  simulated: " CHECK_SIM_WINDOW " after " CHECK_SIM_WARMUP " of warm-up, seeds 1-%u; every figure is "
		"perf's Averaged: the mean over threads of each thread's ops/s\n",
		plan.repeats, plan.run_s, PROBE_CHECK_FUTEXES,
		perf.usable ? "one `perf bench futex hash -r 1` run" : perf.why, CHECK_SEEDS);
	fflush(stdout);
	if (nb)
		fprintf(stdout,
			"  blocking rows: perf bench futex wake, wake-parallel, requeue (-r %u) and lock-pi (-r %d), "
			"%u runs each (futexsim's own loop of a suite perf lacks), and futexsim's copy of schbench -L's loop "
			"(%.1f s, %u runs); simulated with the same "
			"seeds (schbench " CHECK_SCHBENCH_WINDOW " after " CHECK_SCHBENCH_WARMUP ", lock-pi " CHECK_LOCK_PI_SIM
			" s); --no-blocking leaves them out\n",
			CHECK_PERF_REPEAT, CHECK_LOCK_PI_REAL_S, CHECK_BLOCK_REPEATS, block_run_s, CHECK_BLOCK_REPEATS);
	fflush(stdout);
	check_simulate_all(machine_abs, kernel, sc, n, table.rows, sim_slots);
	check_block_simulate(machine_abs, kernel, bs, nb, table.rows + n, extra);
	if (check_real_all(&t, sc, n, &plan, &perf, table.rows, real_slots, e) < 0 ||
	    check_block_real(&t, bs, nb, &perf, block_run_s, table.rows + n, extra, e) < 0) {
		rc = -1;
		goto out;
	}
	for (uint32_t i = n; i < n + nb; i++) {
		struct probe_check_row *r = &table.rows[i];

		if (!isnan(r->real) && !isnan(r->sim) && r->real > 0) {
			r->error_pct = 100.0 * (r->sim / r->real - 1.0);
			compared++;
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		struct probe_check_row *r = &table.rows[i];

		if (!isnan(r->real) && !isnan(r->sim) && r->real > 0) {
			r->error_pct = 100.0 * (r->sim / r->real - 1.0);
			compared++;
		}
		if (!sc[i].shared && !sc[i].skip[0] && r->repeats) {
			char rs[48], ss[48];

			slots_text(rs, sizeof(rs), real_slots[i]);
			slots_text(ss, sizeof(ss), sim_slots[i]);
			append_note(r, "private hash: %s real, %s simulated", rs, ss);
		}
	}
	probe_check_median_abs_error(&table);
	printf("\n");
	probe_check_print(&table, stdout);
	if (probe_check_csv_write(csv, &table, e) < 0) {
		rc = -1;
		goto out;
	}
	printf("wrote %s (%.0f s in all)\n", csv, wall_now() - t0);
	fflush(stdout);
	if (compared && !a->no_anchor && anchor(machine_abs, kernel, csv, sc, n, &table, e) < 0) {
		rc = -1;
		goto out;
	}
	if (!compared)
		rc = fs_fail(e, FS_ERR_RUNTIME, "futexsim probe --check: no scenario has both a real and a simulated figure");
out:
	free(machine_abs);
	free(bs);
	free(extra);
	free(real_slots);
	free(sim_slots);
	probe_check_table_free(&table);
	probe_check_scenarios_free(sc, n);
	probe_topology_free(&t);
	return rc < 0 ? (e->status ? e->status : FS_ERR_RUNTIME) : FS_OK;
}
