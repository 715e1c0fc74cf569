/* SPDX-License-Identifier: MIT */
#include "sim/scenario.h"

#include <dirent.h>
#include <gsl/gsl_rng.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/core/config.h"
#include "sim/core/event_queue.h"

#define MAX_INHERIT_DEPTH 8
#define MAX_PRESETS 256

/* Whether DIR holds futexsim's data: configs/kernels/ and scenarios/. */
static bool is_data_dir(const char *dir)
{
	char path[4096];
	struct stat st;

	if ((size_t)snprintf(path, sizeof(path), "%s/configs/kernels", dir) >= sizeof(path) || stat(path, &st) < 0 ||
	    !S_ISDIR(st.st_mode))
		return false;
	snprintf(path, sizeof(path), "%s/scenarios", dir);
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *futexsim_data_dir(char *buf, size_t len)
{
	const char *dir = getenv("FUTEXSIM_DATA");
	char exe[4096];
	ssize_t n;

	if (dir && *dir)
		return dir;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		char *slash;

		exe[n] = '\0';
		/* installed: PREFIX/bin/futexsim beside PREFIX/share/futexsim */
		slash = strrchr(exe, '/');
		if (slash && slash - exe >= 4 && !strncmp(slash - 4, "/bin", 4)) {
			slash[-4] = '\0';
			if ((size_t)snprintf(buf, len, "%s/share/futexsim", exe) < len && is_data_dir(buf))
				return buf;
			slash[-4] = '/';
		}
		/* a source tree, wherever it is: its bin/futexsim, build-san/bin/futexsim,
		 * build/tests/check_... sit one or two levels below it */
		for (int up = 0; up < 3 && (slash = strrchr(exe, '/')) && slash != exe; up++) {
			*slash = '\0';
			if (up > 0 && (size_t)snprintf(buf, len, "%s", exe) < len && is_data_dir(buf))
				return buf;
		}
	}
	return FUTEXSIM_DATA_DIR; /* the tree it was built in: the last resort */
}

const char *futexsim_data_file(const char *path, char *buf, size_t len)
{
	char dir[4096];

	if (path[0] == '/' || access(path, F_OK) == 0)
		return path;
	if ((size_t)snprintf(buf, len, "%s/%s", futexsim_data_dir(dir, sizeof(dir)), path) < len &&
	    access(buf, F_OK) == 0)
		return buf;
	return path;
}

const char *scenario_default_config_dir(char *buf, size_t len)
{
	const char *dir = getenv("FUTEXSIM_CONFIGS");
	char data[4096];

	if (dir && *dir)
		return dir;
	snprintf(buf, len, "%s/configs", futexsim_data_dir(data, sizeof(data)));
	return buf;
}

void scenario_config_path(struct config_path *p, const char *const *extra)
{
	const char *env = getenv("FUTEXSIM_PATH");
	size_t used = 0;

	p->n = 0;
	for (size_t i = 0; extra && extra[i] && p->n < SCENARIO_MAX_CONFIG_DIRS - 1; i++)
		if (*extra[i])
			p->dirs[p->n++] = extra[i];
	if (env && strlen(env) < sizeof(p->buf) - 1) {
		char *part = p->buf;

		memcpy(p->buf, env, strlen(env) + 1);
		used = strlen(env) + 1;
		while (part && p->n < SCENARIO_MAX_CONFIG_DIRS - 1) {
			char *colon = strchr(part, ':');

			if (colon)
				*colon = '\0';
			if (*part) /* an empty entry (a::b, a trailing ':') adds nothing */
				p->dirs[p->n++] = part;
			part = colon ? colon + 1 : NULL;
		}
	}
	p->dirs[p->n++] = scenario_default_config_dir(p->buf + used, sizeof(p->buf) - used);
	p->dirs[p->n] = NULL;
}
/* A copy of map `m` without `key`. */
static struct yt_node *map_without(struct yt_doc *d, const struct yt_node *m, const char *key)
{
	struct yt_node *out = yt_new_map(d, m->mark);

