/* SPDX-License-Identifier: MIT */
/* The commands of bin/futexsim, one file each (sim/main.c dispatches): argv[0] is
 * "futexsim", argv[1] the command. Each prints its own errors and returns the exit
 * status (docs: futexsim --help). A command's usage text is also what `futexsim
 * help COMMAND` and its man page print. */
#ifndef FUTEXSIM_CMD_H
#define FUTEXSIM_CMD_H

#include <signal.h>

extern const char usage_run[], usage_show[], usage_explain[], usage_c2c[], usage_compare[], usage_list[],
	usage_probe[], usage_record[];

/* `interrupt` is the flag the signal handlers set: the run then stops, writes what it
 * has (marked incomplete) and returns 130. */
int cmd_run(int argc, char **argv, volatile sig_atomic_t *interrupt);
int cmd_show(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_c2c(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_record(int argc, char **argv);

#endif
