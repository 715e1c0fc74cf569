/* SPDX-License-Identifier: MIT */
#include "sim/cliopt.h"

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
