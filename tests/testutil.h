/* Helpers shared by the Check tests (linked into every tests/check_*.c binary). */
#ifndef FUTEXSIM_TESTUTIL_H
#define FUTEXSIM_TESTUTIL_H

#include <check.h>
#include <stddef.h>

#include "models/machine.h"
#include "sim/results.h"
#include "sim/scenario.h"
#include "sim/sim.h"

/* Builds a machine from YAML text; fails the test on any error. */
void tu_machine(struct machine *m, const char *yaml);

/* Writes `text` to a fresh temporary file and returns its path (static buffer
 * per call site is not needed: the caller frees the result). */
char *tu_write_temp(const char *text);

/* Loads, builds and runs a scenario file with overrides; fails the test on error.
 * The caller frees with tu_run_free. */
struct tu_run {
	struct scenario sc;
	struct sim s;
};
void tu_run(struct tu_run *r, const char *path, const char *const *sets, size_t nsets);
void tu_run_free(struct tu_run *r);

/* Sum of transfers (all classes) over the lines of memmap objects whose name
 * starts with `prefix`. */
unsigned long long tu_transfers_of(const struct sim *s, const char *prefix);

/* The binary under test: $FUTEXSIM, else bin/futexsim. */
const char *tu_bin(void);

/* Runs bin/futexsim with `args` (a shell-quoted string); stores stdout+stderr
 * (malloc'd) and returns the exit status. */
int tu_futexsim(const char *args, char **output);

/* The same for a whole /bin/sh command line. */
int tu_shell(const char *command, char **output);

/* Runs a suite, prints Check's summary line, returns the process exit status. */
int tu_run_suite(Suite *s);

#endif