	if (!out)
		return NULL;
	for (size_t i = 0; i < m->len; i++)
		if (strcmp(m->keys[i], key) != 0 && yt_map_put(d, out, m->keys[i], m->key_marks[i], m->items[i]) < 0)
			return NULL;
	return out;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The length of `name` without a ".yaml" ending, 0 when it has none. */
static size_t yaml_stem(const char *name)
{
	size_t len = strlen(name);

	return len > 5 && strcmp(name + len - 5, ".yaml") == 0 ? len - 5 : 0;
}

/* "unknown kernel preset 'x' (did you mean 'y'? known: a, b; looked in D1/kernels, D2/kernels)" */
static int unknown_preset(const struct config_path *cp, const char *kind_dir, const char *kind,
			  const struct yt_node *name, struct fs_error *e)
{
	char dir[4096], known[512], looked[1024];
	const char *names[MAX_PRESETS + 1];
	char *owned[MAX_PRESETS];
	size_t n = 0, at = 0;
	const char *near;
	struct dirent *ent;
	DIR *dh;

	looked[0] = '\0';
	for (size_t d = 0; d < cp->n; d++) {
		snprintf(dir, sizeof(dir), "%s/%s", cp->dirs[d], kind_dir);
		if (at < sizeof(looked))
			at += (size_t)snprintf(looked + at, sizeof(looked) - at, "%s%s", d ? ", " : "", dir);
		dh = opendir(dir);
		while (dh && (ent = readdir(dh)) && n < MAX_PRESETS) {
			size_t stem = yaml_stem(ent->d_name), dup = 0;

			for (size_t i = 0; stem && i < n; i++)
				dup |= strlen(names[i]) == stem && !strncmp(names[i], ent->d_name, stem);
			if (stem && !dup) {
				owned[n] = strndup(ent->d_name, stem);
				if (owned[n])
					names[n] = owned[n], n++;
			}
		}
		if (dh)
			closedir(dh);
	}
	qsort(names, n, sizeof(names[0]), cmp_str);
	names[n] = NULL;
	near = cfg_nearest(name->scalar, names);
	fs_fail_at(e, &name->mark, "unknown %s preset '%s' (%s%s%sknown: %s; looked in %s)", kind, name->scalar,
		   near ? "did you mean '" : "", near ? near : "", near ? "'? " : "",
		   n ? cfg_list_names(known, sizeof(known), names) : "none", looked);
	for (size_t i = 0; i < n; i++)
		free(owned[i]);
	return -1;
}

/* The file a preset reference names: a path (has '/' or ends in .yaml; relative
 * to the working directory, else to `base_dir`), or a name under KIND/ of the
 * first directory of the search path that has it. */
static int locate_preset(const struct config_path *cp, const char *kind_dir, const char *kind, const struct yt_node *name, const char *base_dir,
			 char *out, size_t outlen, struct fs_error *e)
{
	const char *s = name->scalar;

	if (!*s)
		return fs_fail_at(e, &name->mark, "%s: empty preset name", kind);
	if (strchr(s, '/') || yaml_stem(s)) {
		struct stat st;

		snprintf(out, outlen, "%s", s);
		if (access(out, R_OK) != 0 && s[0] != '/')
			snprintf(out, outlen, "%s/%s", base_dir, s);
		if (access(out, R_OK) != 0)
			return fs_fail_at(e, &name->mark,
					  "%s file '%s' not found (looked in the working directory and %s)", kind, s,
					  base_dir);
		/* a directory cannot be read, and a FIFO or device may never end */
		if (stat(out, &st) != 0 || !S_ISREG(st.st_mode))
			return fs_fail_at(e, &name->mark, "%s file '%s' is not a regular file (expected a YAML file)",
					  kind, out);
		return 0;
	}
	for (size_t d = 0; d < cp->n; d++) {
		snprintf(out, outlen, "%s/%s/%s.yaml", cp->dirs[d], kind_dir, s);
		if (access(out, R_OK) == 0)
			return 0;
	}
	return unknown_preset(cp, kind_dir, kind, name, e);
}

static struct yt_node *resolve(struct scenario *sc, const struct yt_node *ref, const char *kind_dir,
			       const char *kind, const char *base_dir, int depth, struct fs_error *e);

/* `path` to sc->inputs. */
static int add_input(struct scenario *sc, const char *path, struct fs_error *e)
{
	char **grown = realloc(sc->inputs, (sc->ninputs + 2) * sizeof(*sc->inputs));

	if (!grown)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	sc->inputs = grown;
	if (!(sc->inputs[sc->ninputs] = strdup(path)))
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	sc->inputs[++sc->ninputs] = NULL;
	return 0;
}

/* A preset file with its `inherit:` chain merged in. */
static struct yt_node *load_preset(struct scenario *sc, const struct yt_node *name, const char *kind_dir,
				   const char *kind, const char *base_dir, int depth, struct fs_error *e)
{
	char path[4096], dir[4096];
	struct yt_node *tree, *inherit, *base;

	if (depth > MAX_INHERIT_DEPTH) {
		fs_fail_at(e, &name->mark, "%s presets inherit more than %d levels deep (a cycle?)", kind,
			   MAX_INHERIT_DEPTH);
		return NULL;
	}
	if (locate_preset(&sc->config_path, kind_dir, kind, name, base_dir, path, sizeof(path), e) < 0 ||
	    add_input(sc, path, e) < 0)
		return NULL;
	tree = yt_load_file(sc->doc, path, e);
	if (!tree || cfg_expect(tree, YT_MAP, kind, e) < 0)
		return NULL;
	inherit = yt_get(tree, "inherit");
	if (!inherit)
		return tree;
	if (cfg_expect(inherit, YT_SCALAR, "inherit", e) < 0)
		return NULL;
	snprintf(dir, sizeof(dir), "%s", path);
	base = resolve(sc, inherit, kind_dir, kind, dirname(dir), depth + 1, e);
	if (!base)
		return NULL;
	tree = map_without(sc->doc, tree, "inherit");
	return tree ? yt_merge(sc->doc, base, tree) : NULL;
}

/* `machine:`/`kernel:` as a name, a path, or a map with an optional `preset:`. */
static struct yt_node *resolve(struct scenario *sc, const struct yt_node *ref, const char *kind_dir,
			       const char *kind, const char *base_dir, int depth, struct fs_error *e)
{
	const struct yt_node *preset;
	struct yt_node *base, *over;

	if (ref->kind == YT_SCALAR)
		return load_preset(sc, ref, kind_dir, kind, base_dir, depth, e);
	if (cfg_expect(ref, YT_MAP, kind, e) < 0)
		return NULL;
	preset = yt_get(ref, "preset");
	if (!preset)
		return (struct yt_node *)ref;
	if (cfg_expect(preset, YT_SCALAR, "preset", e) < 0)
		return NULL;
	base = load_preset(sc, preset, kind_dir, kind, base_dir, depth, e);
	over = base ? map_without(sc->doc, ref, "preset") : NULL;
	return over ? yt_merge(sc->doc, base, over) : NULL;
}

static int parse_run(struct scenario *sc, const struct yt_node *run, struct fs_error *e)
{
	static const char *const keys[] = { "duration", "warmup", "seed", "aslr", "max_memory", "max_events",
					    "event_queue", NULL };
	const char *queues[EVENT_QUEUE_NTYPES + 1];
	int queue = 0;
	bool aslr;

	if (run && (cfg_expect(run, YT_MAP, "run", e) < 0 || cfg_check_keys(run, "run", keys, e) < 0))
		return -1;
	if (cfg_get_duration(run, "duration", 10 * PS_PER_MS, 1, SCENARIO_MAX_SIM_PS, &sc->duration, e) < 0 ||
	    cfg_get_duration(run, "warmup", 1 * PS_PER_MS, 0, SCENARIO_MAX_SIM_PS, &sc->warmup, e) < 0 ||
	    cfg_get_u64(run, "seed", 1, 0, UINT64_MAX, &sc->seed, e) < 0 ||
	    cfg_get_bool(run, "aslr", true, &aslr, e) < 0 ||
	    cfg_get_size(run, "max_memory", SCENARIO_DEFAULT_MAX_MEMORY, 1ull << 20, UINT64_MAX, &sc->max_memory,
			 e) < 0 ||
	    cfg_get_u64(run, "max_events", SCENARIO_DEFAULT_MAX_EVENTS, 1, UINT64_MAX, &sc->max_events, e) < 0)
		return -1;
	/* read only when given, so that the default leaves no trace in `resolved` */
	if (yt_get(run, "event_queue") &&
	    cfg_get_enum(run, "event_queue", event_queue_names(queues), 0, &queue, e) < 0)
		return -1;
	sc->event_queue = event_queue_at((size_t)queue);
	if (sc->duration + sc->warmup > SCENARIO_MAX_SIM_PS)
		return fs_fail_at(e, &run->mark, "run: warmup + duration exceed the limit of 3600 s simulated");
	/* A PIE heap's place, randomised per seed as ASLR would (28 bits of pages). */
	sc->user_base = UINT64_C(0x555555554000);
	if (aslr) {
		gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);

		if (!r)
			return fs_fail(e, FS_ERR_LIMIT, "out of memory");
		gsl_rng_set(r, sc->seed ^ UINT64_C(0x5a5a5a5a));
		sc->user_base += (uint64_t)gsl_rng_uniform_int(r, 1ul << 28) << 12;
		gsl_rng_free(r);
	}
	return 0;
}

