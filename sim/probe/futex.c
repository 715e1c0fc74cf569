/* SPDX-License-Identifier: MIT */
/* futexsim probe --check, the real side: futexsim's own copy of perf bench futex
 * hash's loop run on this machine, PR_FUTEX_HASH, and perf itself when it is
 * installed. docs/probe.md says what is compared and how.
 *
 * Each real run is a child process of its own, as each perf bench run is: a fresh
 * mm, so the private hash the kernel sizes (or prctl sets) in one run does not
 * carry over to the next (once a process switched to the global hash it cannot
 * switch back: EBUSY).
 *
 * The loop is perf's (tools/perf/bench/futex-hash.c): the main thread callocs each
 * thread's array of `futexes` words (all 0), the threads start together and each
 * calls FUTEX_WAIT (FUTEX_PRIVATE_FLAG unless shared) on every word in turn with the
 * expected value 1234, so every call returns EAGAIN at once; a thread checks the
 * stop flag after each full pass. Thread i is pinned with sched_setaffinity to the
 * CPU the caller gives (perf: online CPU i mod ncpus). */
#define _GNU_SOURCE /* sched_setaffinity, CPU_SET_S, syscall */
#include "sim/probe/probe.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/futex.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sim/perfstat.h"

/* include/uapi/linux/prctl.h, 6.16+; defined here for older headers */
#define PROBE_PR_FUTEX_HASH 78
#define PROBE_PR_FUTEX_HASH_SET_SLOTS 1
#define PROBE_PR_FUTEX_HASH_GET_SLOTS 2

#define FUTEX_VALUE 1234 /* perf's expected value: never the word's 0 */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- pinning ----------------------------------------------------------------------- */

static int pin_refused(struct fs_error *e, uint32_t cpu, int err)
{
	return probe_pin_failed(e, cpu, err, "futexsim probe --check runs the futex loop on chosen CPUs, as perf "
					      "bench does");
}

int probe_futex_check_affinity(const struct probe_topology *t, struct fs_error *e)
{
	for (int cpus = 1024; cpus <= (1 << 20); cpus *= 2) {
		cpu_set_t *set = CPU_ALLOC(cpus);
		size_t size = CPU_ALLOC_SIZE(cpus);

		if (!set)
			return fs_fail(e, FS_ERR_RUNTIME, "out of memory");
		if (sched_getaffinity(0, size, set) == 0) {
			for (uint32_t i = 0; i < t->ncpus; i++) {
				uint32_t cpu = t->cpus[i].linux_id;

				if (cpu >= size * 8 || !CPU_ISSET_S(cpu, size, set)) {
					CPU_FREE(set);
					return fs_fail(e, FS_ERR_RUNTIME,
						       "CPU %" PRIu32 " is online but this process may not run on it "
						       "(taskset, a cpuset or a container CPU limit): futexsim probe --check "
						       "pins its threads to the online CPUs with sched_setaffinity, as perf "
						       "bench does; run it without the restriction",
						       cpu);
				}
			}
			CPU_FREE(set);
			return 0;
		}
		CPU_FREE(set);
		if (errno != EINVAL)
			return fs_fail(e, FS_ERR_RUNTIME, "cannot read this process's CPU affinity: %s", strerror(errno));
	}
	return fs_fail(e, FS_ERR_RUNTIME, "cannot read this process's CPU affinity: %s", strerror(EINVAL));
}

/* ---- PR_FUTEX_HASH ----------------------------------------------------------------- */

/* What a PR_FUTEX_HASH return means: 1 supported, 0 not (why says so). */
static int hash_verdict(int rc, int err, char *why, size_t size)
{
	if (rc >= 0)
		return 1;
	if (err == EINVAL)
		snprintf(why, size,
			 "this kernel has no PR_FUTEX_HASH (prctl(PR_FUTEX_HASH, PR_FUTEX_HASH_GET_SLOTS) failed with EINVAL: "
			 "Linux before 6.16, or built without CONFIG_FUTEX_PRIVATE_HASH)");
	else
		snprintf(why, size, "prctl(PR_FUTEX_HASH, PR_FUTEX_HASH_GET_SLOTS) failed: %s", strerror(err));
	return 0;
}

