/* SPDX-License-Identifier: MIT */
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

/* Writes `text` to a fresh temporary file /tmp/futexsim-test-XXXXXX.yaml and
 * returns its path (malloc'd: the caller unlinks and frees it). */
char *tu_write_temp(const char *text);

/* Loads, builds and runs a scenario file with overrides; fails the test on error.
 * The caller frees with tu_run_free. */
struct tu_run {
	struct scenario sc;
	struct sim s;
};
void tu_run(struct tu_run *r, const char *path, const char *const *sets, size_t nsets);
void tu_run_free(struct tu_run *r);

/* The run's workload figure `name` (models/workload.h); the test fails without it. */
double tu_figure(const struct tu_run *r, const char *name);

/* Sum of transfers (all classes) over the lines of memmap objects whose name
 * starts with `prefix`. */
unsigned long long tu_transfers_of(const struct sim *s, const char *prefix);
/* Reads and writes by the run's tasks of the lines whose object name starts with
 * `prefix` (a prefetcher's reads are not accesses: they move lines, not data to a task). */
unsigned long long tu_accesses_of(const struct sim *s, const char *prefix);

/* The binary under test: $FUTEXSIM, else bin/futexsim. */
const char *tu_bin(void);

/* Runs bin/futexsim with `args` (a shell-quoted string); stores stdout+stderr
 * (malloc'd) and returns the exit status. */
int tu_futexsim(const char *args, char **output);

/* tu_futexsim with the arguments built like printf. */
int tu_futexsimf(char **output, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The same for a whole /bin/sh command line. */
int tu_shell(const char *command, char **output);

/* tu_shell with the command line built like printf. */
int tu_shellf(char **output, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Whether `path` exists. */
int tu_exists(const char *path);

/* Makes a fresh directory /tmp/PREFIX-XXXXXX and stores its path in dir (64 bytes);
 * removes it again. Usable outside tests (they exit on failure, no ck_assert). */
void tu_mkdtemp(char dir[64], const char *prefix);
void tu_rmtree(const char *dir);

/* A shell command that marks the result file named after it incomplete, as an
 * interrupted run leaves it. */
#define TU_MARK_INCOMPLETE \
	"/usr/bin/python3 -c 'import h5py, sys; h5py.File(sys.argv[1], \"r+\").attrs[\"incomplete\"] = 1' "

/* Runs a suite, prints Check's summary line, returns the process exit status. */
int tu_run_suite(Suite *s);

#endif
