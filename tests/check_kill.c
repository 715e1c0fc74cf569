/* SPDX-License-Identifier: MIT */
/* A run stopped at any moment never leaves a result file that is not what it
 * says it is:
 *   - SIGKILL (cannot be caught): no file under the final name, unless the run
 *     had already finished, in which case the file there is complete; at most
 *     the recognisable temporary ".NAME.PID.tmp" remains beside it;
 *   - SIGINT: exit 130 and a readable file marked incomplete (or, when the
 *     signal came after the simulation ended, exit 0 and a complete file; or,
 *     before the handler was installed, death by the signal and no file).
 * The moments are drawn from a seeded generator over the length of one whole
 * run measured first, so they cover loading, simulating and writing; nothing
 * here asserts how long anything takes.
 */
#include <check.h>
#include <dirent.h>
#include <hdf5.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/testutil.h"

#define TRIALS 12
#define SEED 20261130u

static pid_t start_run(const char *out)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
			_exit(127);
		/* many lines with traffic, so writing the file takes a while too */
		execl(tu_bin(), tu_bin(), "run", "scenarios/quickstart.yaml", "--set", "run.duration=30ms", "--set",
		      "run.warmup=1ms", "--set", "workload.futexes=16384", "-o", out, (char *)NULL);
		_exit(127);
	}
	return pid;
}

