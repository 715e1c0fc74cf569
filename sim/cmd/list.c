/* SPDX-License-Identifier: MIT */
/* futexsim list: the presets and names a scenario can use, a line each. */
#include "sim/cmd/cmd.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/hashfn.h"
#include "models/refcount.h"
#include "models/spinlock.h"
#include "models/workload.h"
#include "sim/cliopt.h"
#include "sim/scenario.h"
#include "sim/sim.h"

const char usage_list[] =
	"usage: futexsim list [--all] machines|kernels|scenarios|workloads|hashes|refcounts|spinlocks\n"
	"\n"
	"Prints one line each: the name a scenario uses and what it is.\n"
	"  machines   machine presets (machine: NAME), from their description: key, in the\n"
	"             preset directories (futexsim --help); a name found in more than one\n"
	"             lists the one that is used\n"
	"  kernels    kernel design presets (kernel: NAME), likewise; parts other presets\n"
	"             inherit (no description:, e.g. the fitted futex-costs) cannot run and\n"
	"             are listed only with --all, marked as parts\n"
	"  scenarios  scenarios by name (futexsim run NAME): DIR/scenarios/ of each preset\n"
	"             directory, then the installed or source tree's scenarios/\n"
	"  workloads  workload types (workload.type)\n"
	"  hashes     hash functions (kernel.global_hash.hash, kernel.private_hash.hash)\n"
	"  refcounts  private hash reference counting modes (kernel.private_hash.refcount)\n"
	"  spinlocks  queued spinlock variants of the bucket lock (kernel.spinlock)\n"
	"Options:\n"
	"  --config-dir DIR  also look in DIR first, as run --config-dir does (repeatable)\n"
	"  --all             also the parts of presets (machines, kernels)\n"
	"  -h, --help        show this help\n"
	"\n"
	"Examples:\n"
	"  $ futexsim list machines\n"
	"  $ futexsim list --all kernels\n";

static int cmp_preset(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sorts the names, carrying their directories along. */
static void sort_names(char **names, const char **dirs, size_t n)
{
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && cmp_preset(&names[j - 1], &names[j]) > 0; j--) {
			char *t = names[j];
			const char *td = dirs[j];

			names[j] = names[j - 1], dirs[j] = dirs[j - 1];
			names[j - 1] = t, dirs[j - 1] = td;
		}
}

/* The presets of KIND/ in every directory of the search path (the first of a name
 * wins, as in scenario_load), sorted, each with its description: key. */
static int list_presets(const char *kind_dir, const char *const *extra, bool all)
{
	struct config_path cp;
	char *names[1024];
	const char *dirs[1024];
	size_t n = 0;
	int status = FS_OK;

	scenario_config_path(&cp, extra);
	for (size_t d = 0; d < cp.n; d++) {
		char dir[4096];
		struct dirent *ent;
		DIR *dh;

		snprintf(dir, sizeof(dir), "%s/%s", cp.dirs[d], kind_dir);
		if (!(dh = opendir(dir)))
			continue;
		while ((ent = readdir(dh)) && n < 1024) {
			size_t len = strlen(ent->d_name), seen = 0;

			if (len <= 5 || strcmp(ent->d_name + len - 5, ".yaml"))
				continue;
			for (size_t i = 0; i < n; i++)
				seen |= strlen(names[i]) == len - 5 && !strncmp(names[i], ent->d_name, len - 5);
			if (!seen && (names[n] = strndup(ent->d_name, len - 5)))
				dirs[n++] = cp.dirs[d];
		}
		closedir(dh);
	}
	sort_names(names, dirs, n);
	for (size_t i = 0; i < n; i++) {
		char path[4096];
		struct fs_error err = { 0 };
		struct yt_doc *doc = yt_doc_new();
		const struct yt_node *tree, *desc = NULL;

		snprintf(path, sizeof(path), "%s/%s/%s.yaml", dirs[i], kind_dir, names[i]);
		tree = doc ? yt_load_file(doc, path, &err) : NULL;
		if (tree && tree->kind == YT_MAP)
			desc = yt_get(tree, "description");
		if (!tree) {
			fprintf(stderr, "futexsim: %s\n", doc ? err.msg : "out of memory");
			status = FS_ERR_INPUT;
		}
		if (tree && !(desc && desc->kind == YT_SCALAR && *desc->scalar) && !all)
			; /* a part: not runnable on its own */
		else
			printf("%-24s %s\n", names[i],
			       desc && desc->kind == YT_SCALAR && *desc->scalar ? desc->scalar
			       : tree ? "(a part other presets inherit: no description, not runnable on its own)"
				      : "(unreadable)");
		yt_doc_free(doc);
		free(names[i]);
	}
	if (!n)
		fprintf(stderr, "futexsim list: no %s presets found (futexsim --help: where presets are found)\n",
			kind_dir);
	return status;
}