static int parse_output(struct scenario *sc, const struct yt_node *out, struct fs_error *e)
{
	static const char *const keys[] = { "per_thread", "hottest_lines", "interval", NULL };
	uint64_t intervals;

	if (out && (cfg_expect(out, YT_MAP, "output", e) < 0 || cfg_check_keys(out, "output", keys, e) < 0))
		return -1;
	if (cfg_get_bool(out, "per_thread", false, &sc->per_thread, e) < 0 ||
	    cfg_get_u32(out, "hottest_lines", 5, 0, 1000, &sc->hottest_lines, e) < 0 ||
	    cfg_get_duration(out, "interval", 100 * PS_PER_US, 1 * PS_PER_NS, SCENARIO_MAX_SIM_PS, &sc->interval,
			     e) < 0)
		return -1;
	/* every interval is an event and a row of the result file */
	intervals = (sc->duration + sc->interval - 1) / sc->interval;
	if (intervals > SCENARIO_MAX_INTERVALS) {
		const struct yt_node *n = yt_get(out, "interval");

		/* a recorded default has no place in a file: point at the section */
		return fs_fail_at(e, n->mark.line ? &n->mark : &out->mark,
				  "output.interval: %s cuts run.duration into %llu intervals (at most %llu; set a "
				  "longer output.interval)",
				  n->scalar, (unsigned long long)intervals, (unsigned long long)SCENARIO_MAX_INTERVALS);
	}
	return 0;
}