bool probe_futex_hash_supported(char *why, size_t size)
{
	int fds[2], status;
	pid_t pid;
	int msg[2] = { -1, EINVAL };

	why[0] = '\0';
	if (pipe(fds) < 0) {
		snprintf(why, size, "cannot ask the kernel about PR_FUTEX_HASH: pipe: %s", strerror(errno));
		return false;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		snprintf(why, size, "cannot ask the kernel about PR_FUTEX_HASH: fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return false;
	}
	if (pid == 0) {
		/* in a child: asking leaves this process's mm as it was */
		close(fds[0]);
		msg[0] = prctl(PROBE_PR_FUTEX_HASH, PROBE_PR_FUTEX_HASH_GET_SLOTS, 0, 0, 0);
		msg[1] = msg[0] < 0 ? errno : 0;
		_exit(write(fds[1], msg, sizeof(msg)) == (ssize_t)sizeof(msg) ? 0 : 1);
	}
	close(fds[1]);
	if (read(fds[0], msg, sizeof(msg)) != (ssize_t)sizeof(msg)) {
		msg[0] = -1;
		msg[1] = EIO;
	}
	close(fds[0]);
	waitpid(pid, &status, 0);
	return hash_verdict(msg[0], msg[1], why, size) == 1;
}

/* ---- one real run ------------------------------------------------------------------ */

struct worker {
	pthread_t th;
	uint32_t cpu;
	uint32_t *futex;        /* calloc'd by the main thread, as perf does */
	uint32_t nfutexes;
	int op;
	pthread_barrier_t *start;
	atomic_int *done;
	/* out */
	int pin_err;
	uint64_t ops, unexpected;
	double t0, t1;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	uint64_t ops = 0, unexpected = 0;

	w->pin_err = probe_pin_self(w->cpu);
	pthread_barrier_wait(w->start);
	if (w->pin_err)
		return NULL;
	w->t0 = now_s();
	do {
		for (uint32_t i = 0; i < w->nfutexes; i++, ops++) {
			long ret = syscall(SYS_futex, &w->futex[i], w->op, FUTEX_VALUE, NULL, NULL, 0);

			if (ret != -1 || (errno != EAGAIN && errno != EWOULDBLOCK))
				unexpected++;
		}
	} while (!atomic_load_explicit(w->done, memory_order_relaxed));
	w->t1 = now_s();
	w->ops = ops;
	w->unexpected = unexpected;
	return NULL;
}

/* What the child sends back: a header, then (ops, seconds) per thread. */
struct child_report {
	int status;     /* 0 ran, 1 prctl refused the slot count, 2 pinning refused, 3 other failure */
	int err;        /* errno of the failure */
	uint32_t cpu;   /* status 2: the CPU */
	int32_t slots;  /* PR_FUTEX_HASH_GET_SLOTS with every thread started */
	uint64_t unexpected;
	char what[120]; /* status 3: what failed */
};

struct thread_sample {
	uint64_t ops;
	double secs;
};

static int write_all_fd(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int read_all_fd(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - floor(s)) * 1e9) };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* The child: runs the loop, reports through fd, exits. */
static void child_run(const struct probe_futex_run *r, int fd)
{
	struct child_report rep = { 0 };
	struct thread_sample *samples = calloc(r->threads, sizeof(*samples));
	struct worker *w = calloc(r->threads, sizeof(*w));
	pthread_barrier_t start;
	atomic_int done = 0;
	uint32_t created = 0;

	rep.slots = -1;
	if (!samples || !w) {
		rep.status = 3;
		rep.err = ENOMEM;
		snprintf(rep.what, sizeof(rep.what), "allocating the threads");
		goto report;
	}
	if (r->buckets != PROBE_BUCKETS_AUTO &&
	    prctl(PROBE_PR_FUTEX_HASH, PROBE_PR_FUTEX_HASH_SET_SLOTS, (unsigned long)r->buckets, 0, 0) != 0) {
		rep.status = 1;
		rep.err = errno;
		goto report;
	}
	if (pthread_barrier_init(&start, NULL, r->threads + 1) != 0) {
		rep.status = 3;
		rep.err = errno;
		snprintf(rep.what, sizeof(rep.what), "pthread_barrier_init");
		goto report;
	}
	for (uint32_t i = 0; i < r->threads; i++) {
		w[i].futex = calloc(r->futexes, sizeof(uint32_t));
		if (!w[i].futex) {
			rep.status = 3;
			rep.err = ENOMEM;
			snprintf(rep.what, sizeof(rep.what), "allocating the futex words");
			goto report;
		}
	}
	for (uint32_t i = 0; i < r->threads; i++) {
		int err;

		w[i].cpu = r->cpus[i];
		w[i].nfutexes = r->futexes;
		w[i].op = FUTEX_WAIT | (r->shared ? 0 : FUTEX_PRIVATE_FLAG);
		w[i].start = &start;
		w[i].done = &done;
		if ((err = pthread_create(&w[i].th, NULL, worker_main, &w[i])) != 0) {
			/* the started ones wait at the barrier for ever: the process exits */
			rep.status = 3;
			rep.err = err;
			snprintf(rep.what, sizeof(rep.what), "starting thread %" PRIu32, i);
			goto report;
		}
		created++;
	}
	/* every thread exists: the private hash has the size the kernel gave it */
	rep.slots = prctl(PROBE_PR_FUTEX_HASH, PROBE_PR_FUTEX_HASH_GET_SLOTS, 0, 0, 0);
	if (rep.slots < 0)
		rep.slots = -1;
	pthread_barrier_wait(&start);
	sleep_s(r->seconds);
	atomic_store(&done, 1);
	for (uint32_t i = 0; i < created; i++)
		pthread_join(w[i].th, NULL);
	for (uint32_t i = 0; i < r->threads; i++) {
		if (w[i].pin_err && rep.status == 0) {
			rep.status = 2;
			rep.err = w[i].pin_err;
			rep.cpu = w[i].cpu;
		}
		samples[i].ops = w[i].ops;
		samples[i].secs = w[i].t1 - w[i].t0;
		rep.unexpected += w[i].unexpected;
	}
report:
	if (write_all_fd(fd, &rep, sizeof(rep)) < 0 ||
	    (rep.status == 0 && write_all_fd(fd, samples, r->threads * sizeof(*samples)) < 0))
		_exit(1);
	_exit(0);
}