static double now_secs(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Wall time of one whole run, to spread the signals over. */
static double whole_run_secs(const char *dir)
{
	char out[512];
	double t0 = now_secs();
	int status;
	pid_t pid;

	snprintf(out, sizeof(out), "%s/whole.h5", dir);
	pid = start_run(out);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the run itself failed");
	unlink(out);
	return now_secs() - t0;
}

/* The root attribute `incomplete` of a file that must open, -1 when absent. */
static int incomplete_attr(const char *path)
{
	hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	int v = -1;

	ck_assert_msg(f >= 0, "%s does not open as HDF5", path);
	if (H5Aexists(f, "incomplete") > 0) {
		hid_t a = H5Aopen(f, "incomplete", H5P_DEFAULT);

		ck_assert_int_ge(H5Aread(a, H5T_NATIVE_INT, &v), 0);
		H5Aclose(a);
	}
	H5Fclose(f);
	return v;
}

/* Every entry of `dir` is the final name or a temporary of the run `pid`;
 * returns how many temporaries there were (and removes them). */
static int check_leftovers(const char *dir, const char *final_name, pid_t pid)
{
	char tmp[128];
	DIR *d = opendir(dir);
	struct dirent *ent;
	int temps = 0;

	snprintf(tmp, sizeof(tmp), ".%s.%ld.tmp", final_name, (long)pid);
	ck_assert_ptr_nonnull(d);
	while ((ent = readdir(d))) {
		char path[600];

		if (!strcmp(ent->d_name, ".") || !strcmp(ent->d_name, ".."))
			continue;
		ck_assert_msg(!strcmp(ent->d_name, final_name) || !strcmp(ent->d_name, tmp),
			      "unexpected file %s/%s", dir, ent->d_name);
		if (!strcmp(ent->d_name, tmp)) {
			temps++;
			snprintf(path, sizeof(path), "%s/%s", dir, ent->d_name);
			unlink(path);
		}
	}
	closedir(d);
	return temps;
}

/* Uniform in [0, 1.1 x whole) from a seeded generator (rand_r: no shared state). */
static useconds_t draw_delay(unsigned *seed, double whole)
{
	return (useconds_t)((double)rand_r(seed) / RAND_MAX * 1.1 * whole * 1e6);
}

/* Starts a run writing `out`, sends `sig` after `delay`; its wait status, and its pid in *pid. */
static int signal_run(const char *out, int sig, useconds_t delay, pid_t *pid)
{
	int status;

	*pid = start_run(out);
	usleep(delay);
	kill(*pid, sig);
	ck_assert_int_eq(waitpid(*pid, &status, 0), *pid);
	return status;
}

START_TEST(test_sigkill_never_leaves_a_final_file)
{
	char dir[64], out[512];
	unsigned seed = SEED;
	double whole;
	int finished = 0, killed = 0;

	tu_mkdtemp(dir, "futexsim-kill");
	whole = whole_run_secs(dir);
	snprintf(out, sizeof(out), "%s/x.h5", dir);
	for (int i = 0; i < TRIALS; i++) {
		useconds_t delay = draw_delay(&seed, whole);
		pid_t pid;
		int status = signal_run(out, SIGKILL, delay, &pid);

		if (WIFSIGNALED(status)) {
			killed++;
			/* killed after the rename that publishes the file (between it and the
			 * exit): then the file under the final name is the complete one */
			if (tu_exists(out)) {
				ck_assert_msg(incomplete_attr(out) == 0,
					      "trial %d (SIGKILL after %u us): an incomplete file under the final name", i,
					      (unsigned)delay);
				unlink(out);
			}
		} else {
			/* it finished first: what is there must be the complete file */
			finished++;
			ck_assert_int_eq(WEXITSTATUS(status), 0);
			ck_assert_int_eq(incomplete_attr(out), 0);
			unlink(out);
		}
		check_leftovers(dir, "x.h5", pid);
	}
	/* the delays cover the run: some trial must have caught it running */
	ck_assert_msg(killed > 0, "none of %d runs killed, %d finished first", TRIALS, finished);
	tu_rmtree(dir);
}
END_TEST

START_TEST(test_sigint_leaves_an_incomplete_file)
{
	char dir[64], out[512];
	unsigned seed = SEED + 1;
	double whole;
	int interrupted = 0;

	tu_mkdtemp(dir, "futexsim-int");
	whole = whole_run_secs(dir);
	snprintf(out, sizeof(out), "%s/x.h5", dir);
	for (int i = 0; i < TRIALS; i++) {
		useconds_t delay = draw_delay(&seed, whole);
		pid_t pid;
		int status = signal_run(out, SIGINT, delay, &pid);

		if (WIFSIGNALED(status)) {
			/* before the handler was installed: nothing written */
			ck_assert_int_eq(WTERMSIG(status), SIGINT);
			ck_assert(!tu_exists(out));
		} else if (WEXITSTATUS(status) == 130) {
			interrupted++;
			ck_assert_msg(incomplete_attr(out) == 1, "trial %d (SIGINT after %u us): not marked incomplete",
				      i, (unsigned)delay);
		} else {
			ck_assert_msg(WEXITSTATUS(status) == 0, "trial %d: exit status %d", i, WEXITSTATUS(status));
			ck_assert_int_eq(incomplete_attr(out), 0);
		}
		/* a caught signal always cleans up its temporary file */
		ck_assert_int_eq(check_leftovers(dir, "x.h5", pid), 0);
		unlink(out);
	}
	ck_assert_msg(interrupted > 0, "none of %d runs interrupted", TRIALS);
	tu_rmtree(dir);
}
END_TEST

/* SIGHUP stops a run like SIGTERM (exit 130, its temporary file removed), and an
 * interrupted run never replaces an earlier file under its name: that file keeps its
 * contents and permissions, the incomplete one goes to x.incomplete.h5 beside it. A
 * complete run that replaces a file keeps the file's permissions; a 255-byte name
 * is writable (the temporary name keeps at most 200 bytes of it). */
START_TEST(test_sighup_and_earlier_files)
{
	char dir[64], out[512], alt[512], tmp[600], longname[300], cmd[1200], *text;
	struct stat st;
	pid_t pid;
	int status, waited = 0;

	tu_mkdtemp(dir, "futexsim-hup");
	snprintf(out, sizeof(out), "%s/x.h5", dir);
	snprintf(alt, sizeof(alt), "%s/x.incomplete.h5", dir);
	snprintf(cmd, sizeof(cmd), "'%s' run scenarios/quickstart.yaml --set run.duration=50us -o '%s' > /dev/null 2>&1 && "
		 "chmod 640 '%s'", tu_bin(), out, out);
	ck_assert_int_eq(tu_shell(cmd, &text), 0);
	free(text);
	pid = start_run(out);
	/* once its temporary file exists the run is under way, its handlers installed */
	snprintf(tmp, sizeof(tmp), "%s/.x.h5.%ld.tmp", dir, (long)pid);
	while (!tu_exists(tmp) && waited++ < 2000)
		usleep(10000);
	ck_assert_msg(tu_exists(tmp), "no temporary file appeared");
	usleep(100000);
	kill(pid, SIGHUP);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 130, "status %d", status);
	ck_assert_int_eq(incomplete_attr(out), 0); /* the earlier, complete file */
	ck_assert_int_eq(stat(out, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0640);
	ck_assert_int_eq(incomplete_attr(alt), 1);
	unlink(alt);
	ck_assert_int_eq(check_leftovers(dir, "x.h5", pid), 0);

	/* a complete run replaces it, with its permissions */
	snprintf(cmd, sizeof(cmd), "'%s' run scenarios/quickstart.yaml --set run.duration=50us -o '%s' > /dev/null 2>&1",
		 tu_bin(), out);
	ck_assert_int_eq(tu_shell(cmd, &text), 0);
	free(text);
	ck_assert_int_eq(stat(out, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0640);

	memset(longname, 'n', 252);
	memcpy(longname + 252, ".h5", 4); /* 255 bytes */
	snprintf(cmd, sizeof(cmd), "'%s' run scenarios/quickstart.yaml --set run.duration=50us -o '%s/%s' > /dev/null 2>&1",
		 tu_bin(), dir, longname);
	ck_assert_int_eq(tu_shell(cmd, &text), 0);
	free(text);
	snprintf(cmd, sizeof(cmd), "%s/%s", dir, longname);
	ck_assert(tu_exists(cmd));
	tu_rmtree(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("kill");
	TCase *tc = tcase_create("kill");

	tcase_add_test(tc, test_sigkill_never_leaves_a_final_file);
	tcase_add_test(tc, test_sigint_leaves_an_incomplete_file);
	tcase_add_test(tc, test_sighup_and_earlier_files);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