static int parse_workload(struct scenario *sc, const struct yt_node *wl, struct fs_error *e)
{
	const char *names[WORKLOAD_MAX_TYPES + 1];
	int type;

	if (cfg_expect(wl, YT_MAP, "workload", e) < 0 || cfg_require(wl, "type", "workload", e) < 0 ||
	    cfg_get_enum(wl, "type", workload_names(names), 0, &type, e) < 0)
		return -1;
	sc->wl_type = workload_at((size_t)type);
	if (sc->wl_type->parse(wl, &sc->machine, &sc->wl_params, e) < 0)
		return -1;
	if (sc->wl_type->input_file && sc->wl_type->input_file(sc->wl_params))
		return add_input(sc, sc->wl_type->input_file(sc->wl_params), e);
	return 0;
}

/* A map at `key` of `map`, created empty when absent, so that the readers record
 * the defaults of an absent section too (sim/core/config.h). NULL when `key` holds
 * something else (the parser reports it) or out of memory (*oom set). */
static struct yt_node *section(struct yt_doc *d, struct yt_node *map, const char *key, bool *oom)
{
	struct yt_node *n = yt_get(map, key);

	if (!n && map && map->kind == YT_MAP) {
		n = yt_new_map(d, map->mark);
		if (!n || yt_map_put(d, map, key, map->mark, n) < 0)
			*oom = true;
	}
	return n;
}

