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

bool cli_is_option(const char *arg, const char *opt);
const char *cli_option_value(int argc, char **argv, int *i, const char *opt);

#endif
