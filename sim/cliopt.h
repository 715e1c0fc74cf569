/* SPDX-License-Identifier: MIT */
/* Long options as the subcommands take them: "--name VALUE" or "--name=VALUE".
 *
 * cli_is_option tells whether an argument is the option `opt` (bare or with
 * "=VALUE"); cli_option_value returns its value, from after the '=' or from the
 * next argument (advancing *i past it), or NULL when no value follows.
 */
#ifndef FUTEXSIM_CLIOPT_H
#define FUTEXSIM_CLIOPT_H

#include <stdbool.h>
#include <stddef.h>

/* --config-dir options a command takes at most */
#define CLI_MAX_CONFIG_DIRS 16

bool cli_is_option(const char *arg, const char *opt);
const char *cli_option_value(int argc, char **argv, int *i, const char *opt);
/* --config-dir DIR (or =DIR) of command `cmd` appended to dirs (NULL-terminated, n
 * entries, at most CLI_MAX_CONFIG_DIRS); -1 after printing the error. */
int cli_add_config_dir(const char *cmd, int argc, char **argv, int *i, const char **dirs, size_t *n);

#endif