/* Every value the run uses lands in sc->resolved: parse it while the doc
 * records defaults, with the optional sections present as (empty) maps. */
static int parse_resolved(struct scenario *sc, struct fs_error *e)
{
	struct yt_node *r = sc->resolved, *kernel = yt_get(r, "kernel");
	const char *description; /* read for its checks and its recorded default */
	bool oom = false;

	section(sc->doc, r, "run", &oom);
	section(sc->doc, r, "output", &oom);
	if (kernel && kernel->kind == YT_MAP) {
		section(sc->doc, kernel, "global_hash", &oom);
		section(sc->doc, kernel, "private_hash", &oom);
		section(sc->doc, kernel, "costs", &oom);
		section(sc->doc, kernel, "scheduler", &oom);
	}
	if (yt_get(r, "machine") && yt_get(r, "machine")->kind == YT_MAP)
		section(sc->doc, yt_get(r, "machine"), "sched", &oom);
	if (oom)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	yt_doc_record_defaults(sc->doc, true);
	if (machine_from_yaml(&sc->machine, yt_get(r, "machine"), e) < 0 ||
	    kernel_from_yaml(&sc->kernel, kernel, e) < 0 || cfg_get_string(r, "name", "", &sc->name, e) < 0 ||
	    cfg_get_string(r, "description", "", &description, e) < 0 ||
	    parse_run(sc, yt_get(r, "run"), e) < 0 || parse_output(sc, yt_get(r, "output"), e) < 0 ||
	    parse_workload(sc, yt_get(r, "workload"), e) < 0) {
		yt_doc_record_defaults(sc->doc, false);
		return -1;
	}
	yt_doc_record_defaults(sc->doc, false);
	return 0;
}

int scenario_load(struct scenario *sc, const char *path, const char *const *sets, size_t nsets,
		  struct fs_error *e)
{
	return scenario_load_dirs(sc, path, sets, nsets, NULL, e);
}

const char *scenario_find(const char *arg, const struct config_path *cp, char *buf, size_t len, char *looked,
			  size_t looked_len)
{
	char data[4096];
	const char *data_dir = futexsim_data_dir(data, sizeof(data));
	size_t alen = strlen(arg), used = 0;
	const char *suffix = alen > 5 && !strcmp(arg + alen - 5, ".yaml") ? "" : ".yaml";

	if (looked_len)
		looked[0] = '\0';
	if (arg[0] == '/' || access(arg, F_OK) == 0 || !*arg)
		return arg;
	/* a path relative to the data directory (scenarios/claims/refcount.yaml) */
	if ((size_t)snprintf(buf, len, "%s/%s", data_dir, arg) < len && access(buf, F_OK) == 0)
		return buf;
	/* a name: DIR/scenarios/NAME.yaml in each preset directory but the default, then the data's */
	for (size_t i = 0; i <= cp->n; i++) {
		const char *dir = i + 1 < cp->n ? cp->dirs[i] : i + 1 == cp->n ? NULL : data_dir;

		if (!dir)
			continue; /* the default configs/ directory holds no scenarios */
		if (looked_len > used)
			used += (size_t)snprintf(looked + used, looked_len - used, "%s%s/scenarios", used ? ", " : "", dir);
		if ((size_t)snprintf(buf, len, "%s/scenarios/%s%s", dir, arg, suffix) < len && access(buf, F_OK) == 0)
			return buf;
	}
	return NULL;
}

