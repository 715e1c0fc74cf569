/* SPDX-License-Identifier: MIT */
#include "sim/cliopt.h"

#include <stdio.h>
#include <string.h>

bool cli_is_option(const char *arg, const char *opt)
{
	size_t len = strlen(opt);

	return !strncmp(arg, opt, len) && (arg[len] == '\0' || arg[len] == '=');
}

const char *cli_option_value(int argc, char **argv, int *i, const char *opt)
{
	size_t len = strlen(opt);

	if (!strncmp(argv[*i], opt, len) && argv[*i][len] == '=')
		return argv[*i] + len + 1;
	return *i + 1 < argc ? argv[++*i] : NULL;
}

/* --config-dir DIR (or =DIR) into dirs; -1 after printing the error. */
int cli_add_config_dir(const char *cmd, int argc, char **argv, int *i, const char **dirs, size_t *n)
{
	const char *v = cli_option_value(argc, argv, i, "--config-dir");

	if (!v || !*v || (v[0] == '-' && v[1])) {
		fprintf(stderr, "futexsim %s: --config-dir needs a directory\n", cmd);
		return -1;
	}
	if (*n == CLI_MAX_CONFIG_DIRS) {
		fprintf(stderr, "futexsim %s: more than %d --config-dir options\n", cmd, CLI_MAX_CONFIG_DIRS);
		return -1;
	}
	dirs[(*n)++] = v;
	dirs[*n] = NULL;
	return 0;
}