/* The scenarios under DIR (NAME: relative path without .yaml) not yet in names[]. */
static void find_scenarios(const char *root, const char *rel, char **names, const char **roots, size_t *n,
			   size_t max)
{
	char dir[4096];
	struct dirent *ent;
	DIR *dh;

	snprintf(dir, sizeof(dir), "%s%s%s", root, *rel ? "/" : "", rel);
	if (!(dh = opendir(dir)))
		return;
	while ((ent = readdir(dh)) && *n < max) {
		size_t len = strlen(ent->d_name);
		char sub[4096];
		bool seen = false;

		if (ent->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", ent->d_name);
		if (len > 5 && !strcmp(ent->d_name + len - 5, ".yaml")) {
			sub[strlen(sub) - 5] = '\0';
			for (size_t i = 0; i < *n; i++)
				seen |= !strcmp(names[i], sub);
			if (!seen && (names[*n] = strdup(sub)))
				roots[(*n)++] = root;
		} else if (strlen(rel) < 1024) {
			find_scenarios(root, sub, names, roots, n, max); /* opendir fails for a file */
		}
	}
	closedir(dh);
}

/* The scenarios by name, in the order scenario_find looks for them, sorted, each with
 * its description: key or its first comment line. */
static int list_scenarios(const char *const *extra)
{
	struct config_path cp;
	char data[4096], dirs[SCENARIO_MAX_CONFIG_DIRS + 1][4096], *names[1024];
	const char *roots[1024];
	size_t n = 0, nd = 0;

	scenario_config_path(&cp, extra);
	for (size_t i = 0; i + 1 < cp.n; i++)
		snprintf(dirs[nd++], sizeof(dirs[0]), "%s/scenarios", cp.dirs[i]);
	snprintf(dirs[nd++], sizeof(dirs[0]), "%s/scenarios", futexsim_data_dir(data, sizeof(data)));
	for (size_t d = 0; d < nd; d++)
		find_scenarios(dirs[d], "", names, roots, &n, 1024);
	sort_names(names, roots, n);
	for (size_t i = 0; i < n; i++) {
		char path[4096], line[512] = "";
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s.yaml", roots[i], names[i]);
		if ((f = fopen(path, "r"))) {
			char buf[512];

			while (fgets(buf, sizeof(buf), f))
				if (!strncmp(buf, "description:", 12) || (!line[0] && buf[0] == '#')) {
					const char *t = buf + (buf[0] == '#' ? 1 : 12);

					t += strspn(t, " \t\"'");
					snprintf(line, sizeof(line), "%s", t);
					line[strcspn(line, "\n")] = '\0';
					if (buf[0] != '#')
						break;
				}
			fclose(f);
		}
		printf("%-32s %s\n", names[i], line);
		free(names[i]);
	}
	if (!n)
		fprintf(stderr, "futexsim list: no scenarios found (futexsim list --help: where they are found)\n");
	return FS_OK;
}

int cmd_list(int argc, char **argv)
{
	const char *what = NULL, *extra[CLI_MAX_CONFIG_DIRS + 1] = { NULL };
	size_t nextra = 0;
	bool all = false;

	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(usage_list, stdout);
			return FS_OK;
		} else if (!strcmp(argv[i], "--all")) {
			all = true;
		} else if (cli_is_option(argv[i], "--config-dir")) {
			if (cli_add_config_dir("list", argc, argv, &i, extra, &nextra) < 0)
				return FS_ERR_USAGE;
		} else if (argv[i][0] == '-' || what) {
			fprintf(stderr, "futexsim list: %s '%s' (see futexsim list --help)\n",
				what ? "one list at a time, not also" : "unknown option", argv[i]);
			return FS_ERR_USAGE;
		} else {
			what = argv[i];
		}
	}
	if (!what) {
		fputs(usage_list, stderr);
		return FS_ERR_USAGE;
	}
	if (!strcmp(what, "machines") || !strcmp(what, "kernels")) {
		int status = list_presets(what, extra, all);

		if (fflush(stdout) != 0)
			return FS_ERR_OUTPUT;
		return status;
	}
	if (!strcmp(what, "scenarios")) {
		list_scenarios(extra);
	} else if (!strcmp(what, "workloads")) {
		const char *names[WORKLOAD_MAX_TYPES + 1];

		workload_names(names);
		for (size_t i = 0; names[i]; i++)
			printf("%-24s %s\n", workload_at(i)->name, workload_at(i)->description);
	} else if (!strcmp(what, "hashes")) {
		const char *names[HASHFN_MAX + 1];

		hashfn_names(names);
		for (size_t i = 0; names[i]; i++)
			printf("%-24s %s\n", hashfn_at(i)->name, hashfn_at(i)->description);
	} else if (!strcmp(what, "refcounts")) {
		const char *names[REFCOUNT_MAX_MODES + 1];

		refcount_mode_names(names);
		for (size_t i = 0; names[i]; i++)
			printf("%-24s %s\n", refcount_mode_at(i)->name, refcount_mode_at(i)->description);
	} else if (!strcmp(what, "spinlocks")) {
		for (const struct spin_variant *v = spin_variants; v->name; v++)
			printf("%-24s %s\n", v->name, v->description);
	} else {
		fprintf(stderr,
			"futexsim list: unknown list '%s' (machines, kernels, scenarios, workloads, hashes, refcounts or spinlocks)\n",
			what);
		return FS_ERR_USAGE;
	}
	if (fflush(stdout) != 0) {
		fprintf(stderr, "futexsim: cannot write to standard output\n");
		return FS_ERR_OUTPUT;
	}
	return FS_OK;
}
