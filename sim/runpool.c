/* SPDX-License-Identifier: MIT */
#include "sim/runpool.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define RUNPOOL_MAX_JOBS 64u

unsigned runpool_default_jobs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1u : n > (long)RUNPOOL_MAX_JOBS ? RUNPOOL_MAX_JOBS : (unsigned)n;
}

int runpool_map(size_t n, runpool_task task, void *ctx, unsigned jobs, double *out, struct fs_error *e)
{
	int fds[RUNPOOL_MAX_JOBS][2];
	pid_t pids[RUNPOOL_MAX_JOBS];
	unsigned started = 0;
	int failed = 0;
	bool forwarded = false;

	if (!jobs)
		jobs = runpool_default_jobs();
	if (jobs > RUNPOOL_MAX_JOBS)
		jobs = RUNPOOL_MAX_JOBS;
	if (jobs > n)
		jobs = n ? (unsigned)n : 1;
	for (size_t i = 0; i < n; i++)
		out[i] = -1;
	fflush(NULL); /* a child's exit must not flush the caller's buffers again */
	for (unsigned w = 0; w < jobs; w++) {
		if (pipe(fds[w]) < 0) {
			failed = fs_fail(e, FS_ERR_RUNTIME, "pipe: %s", strerror(errno));
			break;
		}
		pids[w] = fork();
		if (pids[w] < 0) {
			close(fds[w][0]);
			close(fds[w][1]);
			failed = fs_fail(e, FS_ERR_RUNTIME, "fork: %s", strerror(errno));
			break;
		}
		if (pids[w] == 0) {
			close(fds[w][0]);
			for (size_t i = w; i < n; i += jobs) {
				double v = task(i, ctx);

				if (write(fds[w][1], &v, sizeof(v)) != (ssize_t)sizeof(v))
					_exit(2);
			}
			fflush(NULL);
			_exit(0);
		}
		close(fds[w][1]);
		started++;
	}
	for (unsigned w = 0; w < started; w++) {
		int status;

		for (size_t i = w; i < n; i += jobs) {
			double v = -1;
			ssize_t got;

			/* a signal for the caller (its SIGINT or SIGTERM handler ran: the
			 * caller was interrupted alone, not its process group) goes to the
			 * workers too, once, whose simulations then stop as the caller's
			 * would; the read is made again, or the figures would shift */
			while ((got = read(fds[w][0], &v, sizeof(v))) < 0 && errno == EINTR) {
				for (unsigned k = 0; !forwarded && k < started; k++)
					kill(pids[k], SIGINT);
				forwarded = true;
			}
			if (got != (ssize_t)sizeof(v))
				v = -1;
			out[i] = v;
			if (!(v >= 0) && !failed)
				failed = fs_fail(e, FS_ERR_RUNTIME, "some simulations failed (see above)");
		}
		close(fds[w][0]);
		while (waitpid(pids[w], &status, 0) < 0 && errno == EINTR)
			;
	}
	if (started < jobs && !failed)
		failed = -1;
	return failed ? -1 : 0;
}

struct cached_ctx {
	runpool_task task;
	void *ctx;
	const size_t *run; /* the tasks to run, by their index among all */
};

static double cached_task(size_t k, void *ctx)
{
	const struct cached_ctx *c = ctx;

	return c->task(c->run[k], c->ctx);
}

int runpool_map_cached(size_t n, char *const *keys, runpool_task task, void *ctx, unsigned jobs,
		       struct runcache *cache, double *out, struct fs_error *e)
{
	size_t *run = malloc((n ? n : 1) * sizeof(*run)), *same = malloc((n ? n : 1) * sizeof(*same)), m = 0;
	double *fig = malloc((n ? n : 1) * sizeof(*fig));
	struct cached_ctx c = { task, ctx, run };
	int rc = 0;

	if (!run || !same || !fig) {
		free(run), free(same), free(fig);
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	}
	/* each task: from the cache, else the first of its key runs and the others share it */
	for (size_t i = 0; i < n; i++) {
		same[i] = i;
		out[i] = -1;
		if (keys[i] && runcache_get(cache, keys[i], &out[i]))
			continue;
		for (size_t k = 0; keys[i] && k < m; k++)
			if (keys[run[k]] && !strcmp(keys[run[k]], keys[i])) {
				same[i] = run[k];
				break;
			}
		if (same[i] == i)
			run[m++] = i;
	}
	if (m)
		rc = runpool_map(m, cached_task, &c, jobs, fig, e);
	for (size_t k = 0; k < m; k++) {
		out[run[k]] = fig[k];
		if (keys[run[k]] && runcache_put(cache, keys[run[k]], fig[k], e) < 0)
			rc = -1;
	}
	for (size_t i = 0; i < n; i++)
		if (same[i] != i)
			out[i] = out[same[i]];
	free(run), free(same), free(fig);
	return rc;
}
