/* SPDX-License-Identifier: MIT */
/* The commands of bin/futexsim, one file each (sim/main.c dispatches): argv[0] is
 * "futexsim", argv[1] the command. Each prints its own errors and returns the exit
 * status (docs: futexsim --help). A command's usage text is also what `futexsim
 * help COMMAND` and its man page print. */
#ifndef FUTEXSIM_CMD_H
#define FUTEXSIM_CMD_H

#include <signal.h>
#include <stdbool.h>

#include "sim/core/error.h"
#include "sim/h5out.h"
#include "sim/scenario.h"
#include "sim/sim.h"

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

/* The parts of run that bench (sim/perfbench.c) shares, so that its --quiet,
 * --progress, -o and --print-scenario are run's. */

/* --quiet with --progress: the usage error of command `cmd` printed, FS_ERR_USAGE;
 * else 0. */
int run_check_quiet(const char *cmd, bool quiet, bool progress);
/* Whether -o's value names a file (or is "-", none): not empty, not an option. */
bool run_output_name_ok(const char *v);
/* The built run `s` run to its end, with the progress on stderr when `progress`, or
 * when stderr is a terminal and not `quiet` (the events, and so every result, are
 * sim_run's). 0 or -1 with e set. */
int run_simulate(struct sim *s, bool quiet, bool progress, struct fs_error *e);
/* The scenario as resolved, as the result file records it, on stdout. 0 or -1. */
int run_print_resolved(const struct scenario *sc, struct fs_error *e);
/* The result file opened before the run of the built `s` (an unwritable place fails
 * at once): `output`, or NULL for the default name (results/...); a path given is
 * checked first (h5out_check_path: never a device, FIFO, directory or an input of the
 * run; a symbolic link only when `force`); its time series' sink set. 0 or -1 with e
 * set; h5out_abort(out) is safe either way. */
int run_output_open(struct h5out *out, const char *output, bool force, struct scenario *sc, struct sim *s,
		    const struct h5out_origin *origin, struct fs_error *e);
/* "futexsim: results in PATH" on stderr, after h5out_finish. */
void run_output_note(const struct h5out *out, const struct sim *s);

#endif