int scenario_load_dirs(struct scenario *sc, const char *path, const char *const *sets, size_t nsets,
		       const char *const *config_dirs, struct fs_error *e)
{
	static const char *const keys[] = { "name", "description", "machine", "kernel", "workload",
					    "run", "output", NULL };
	struct yt_node *work, *machine, *kernel;
	char dir[4096];
	const char *base_dir;

	memset(sc, 0, sizeof(*sc));
	sc->doc = yt_doc_new();
	if (!sc->doc)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	sc->sets = sets;
	sc->nsets = nsets;
	scenario_config_path(&sc->config_path, config_dirs);
	{
		char found[4096], looked[2048];
		const char *file = scenario_find(path, &sc->config_path, found, sizeof(found), looked, sizeof(looked));
		struct yt_node *copy;

		if (!file)
			return fs_fail(e, FS_ERR_INPUT, "cannot read %s: no such file, nor a scenario of that name (looked in %s)",
				       path, looked);
		if (file != path) { /* the path found, kept in the document */
			if (!(copy = yt_new_scalar(sc->doc, file, false, (struct fs_mark){ 0 })))
				return fs_fail(e, FS_ERR_LIMIT, "out of memory");
			path = copy->scalar;
		}
	}
	sc->path = path;
	if (add_input(sc, path, e) < 0)
		return -1;
	sc->given = yt_load_file_text(sc->doc, path, &sc->given_text, &sc->given_len, e);
	if (!sc->given || cfg_expect(sc->given, YT_MAP, "scenario", e) < 0)
		return -1;
	work = yt_copy(sc->doc, sc->given);
	for (size_t i = 0; work && i < nsets; i++)
		if (yt_apply_set(sc->doc, &work, sets[i], e) < 0)
			return -1;
	if (!work)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	if (cfg_check_keys(work, "scenario", keys, e) < 0 || cfg_require(work, "machine", "scenario", e) < 0 ||
	    cfg_require(work, "kernel", "scenario", e) < 0 || cfg_require(work, "workload", "scenario", e) < 0)
		return -1;
	snprintf(dir, sizeof(dir), "%s", path);
	base_dir = dirname(dir);
	machine = resolve(sc, yt_get(work, "machine"), "machines", "machine", base_dir, 0, e);
	if (!machine)
		return -1;
	kernel = resolve(sc, yt_get(work, "kernel"), "kernels", "kernel", base_dir, 0, e);
	if (!kernel)
		return -1;
	/* presets merged in, then copied whole so that recording defaults into it
	 * touches no tree it shares nodes with */
	if (yt_map_put(sc->doc, work, "machine", machine->mark, machine) < 0 ||
	    yt_map_put(sc->doc, work, "kernel", kernel->mark, kernel) < 0 ||
	    !(sc->resolved = yt_copy(sc->doc, work)))
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	if (parse_resolved(sc, e) < 0)
		return -1;
	if (!*sc->name) {
		/* default name: the file's base name without .yaml */
		const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
		size_t len = yaml_stem(base);
		struct yt_node *n;

		if (!len)
			len = strlen(base);
		snprintf(dir, sizeof(dir), "%.*s", (int)len, base);
		n = yt_new_scalar(sc->doc, dir, true, sc->given->mark);
		if (!n || yt_map_put(sc->doc, sc->resolved, "name", n->mark, n) < 0)
			return fs_fail(e, FS_ERR_LIMIT, "out of memory");
		sc->name = n->scalar;
	}
	return 0;
}

void scenario_free(struct scenario *sc)
{
	if (sc->wl_type && sc->wl_params)
		sc->wl_type->free_params(sc->wl_params);
	machine_free(&sc->machine);
	yt_doc_free(sc->doc);
	for (size_t i = 0; i < sc->ninputs; i++)
		free(sc->inputs[i]);
	free(sc->inputs);
	memset(sc, 0, sizeof(*sc));
}