int probe_futex_run(const struct probe_futex_run *r, struct probe_futex_result *out, char *why, size_t why_size,
		    struct fs_error *e)
{
	struct child_report rep;
	struct thread_sample *samples;
	uint64_t *per_thread;
	int fds[2], status, rc = 0;
	pid_t pid;

	memset(out, 0, sizeof(*out));
	why[0] = '\0';
	samples = calloc(r->threads, sizeof(*samples));
	per_thread = calloc(r->threads, sizeof(*per_thread));
	if (!samples || !per_thread) {
		free(samples);
		free(per_thread);
		return fs_fail(e, FS_ERR_RUNTIME, "out of memory");
	}
	if (pipe(fds) < 0) {
		rc = fs_fail(e, FS_ERR_RUNTIME, "pipe: %s", strerror(errno));
		goto out;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		rc = fs_fail(e, FS_ERR_RUNTIME, "cannot start a process for the futex loop: fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		goto out;
	}
	if (pid == 0) {
		close(fds[0]);
		child_run(r, fds[1]);
	}
	close(fds[1]);
	if (read_all_fd(fds[0], &rep, sizeof(rep)) < 0 ||
	    (rep.status == 0 && read_all_fd(fds[0], samples, r->threads * sizeof(*samples)) < 0)) {
		close(fds[0]);
		waitpid(pid, &status, 0);
		rc = fs_fail(e, FS_ERR_RUNTIME, "the futex loop's process died (%s %d) before reporting",
			     WIFSIGNALED(status) ? "signal" : "exit status",
			     WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
		goto out;
	}
	close(fds[0]);
	waitpid(pid, &status, 0);
	switch (rep.status) {
	case 0:
		break;
	case 1:
		snprintf(why, why_size, "prctl(PR_FUTEX_HASH, PR_FUTEX_HASH_SET_SLOTS, %" PRId32 ") refused: %s%s",
			 r->buckets, strerror(rep.err),
			 rep.err == EINVAL ? " (no PR_FUTEX_HASH, or a slot count this kernel does not take)" : "");
		rc = 1;
		goto out;
	case 2:
		rc = pin_refused(e, rep.cpu, rep.err);
		goto out;
	default:
		rc = fs_fail(e, FS_ERR_RUNTIME, "the futex loop failed %s: %s", rep.what, strerror(rep.err));
		goto out;
	}
	for (uint32_t i = 0; i < r->threads; i++) {
		per_thread[i] = perf_ops_per_sec(samples[i].ops, samples[i].secs);
		out->ops += samples[i].ops;
		if (samples[i].secs > out->seconds)
			out->seconds = samples[i].secs;
	}
	{
		struct perf_average avg = perf_average(per_thread, r->threads);

		out->averaged = (double)avg.mean;
		out->stderr_pct = avg.stderr_pct;
	}
	out->unexpected = rep.unexpected;
	out->slots = rep.slots;
out:
	free(samples);
	free(per_thread);
	return rc;
}

/* ---- perf bench futex hash --------------------------------------------------------- */

int probe_perf_parse(const char *text, double *averaged, double *stderr_pct, double *secs)
{
	const char *p = text, *found = NULL;

	/* the last "Averaged" line at the start of a line */
	while ((p = strstr(p, "Averaged ")) != NULL) {
		if (p == text || p[-1] == '\n')
			found = p;
		p += 9;
	}
	if (!found)
		return -1;
	{
		double a, pct = 0, s = 0;
		int n = sscanf(found, "Averaged %lf operations/sec (+- %lf%%), total secs = %lf", &a, &pct, &s);

		if (n < 1 || !(a >= 0))
			return -1;
		*averaged = a;
		if (stderr_pct)
			*stderr_pct = n >= 2 ? pct : NAN;
		if (secs)
			*secs = n >= 3 ? s : NAN;
	}
	return 0;
}

/* `cmd` through /bin/sh, stdout and stderr into a malloc'd string; its wait status. */
static char *capture(const char *cmd, int *status)
{
	FILE *f;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	char chunk[4096];
	size_t n;

	fflush(NULL);
	f = popen(cmd, "r");
	if (!f)
		return NULL;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (len + n + 1 > cap) {
			char *grown;

			cap = (len + n + 1) * 2;
			grown = realloc(buf, cap);
			if (!grown) {
				free(buf);
				pclose(f);
				return NULL;
			}
			buf = grown;
		}
		memcpy(buf + len, chunk, n);
		len += n;
	}
	*status = pclose(f);
	if (!buf)
		buf = calloc(1, 1);
	else
		buf[len] = '\0';
	return buf;
}

static bool executable(const char *path)
{
	struct stat st;

	return access(path, X_OK) == 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The first line of `text` (at most `size` - 1 bytes). */
static void first_line(char *out, size_t size, const char *text)
{
	size_t n = strcspn(text, "\n");

	while (*text == '#' || *text == ' ') {
		/* perf's "# Running 'futex/hash' benchmark:" says nothing: the next line */
		const char *nl = strchr(text, '\n');

		if (!nl || !nl[1])
			break;
		text = nl + 1;
		n = strcspn(text, "\n");
	}
	snprintf(out, size, "%.*s", (int)(n < size ? n : size - 1), text);
}

void probe_perf_find(struct probe_perf *p)
{
	const char *env = getenv("FUTEXSIM_PERF");
	char cmd[600], *help;
	int status;

	memset(p, 0, sizeof(*p));
	if (env && !strcmp(env, "none")) {
		snprintf(p->why, sizeof(p->why), "not run: FUTEXSIM_PERF=none");
		return;
	}
	if (env && *env) {
		if (!executable(env)) {
			snprintf(p->why, sizeof(p->why), "not run: FUTEXSIM_PERF=%s is not an executable file", env);
			return;
		}
		snprintf(p->path, sizeof(p->path), "%s", env);
	} else {
		const char *path = getenv("PATH");
		char dir[512];

		for (const char *s = path && *path ? path : "/usr/bin:/bin"; *s;) {
			size_t n = strcspn(s, ":");

			snprintf(dir, sizeof(dir), "%.*s/perf", (int)n, n ? s : ".");
			if (executable(dir)) {
				snprintf(p->path, sizeof(p->path), "%s", dir);
				break;
			}
			s += n + (s[n] == ':');
		}
		if (!p->path[0]) {
			snprintf(p->why, sizeof(p->why), "not run: perf is not installed (no perf on PATH)");
			return;
		}
	}
	if (strchr(p->path, '\'')) {
		snprintf(p->why, sizeof(p->why), "not run: a quote in perf's path %.200s", p->path);
		p->path[0] = '\0';
		return;
	}
	p->usable = true;
	/* -b (a private hash of N buckets) came with perf 6.16's PR_FUTEX_HASH support */
	snprintf(cmd, sizeof(cmd), "'%s' bench futex hash -h 2>&1", p->path);
	help = capture(cmd, &status);
	p->buckets = help && strstr(help, "--buckets");
	if (!p->buckets)
		snprintf(p->why, sizeof(p->why), "%.200s bench futex hash has no -b (--buckets): perf before 6.16", p->path);
	free(help);
}

bool probe_perf_has(const struct probe_perf *p, const char *line, char *why, size_t size)
{
	char words[200], cmd[800], usage[80], *suite = NULL, *help;
	bool ok = true;
	int status;

	snprintf(words, sizeof(words), "%s", line);
	for (char *w = strtok(words, " "), *prev = NULL; w; prev = w, w = strtok(NULL, " "))
		if (prev && !strcmp(prev, "futex")) {
			suite = w;
			break;
		}
	if (!p->usable || !suite) {
		snprintf(why, size, "%s", p->usable ? "not a perf bench futex line" : p->why);
		return false;
	}
	snprintf(cmd, sizeof(cmd), "'%s' bench futex %s -h 2>&1", p->path, suite);
	help = capture(cmd, &status);
	snprintf(usage, sizeof(usage), "perf bench futex %s ", suite);
	if (!help || !strstr(help, usage)) {
		snprintf(why, size, "this perf has no futex %s", suite);
		free(help);
		return false;
	}
	/* the options after the suite, each as perf's help lists it: "-w, --nwakes" */
	for (char *w = strtok(NULL, " "); w && ok; w = strtok(NULL, " ")) {
		char opt[16];

		if (w[0] != '-' || strlen(w) != 2)
			continue;
		snprintf(opt, sizeof(opt), "%s, --", w);
		if (!strstr(help, opt)) {
			snprintf(why, size, "this perf's futex %s has no %s", suite, w);
			ok = false;
		}
	}
	free(help);
	return ok;
}

int probe_perf_line(const struct probe_perf *p, const char *line, char **text, char *why, size_t size)
{
	char cmd[800], first[200];
	int status = -1;

	*text = NULL;
	if (strncmp(line, "perf ", 5) || strpbrk(line, "'\"\\$`|;&<>")) {
		snprintf(why, size, "not a perf command line: %.100s", line);
		return -1;
	}
	snprintf(cmd, sizeof(cmd), "'%s' %s 2>&1", p->path, line + 5);
	*text = capture(cmd, &status);
	if (!*text) {
		snprintf(why, size, "cannot start %.200s: %.80s", p->path, strerror(errno));
		return -1;
	}
	if (status != 0) {
		first_line(first, sizeof(first), *text);
		snprintf(why, size, "%.100s failed (%s %d): %s", line, WIFEXITED(status) ? "exit status" : "wait status",
			 WIFEXITED(status) ? WEXITSTATUS(status) : status, first[0] ? first : "no output");
		free(*text);
		*text = NULL;
		return -1;
	}
	return 0;
}

int probe_perf_figure(const char *cmd, const char *unit, double *v, char *why, size_t why_size)
{
	char line[200], *text, *found, *start, *end;
	int status = -1;

	text = capture(cmd, &status);
	if (!text) {
		snprintf(why, why_size, "cannot run %.200s: %.80s", cmd, strerror(errno));
		return -1;
	}
	found = strstr(text, unit);
	for (start = found; start && start > text && start[-1] != '\n'; start--)
		;
	if (status != 0 || !start || (*v = strtod(start, &end), end == start) || !(*v >= 0)) {
		first_line(line, sizeof(line), text);
		snprintf(why, why_size, "%.200s %s: %s", cmd, status != 0 ? "failed" : "printed no figure",
			 line[0] ? line : "no output");
		free(text);
		return -1;
	}
	free(text);
	return 0;
}

int probe_perf_run(struct probe_perf *p, uint32_t threads, bool shared, int32_t buckets, double *averaged,
		   double *stderr_pct, char *why, size_t why_size)
{
	char cmd[700], bflag[32] = "", line[200];
	char *text;
	int status = -1;

	why[0] = '\0';
	if (!p->usable) {
		snprintf(why, why_size, "%s", p->why);
		return 1;
	}
	if (buckets != PROBE_BUCKETS_AUTO) {
		if (!p->buckets) {
			snprintf(why, why_size, "%s", p->why);
			return 1;
		}
		snprintf(bflag, sizeof(bflag), " -b %" PRId32, buckets);
	}
	snprintf(cmd, sizeof(cmd), "'%s' bench futex hash -r 1 -t %" PRIu32 "%s%s 2>&1", p->path, threads,
		 shared ? " -S" : "", bflag);
	text = capture(cmd, &status);
	if (!text) {
		snprintf(p->why, sizeof(p->why), "not run: cannot start %.200s: %.80s", p->path, strerror(errno));
		p->usable = false;
		snprintf(why, why_size, "%s", p->why);
		return 1;
	}
	if (status != 0 || probe_perf_parse(text, averaged, stderr_pct, NULL) < 0) {
		first_line(line, sizeof(line), text);
		if (status != 0 && WIFEXITED(status))
			snprintf(p->why, sizeof(p->why), "perf bench futex hash failed (exit status %d): %s", WEXITSTATUS(status),
				 line[0] ? line : "no output");
		else if (status != 0)
			snprintf(p->why, sizeof(p->why), "perf bench futex hash failed (wait status %d): %s", status,
				 line[0] ? line : "no output");
		else
			snprintf(p->why, sizeof(p->why), "perf bench futex hash printed no Averaged line: %s",
				 line[0] ? line : "no output");
		free(text);
		/* -b may fail where the rest works (a kernel without PR_FUTEX_HASH) */
		if (buckets == PROBE_BUCKETS_AUTO)
			p->usable = false;
		snprintf(why, why_size, "%s", p->why);
		return 1;
	}
	free(text);
	return 0;
}
