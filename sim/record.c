/* SPDX-License-Identifier: MIT */
#include "sim/record.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* --- what the tracers print, as records --- */

enum rec_kind { RC_FUTEX, RC_CLONE, RC_SLEEP, RC_EXIT, RC_EXIT_GROUP, RC_END, RC_EXEC };

struct rec {
	uint8_t kind;
	bool thread;              /* clone: CLONE_THREAD (strace; perf tells by the child's PID) */
	uint32_t line, tid, pid;  /* pid 0: unknown (strace prints TIDs) */
	uint32_t child;
	int32_t cpu;
	uint64_t ts, dur, cleartid;
	struct trace_event ev;    /* futex: op, uaddr, val, val2, uaddr2, val3, ret, timeout */
};

struct recs {
	struct rec *v;
	uint32_t n, cap;
};

/* A call whose line ended "<unfinished ...>" (strace) or whose sys_enter came (perf). */
struct pending {
	uint32_t tid, line;
	uint64_t ts;
	int32_t cpu;
	char *text;               /* strace: the line so far; perf: the enter's fields */
	char event[48];           /* perf: the syscall */
};

/* perf: a thread off its CPU outside a traced call (switch events), and what the
 * gap before its next event has of that so far. */
struct offcpu {
	uint32_t tid;
	uint64_t out_since;       /* 0: on its CPU, or off inside a traced call */
	bool preempt;             /* switched out runnable */
	uint64_t preempted, slept;
	uint64_t in_since;        /* on a CPU since then (0: off) */
	int32_t in_cpu;
	uint64_t on_time[16];     /* time on CPU cpu_of[k], for the 16 CPUs it was on first [A: enough] */
	int32_t cpu_of[16];
	uint32_t ncpus;
};

struct pendings {
	struct pending *v;
	uint32_t n, cap;
	struct offcpu *oc;
	uint32_t noc, occap;
};

static struct rec *rec_add(struct recs *r, struct fs_error *e)
{
	if (r->n == TRACE_MAX_EVENTS + TRACE_MAX_THREADS) {
		fs_fail(e, FS_ERR_INPUT, "more than %u records: more than a trace may hold", r->n);
		return NULL;
	}
	if (trace_grow((void **)&r->v, &r->cap, r->n + 1, sizeof(*r->v)) < 0) {
		fs_fail(e, FS_ERR_LIMIT, "out of memory reading the tracer's output");
		return NULL;
	}
	memset(&r->v[r->n], 0, sizeof(r->v[r->n]));
	r->v[r->n].cpu = -1;
	return &r->v[r->n++];
}

static struct pending *pending_of(struct pendings *p, uint32_t tid)
{
	for (uint32_t i = 0; i < p->n; i++)
		if (p->v[i].tid == tid)
			return &p->v[i];
	return NULL;
}

static void pending_drop(struct pendings *p, struct pending *x)
{
	free(x->text);
	*x = p->v[--p->n];
}

static struct pending *pending_add(struct pendings *p, uint32_t tid, struct fs_error *e)
{
	if (trace_grow((void **)&p->v, &p->cap, p->n + 1, sizeof(*p->v)) < 0) {
		fs_fail(e, FS_ERR_LIMIT, "out of memory reading the tracer's output");
		return NULL;
	}
	memset(&p->v[p->n], 0, sizeof(p->v[p->n]));
	p->v[p->n].tid = tid;
	return &p->v[p->n++];
}

static void pendings_free(struct pendings *p)
{
	for (uint32_t i = 0; i < p->n; i++)
		free(p->v[i].text);
	free(p->v);
	free(p->oc);
}

static struct offcpu *offcpu_of(struct pendings *p, uint32_t tid, struct fs_error *e)
{
	for (uint32_t i = 0; i < p->noc; i++)
		if (p->oc[i].tid == tid)
			return &p->oc[i];
	if (trace_grow((void **)&p->oc, &p->occap, p->noc + 1, sizeof(*p->oc)) < 0) {
		fs_fail(e, FS_ERR_LIMIT, "out of memory reading the tracer's output");
		return NULL;
	}
	p->oc[p->noc] = (struct offcpu){ .tid = tid, .in_cpu = -1 };
	return &p->oc[p->noc++];
}

/* Its time on `cpu` grows by `ns`. */
static void offcpu_on(struct offcpu *o, int32_t cpu, uint64_t ns)
{
	uint32_t k = 0;

	while (k < o->ncpus && o->cpu_of[k] != cpu)
		k++;
	if (k == o->ncpus) {
		if (o->ncpus == 16)
			return;
		o->cpu_of[o->ncpus++] = cpu;
	}
	o->on_time[k] += ns;
}

/* A PERF_RECORD_SWITCH of thread tid at ts: off its CPU (runnable when preempted)
 * or back on it. Off-CPU time inside a traced call is the call's, not the gap's. */
static int perf_switch(struct pendings *p, uint32_t tid, int32_t cpu, uint64_t ts, const char *what,
		       struct fs_error *e)
{
	struct offcpu *o = offcpu_of(p, tid, e);

	if (!o)
		return -1;
	/* where it ran, by time: the placement's basis (thread cpu=) */
	if (!strncmp(what, "OUT", 3) && o->in_since && ts >= o->in_since)
		offcpu_on(o, o->in_cpu, ts - o->in_since);
	o->in_since = strncmp(what, "OUT", 3) ? ts : 0;
	o->in_cpu = cpu;
	if (!strncmp(what, "OUT", 3)) {
		o->out_since = pending_of(p, tid) ? 0 : ts;
		o->preempt = strstr(what, "preempt") != NULL;
	} else if (o->out_since && ts >= o->out_since) {
		*(o->preempt ? &o->preempted : &o->slept) += ts - o->out_since;
		o->out_since = 0;
	}
	return 0;
}

/* The gap's off-CPU time goes with the thread's record `r`, and starts again. */
static void perf_gap_to(struct pendings *p, struct rec *r)
{
	for (uint32_t i = 0; i < p->noc; i++)
		if (p->oc[i].tid == r->tid) {
			r->ev.preempted = p->oc[i].preempted;
			r->ev.slept = p->oc[i].slept;
			p->oc[i].preempted = p->oc[i].slept = 0;
			return;
		}
}

/* A number as the tracers print them: 0x hex or decimal. */
static bool number(const char *s, const char **end, uint64_t *out)
{
	char *e;

	if (!(*s >= '0' && *s <= '9'))
		return false;
	errno = 0;
	*out = strtoull(s, &e, 0);
	if (errno)
		return false;
	if (end)
		*end = e;
	return true;
}

/* "SECONDS.FRACTION" into ns (strace -ttt: microseconds; perf --ns: nanoseconds). */
static bool timestamp(const char *s, const char **end, uint64_t *ns)
{
	uint64_t sec = 0, frac = 0, scale = 1000000000ull;
	const char *p = s;

	if (!(*p >= '0' && *p <= '9'))
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (sec > UINT64_MAX / 10 / 1000000000ull)
			return false;
		sec = sec * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			if (scale > 1) {
				scale /= 10;
				frac += (uint64_t)(*p - '0') * scale;
			}
	*ns = sec * 1000000000ull + frac;
	if (end)
		*end = p;
	return true;
}

/* --- strace --- */

/* The futex(2) call of a complete strace line: "futex(ARGS) = RET <DUR>". */
static int strace_futex(struct rec *r, const char *args, const char *name, struct fs_error *e)
{
	uint64_t a[6] = { 0 };
	const char *p = args;
	int n = 0;

	while (n < 6) {
		while (*p == ' ')
			p++;
		if (!number(p, &p, &a[n]))
			break;
		n++;
		while (*p == ' ')
			p++;
		if (*p != ',')
			break;
		p++;
	}
	if (n < 3)
		return trace_fail_line(e, name, r->line,
			       "futex arguments are not numbers: strace must run with -e raw=futex (futexsim record does)");
	r->ev.uaddr = a[0];
	r->ev.op = (uint32_t)a[1];
	r->ev.val = (uint32_t)a[2];
	switch (r->ev.op & FX_CMD_MASK) {
	case FX_REQUEUE:
	case FX_CMP_REQUEUE:
	case FX_WAKE_OP:
	case FX_CMP_REQUEUE_PI:
		/* the timeout argument is nr_requeue (val2) */
		r->ev.val2 = (uint32_t)a[3];
		r->ev.has_val2 = true;
		r->ev.uaddr2 = a[4];
		r->ev.has_uaddr2 = true;
		break;
	case FX_WAIT_REQUEUE_PI:
		r->ev.uaddr2 = a[4];
		r->ev.has_uaddr2 = true;
		r->ev.timeout = a[3] != 0;
		break;
	default:
		r->ev.timeout = a[3] != 0;
		break;
	}
	if ((r->ev.op & FX_CMD_MASK) == FX_WAIT_BITSET || (r->ev.op & FX_CMD_MASK) == FX_WAKE_BITSET ||
	    (r->ev.op & FX_CMD_MASK) == FX_CMP_REQUEUE || (r->ev.op & FX_CMD_MASK) == FX_WAKE_OP ||
	    (r->ev.op & FX_CMD_MASK) == FX_CMP_REQUEUE_PI) {
		r->ev.val3 = (uint32_t)a[5];
		r->ev.has_val3 = true;
	}
	return 0;
}

/* A value in an argument list: what follows "key=" up to , } or ). */
static bool field(const char *args, const char *key, char *out, size_t len)
{
	const char *p = strstr(args, key);
	size_t n;

	if (!p)
		return false;
	p += strlen(key);
	n = strcspn(p, ",})");
	if (n >= len)
		n = len - 1;
	memcpy(out, p, n);
	out[n] = '\0';
	return true;
}

static void strace_clone(struct rec *r, const char *name, const char *args)
{
	char flags[512] = "", tidptr[32] = "";
	uint64_t v;

	r->thread = field(args, "flags=", flags, sizeof(flags)) && strstr(flags, "CLONE_THREAD");
	/* clone3's child_tid, clone's child_tidptr: the word the kernel clears and wakes at exit */
	if (strstr(flags, "CLONE_CHILD_CLEARTID") &&
	    (field(args, !strcmp(name, "clone3") ? "child_tid=" : "child_tidptr=", tidptr, sizeof(tidptr))) &&
	    number(tidptr, NULL, &v))
		r->cleartid = v;
}

/* The result of a complete line: " = RET [ENAME (text)] [<DUR>]". */
static int strace_result(char *text, struct rec *r, bool *unknown, const char *name, struct fs_error *e)
{
	char *eq = NULL, *lt;
	const char *p;
	uint64_t v;

	for (char *s = strstr(text, " = "); s; s = strstr(s + 1, " = "))
		eq = s;
	if (!eq)
		return trace_fail_line(e, name, r->line, "no result (' = ...') on a complete strace line");
	*eq = '\0';
	p = eq + 3;
	lt = strrchr(p, '<');
	if (lt && timestamp(lt + 1, NULL, &v))
		r->dur = v;
	*unknown = false;
	if (*p == '?') {
		*unknown = true;
		return 0;
	}
	if (!strncmp(p, "-1 ", 3)) {
		char ename[32];
		size_t n = strcspn(p + 3, " ");
		int err;

		if (n >= sizeof(ename))
			n = sizeof(ename) - 1;
		memcpy(ename, p + 3, n);
		ename[n] = '\0';
		err = trace_errno_parse(ename);
		r->ev.ret = err ? -err : -1;
		return 0;
	}
	if (!number(p, NULL, &v) || v > INT32_MAX)
		return trace_fail_line(e, name, r->line, "a result strace should not print: '%.40s'", p);
	r->ev.ret = (int64_t)v;
	return 0;
}

/* One complete call "NAME(ARGS) = RET <DUR>" of thread tid at ts. */
static int strace_call(struct recs *out, uint32_t tid, uint64_t ts, uint32_t line, char *text, const char *name,
		       struct fs_error *e)
{
	static const char *const sleeps[] = { "nanosleep", "clock_nanosleep", NULL };
	char call[48], *paren = strchr(text, '('), *args;
	struct rec *r;
	bool unknown;
	size_t n;

	if (!paren || (n = (size_t)(paren - text)) >= sizeof(call))
		return trace_fail_line(e, name, line, "not a line of strace -f -ttt -T output: '%.60s'", text);
	memcpy(call, text, n);
	call[n] = '\0';
	args = paren + 1;
	if (!(r = rec_add(out, e)))
		return -1;
	r->tid = tid;
	r->ts = ts;
	r->line = line;
	if (strace_result(text, r, &unknown, name, e) < 0)
		return -1;
	if (!strcmp(call, "futex")) {
		r->kind = RC_FUTEX;
		if (unknown)
			r->ev.ret = TRACE_RET_UNFINISHED, r->dur = 0;
		return strace_futex(r, args, name, e);
	}
	if (!strcmp(call, "futex_waitv") || !strcmp(call, "futex_wake") || !strcmp(call, "futex_wait") ||
	    !strcmp(call, "futex_requeue")) {
		r->kind = RC_FUTEX;
		trace_op_parse(call, &r->ev.op);
		if (unknown)
			r->ev.ret = TRACE_RET_UNFINISHED, r->dur = 0;
		return 0;
	}
	for (int i = 0; sleeps[i]; i++)
		if (!strcmp(call, sleeps[i])) {
			r->kind = RC_SLEEP;
			return 0;
		}
	if (!strcmp(call, "clone") || !strcmp(call, "clone3") || !strcmp(call, "fork") || !strcmp(call, "vfork")) {
		r->kind = RC_CLONE;
		r->child = !unknown && r->ev.ret > 0 ? (uint32_t)r->ev.ret : 0;
		strace_clone(r, call, args);
		return 0;
	}
	if (!strcmp(call, "exit") || !strcmp(call, "exit_group")) {
		r->kind = !strcmp(call, "exit") ? RC_EXIT : RC_EXIT_GROUP;
		r->dur = 0;
		return 0;
	}
	if (!strcmp(call, "execve")) {
		r->kind = RC_EXEC;
		if (r->ev.ret < 0 || unknown)
			out->n--; /* a failed exec (the PATH search): nothing happened */
		return 0;
	}
	out->n--; /* another syscall (a wider -e trace=): not part of the trace */
	return 0;
}

static int strace_line(char *s, uint32_t line, struct recs *out, struct pendings *pend, const char *name,
		       struct fs_error *e)
{
	uint64_t tid, ts;
	const char *p = s;
	struct pending *x;
	size_t len;

	while (*p == ' ')
		p++;
	if (!number(p, &p, &tid) || tid == 0 || tid > UINT32_MAX || *p != ' ')
		return trace_fail_line(e, name, line, "not a line of strace -f -ttt -T output (it starts with the TID): '%.60s'", s);
	while (*p == ' ')
		p++;
	if (!timestamp(p, &p, &ts) || *p != ' ')
		return trace_fail_line(e, name, line, "no -ttt timestamp after the TID: '%.60s'", s);
	p++;
	if (!strncmp(p, "+++ ", 4)) {
		struct rec *r = rec_add(out, e);

		if (!r)
			return -1;
		r->kind = RC_END;
		r->tid = (uint32_t)tid;
		r->ts = ts;
		r->line = line;
		return 0;
	}
	if (!strncmp(p, "--- ", 4))
		return 0; /* a signal */
	if (!strncmp(p, "<... ", 5)) {
		const char *rest = strstr(p, " resumed>");
		char *whole;

		x = pending_of(pend, (uint32_t)tid);
		if (!rest || !x)
			return trace_fail_line(e, name, line, "a resumed call with no unfinished one before it");
		rest += strlen(" resumed>");
		whole = malloc(strlen(x->text) + strlen(rest) + 1);
		if (!whole)
			return fs_fail(e, FS_ERR_LIMIT, "out of memory reading the tracer's output");
		strcpy(whole, x->text);
		strcat(whole, rest);
		ts = x->ts;
		line = x->line;
		pending_drop(pend, x);
		if (strace_call(out, (uint32_t)tid, ts, line, whole, name, e) < 0) {
			free(whole);
			return -1;
		}
		free(whole);
		return 0;
	}
	len = strlen(p);
#define UNFINISHED " <unfinished ...>"
	if (len > sizeof(UNFINISHED) - 1 && !strcmp(p + len - (sizeof(UNFINISHED) - 1), UNFINISHED)) {
		len -= sizeof(UNFINISHED) - 1;
		if (pending_of(pend, (uint32_t)tid))
			return trace_fail_line(e, name, line, "thread %" PRIu64 " has two unfinished calls", tid);
		if (!(x = pending_add(pend, (uint32_t)tid, e)) || !(x->text = strndup(p, len)))
			return fs_fail(e, FS_ERR_LIMIT, "out of memory reading the tracer's output");
		x->ts = ts;
		x->line = line;
		return 0;
	}
	{
		char *copy = strdup(p);
		int rc;

		if (!copy)
			return fs_fail(e, FS_ERR_LIMIT, "out of memory reading the tracer's output");
		rc = strace_call(out, (uint32_t)tid, ts, line, copy, name, e);
		free(copy);
		return rc;
	}
}

typedef int (*call_fn)(struct recs *, uint32_t, uint64_t, uint32_t, char *, const char *, struct fs_error *);

/* A call that never returned (ret=?): the output ended, or (perf) the thread
 * entered another syscall first. Dropped from the pending ones. */
static int pending_finish(struct recs *out, struct pendings *pend, struct pending *x, const char *name,
			  struct fs_error *e, call_fn finish)
{
	size_t n = strlen(x->text) + 8;
	char *whole = malloc(n);
	int rc;

	if (!whole)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory reading the tracer's output");
	snprintf(whole, n, "%s) = ?", x->text);
	rc = finish(out, x->tid, x->ts, x->line, whole, name, e);
	free(whole);
	if (rc == 0 && out->n && out->v[out->n - 1].tid == x->tid && out->v[out->n - 1].line == x->line)
		out->v[out->n - 1].cpu = x->cpu;
	pending_drop(pend, x);
	return rc;
}

static int flush_pending(struct recs *out, struct pendings *pend, const char *name, struct fs_error *e, call_fn finish)
{
	while (pend->n)
		if (pending_finish(out, pend, &pend->v[pend->n - 1], name, e, finish) < 0)
			return -1;
	return 0;
}

/* --- perf --- */

static uint64_t perf_field(const char *fields, const char *key, bool *found)
{
	const char *p = strstr(fields, key);
	uint64_t v = 0;

	*found = p && number(p + strlen(key), NULL, &v);
	return v;
}

/* The syscall of a sys_enter_X / sys_exit_X event, and whether it is an enter. */
static bool perf_syscall(const char *event, char *call, size_t len, bool *enter)
{
	const char *p = strstr(event, "sys_enter_");

	*enter = p != NULL;
	if (!p && !(p = strstr(event, "sys_exit_")))
		return false;
	p += *enter ? strlen("sys_enter_") : strlen("sys_exit_");
	snprintf(call, len, "%.*s", (int)strcspn(p, ":"), p);
	return true;
}

/* A complete perf call: the enter's fields, the exit's result. */
static int perf_call(struct recs *out, uint32_t tid, uint64_t ts, uint32_t line, char *text, const char *name,
		     struct fs_error *e)
{
	/* text: "CALL ENTER-FIELDS | RET" or "... | ?" */
	char call[48], *bar = strrchr(text, '|');
	const char *fields;
	struct rec *r;
	bool found, unknown;
	uint64_t v;
	size_t n = strcspn(text, " ");

	if (!bar || n >= sizeof(call))
		return trace_fail_line(e, name, line, "internal: a perf call without its result");
	memcpy(call, text, n);
	call[n] = '\0';
	fields = text + n;
	unknown = strchr(bar, '?') != NULL; /* pending_finish's "|) = ?": it never returned */
	if (!(r = rec_add(out, e)))
		return -1;
	r->tid = tid;
	r->ts = ts;
	r->line = line;
	if (!unknown && number(bar + 2, NULL, &v))
		r->ev.ret = v > INT64_MAX ? (int64_t)(v - UINT64_MAX - 1) : (int64_t)v; /* the exit's long, as hex */
	if (!strcmp(call, "futex")) {
		r->kind = RC_FUTEX;
		r->ev.uaddr = perf_field(fields, "uaddr: ", &found);
		r->ev.op = (uint32_t)perf_field(fields, "op: ", &found);
		r->ev.val = (uint32_t)perf_field(fields, "val: ", &found);
		v = perf_field(fields, "utime: ", &found);
		if (!found)
			return trace_fail_line(e, name, line, "a sys_enter_futex without its fields (uaddr, op, val, utime, uaddr2, val3)");
		switch (r->ev.op & FX_CMD_MASK) {
		case FX_REQUEUE:
		case FX_CMP_REQUEUE:
		case FX_WAKE_OP:
		case FX_CMP_REQUEUE_PI:
			r->ev.val2 = (uint32_t)v;
			r->ev.has_val2 = r->ev.has_uaddr2 = true;
			r->ev.uaddr2 = perf_field(fields, "uaddr2: ", &found);
			break;
		default:
			r->ev.timeout = v != 0;
			break;
		}
		switch (r->ev.op & FX_CMD_MASK) {
		case FX_WAIT_BITSET:
		case FX_WAKE_BITSET:
		case FX_CMP_REQUEUE:
		case FX_WAKE_OP:
		case FX_CMP_REQUEUE_PI:
			r->ev.val3 = (uint32_t)perf_field(fields, "val3: ", &found);
			r->ev.has_val3 = true;
			break;
		default:
			break;
		}
	} else if (!strcmp(call, "futex_waitv")) {
		r->kind = RC_FUTEX;
		r->ev.op = TRACE_OP_WAITV;
	} else if (!strcmp(call, "nanosleep") || !strcmp(call, "clock_nanosleep")) {
		r->kind = RC_SLEEP;
	} else if (!strcmp(call, "clone") || !strcmp(call, "clone3")) {
		/* the parent's return is the child's TID; the child's own return is 0 */
		if (unknown || r->ev.ret <= 0) {
			out->n--;
			return 0;
		}
		r->kind = RC_CLONE;
		r->child = (uint32_t)r->ev.ret;
		if (!strcmp(call, "clone")) {
			uint64_t flags = perf_field(fields, "clone_flags: ", &found);

			r->thread = (flags & 0x00010000) != 0; /* CLONE_THREAD */
			if (flags & 0x00200000)               /* CLONE_CHILD_CLEARTID */
				r->cleartid = perf_field(fields, "child_tidptr: ", &found);
		}
	} else {
		out->n--;
		return 0;
	}
	if (unknown) {
		r->ev.ret = TRACE_RET_UNFINISHED;
	} else {
		char *endts;

		/* the exit's time after the bar's result: "| RET @TS" */
		endts = strchr(bar, '@');
		if (endts && timestamp(endts + 1, NULL, &v) && v >= ts)
			r->dur = v - ts;
	}
	return 0;
}

static int perf_line(char *s, uint32_t line, struct recs *out, struct pendings *pend, const char *name,
		     struct fs_error *e)
{
	uint64_t pid, tid, cpu, ts;
	const char *p = s, *event, *fields;
	char ev[96], call[48];
	bool enter;
	struct pending *x;
	struct rec *r;

	while (*p == ' ')
		p++;
	if (!number(p, &p, &pid) || *p != '/' || !number(p + 1, &p, &tid) || tid == 0 || tid > UINT32_MAX || pid > UINT32_MAX)
		return trace_fail_line(e, name, line, "not a line of perf script -F pid,tid,cpu,time,event,trace: '%.60s'", s);
	while (*p == ' ')
		p++;
	if (*p != '[' || !number(p + 1, &p, &cpu) || *p != ']' || cpu > 4095)
		return trace_fail_line(e, name, line, "no [CPU] after PID/TID: '%.60s'", s);
	p++;
	while (*p == ' ')
		p++;
	if (!timestamp(p, &p, &ts) || *p != ':')
		return trace_fail_line(e, name, line, "no timestamp after the CPU: '%.60s'", s);
	p++;
	while (*p == ' ')
		p++;
	if (!strncmp(p, "PERF_RECORD_SWITCH ", 19))
		return perf_switch(pend, (uint32_t)tid, (int32_t)cpu, ts, p + 19, e);
	event = p;
	fields = strchr(event, ':') ? strchr(strchr(event, ':') + 1, ':') : NULL;
	if (!fields || (size_t)(fields - event) >= sizeof(ev))
		return trace_fail_line(e, name, line, "no EVENT: after the timestamp: '%.60s'", s);
	snprintf(ev, sizeof(ev), "%.*s", (int)(fields - event), event);
	fields++;
	if (perf_syscall(ev, call, sizeof(call), &enter)) {
		if (!strcmp(call, "exit_group") || !strcmp(call, "exit")) {
			if (!(r = rec_add(out, e)))
				return -1;
			*r = (struct rec){ .kind = !strcmp(call, "exit") ? RC_EXIT : RC_EXIT_GROUP, .tid = (uint32_t)tid,
					   .pid = (uint32_t)pid, .line = line, .ts = ts, .cpu = (int32_t)cpu };
			perf_gap_to(pend, r);
			return 0;
		}
		x = pending_of(pend, (uint32_t)tid);
		if (enter) {
			char *text;
			size_t n = strlen(call) + strlen(fields) + 2;

			/* an enter whose exit was lost (a signal, a restart): it never returned */
			if (x && pending_finish(out, pend, x, name, e, perf_call) < 0)
				return -1;
			if (!(x = pending_add(pend, (uint32_t)tid, e)) || !(text = malloc(n + 4)))
				return fs_fail(e, FS_ERR_LIMIT, "out of memory reading the tracer's output");
			snprintf(text, n + 4, "%s %s |", call, fields);
			x->text = text;
			x->ts = ts;
			x->line = line;
			x->cpu = (int32_t)cpu;
			snprintf(x->event, sizeof(x->event), "%s", call);
			return 0;
		}
		if (!x || strcmp(x->event, call)) {
			/* the child's return from clone (no enter of its own), or an exit whose enter came before the trace */
			return 0;
		}
		{
			size_t n = strlen(x->text) + 64;
			char *whole = malloc(n);
			int rc;

			if (!whole)
				return fs_fail(e, FS_ERR_LIMIT, "out of memory reading the tracer's output");
			snprintf(whole, n, "%s %s@%" PRIu64 ".%09" PRIu64, x->text, fields[0] == ' ' ? fields + 1 : fields,
				 (uint64_t)(ts / 1000000000ull), (uint64_t)(ts % 1000000000ull));
			rc = perf_call(out, (uint32_t)tid, x->ts, x->line, whole, name, e);
			if (rc == 0 && out->n && out->v[out->n - 1].line == x->line) {
				out->v[out->n - 1].cpu = x->cpu;
				out->v[out->n - 1].pid = (uint32_t)pid;
				perf_gap_to(pend, &out->v[out->n - 1]);
			}
			free(whole);
			pending_drop(pend, x);
			return rc;
		}
	}
	if (!(r = rec_add(out, e)))
		return -1;
	*r = (struct rec){ .tid = (uint32_t)tid, .pid = (uint32_t)pid, .line = line, .ts = ts, .cpu = (int32_t)cpu };
	if (strstr(ev, "sched_process_exit")) {
		r->kind = RC_END;
		perf_gap_to(pend, r);
	}
	else if (strstr(ev, "sched_process_exec"))
		r->kind = RC_EXEC;
	else
		out->n--; /* sched_process_fork and the like: the clone's return says it */
	return 0;
}

/* --- records to a trace --- */

/* The TID's PID as perf saw it (0: unknown). */
static uint32_t pid_seen(const struct recs *rs, uint32_t tid)
{
	for (uint32_t i = 0; i < rs->n; i++)
		if (rs->v[i].tid == tid && rs->v[i].pid)
			return rs->v[i].pid;
	return 0;
}

static int declare(struct trace *t, const struct recs *rs, uint32_t tid, uint32_t pid, uint32_t parent, uint64_t cleartid,
		   struct fs_error *e)
{
	uint32_t seen = pid_seen(rs, tid);

	if (trace_thread_of(t, tid) != TRACE_NONE)
		return 0;
	return trace_add_thread(t, tid, seen ? seen : pid, parent, cleartid, e);
}

static int build(struct recs *rs, const char *name, struct trace *t, struct fs_error *e)
{
	uint64_t t0 = 0;
	uint32_t root;
	uint8_t *last; /* per thread: the kind of its last event, 0xff none; 0xfe an unfinished call */
	uint32_t *exit_ev; /* per thread: its exit's event, TRACE_NONE */
	bool started = false;

	if (!rs->n)
		return fs_fail(e, FS_ERR_RUNTIME,
			       "%s: the tracer recorded nothing (was tracing permitted? strace needs ptrace of its child "
			       "(/proc/sys/kernel/yama/ptrace_scope), perf needs /proc/sys/kernel/perf_event_paranoid <= -1 or root)",
			       name);
	root = rs->v[0].tid;
	for (uint32_t i = 0; i < rs->n && !started; i++)
		if (rs->v[i].kind == RC_EXEC && rs->v[i].tid == root) {
			t0 = rs->v[i].ts + rs->v[i].dur;
			started = true;
		}
	if (!started)
		t0 = rs->v[0].ts;
	if (declare(t, rs, root, root, 0, 0, e) < 0)
		return -1;
	for (uint32_t i = 0; i < rs->n; i++) {
		const struct rec *r = &rs->v[i];
		uint32_t parent = trace_thread_of(t, r->tid);

		if (r->kind != RC_CLONE || !r->child)
			continue;
		if (parent == TRACE_NONE && declare(t, rs, r->tid, r->tid, 0, 0, e) < 0)
			return -1;
		parent = trace_thread_of(t, r->tid);
		if (declare(t, rs, r->child, r->thread ? t->threads[parent].pid : r->child, r->tid, r->cleartid, e) < 0)
			return -1;
	}
	for (uint32_t i = 0; i < rs->n; i++)
		if (trace_thread_of(t, rs->v[i].tid) == TRACE_NONE && declare(t, rs, rs->v[i].tid, rs->v[i].tid, 0, 0, e) < 0)
			return -1;
	last = malloc(t->nthreads);
	exit_ev = malloc(t->nthreads * sizeof(*exit_ev));
	if (!last || !exit_ev) {
		free(last);
		free(exit_ev);
		return fs_fail(e, FS_ERR_LIMIT, "out of memory reading the tracer's output");
	}
	memset(last, 0xff, t->nthreads);
	for (uint32_t i = 0; i < t->nthreads; i++)
		exit_ev[i] = TRACE_NONE;
	for (uint32_t i = 0; i < rs->n; i++) {
		const struct rec *r = &rs->v[i];
		struct trace_event ev = r->ev;
		uint32_t th = trace_thread_of(t, r->tid);

		if (r->kind == RC_EXEC)
			continue;
		if (r->kind == RC_END && exit_ev[th] != TRACE_NONE && r->ts > t->events[exit_ev[th]].t + t0) {
			/* the exit's end (sched_process_exit, +++ exited): its clear_child_tid wake,
			 * in exit_mm(), came in between */
			t->events[exit_ev[th]].dur = r->ts - t0 - t->events[exit_ev[th]].t;
			continue;
		}
		if (last[th] == TEV_EXIT || last[th] == TEV_EXIT_GROUP || last[th] == 0xfe)
			continue; /* after its exit, or killed in a call that never returned */
		ev.thread = th;
		ev.line = r->line;
		ev.cpu = r->cpu;
		ev.t = r->ts > t0 ? r->ts - t0 : 0;
		ev.dur = r->dur;
		switch (r->kind) {
		case RC_FUTEX:
			ev.kind = TEV_FUTEX;
			if (ev.ret == TRACE_RET_UNFINISHED)
				ev.dur = 0;
			break;
		case RC_CLONE:
			if (!r->child)
				continue;
			ev.kind = TEV_CLONE;
			ev.child = trace_thread_of(t, r->child);
			break;
		case RC_SLEEP:
			ev.kind = TEV_SLEEP;
			break;
		case RC_EXIT:
		case RC_END:
			ev.kind = TEV_EXIT;
			ev.dur = 0;
			break;
		default:
			ev.kind = TEV_EXIT_GROUP;
			ev.dur = 0;
			break;
		}
		if (trace_add_event(t, &ev, e) < 0) {
			free(last);
			free(exit_ev);
			return -1;
		}
		last[th] = ev.kind == TEV_FUTEX && ev.ret == TRACE_RET_UNFINISHED ? 0xfe : ev.kind;
		if (ev.kind == TEV_EXIT || ev.kind == TEV_EXIT_GROUP)
			exit_ev[th] = t->nevents - 1;
	}
	free(last);
	free(exit_ev);
	return 0;
}

typedef int (*line_fn)(char *, uint32_t, struct recs *, struct pendings *, const char *, struct fs_error *);

static int parse_with(FILE *in, const char *name, struct trace *t, line_fn fn, call_fn finish, struct fs_error *e)
{
	struct recs rs = { 0 };
	struct pendings pend = { 0 };
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	uint32_t n = 0;
	int rc = -1;

	memset(t, 0, sizeof(*t));
	while ((len = getline(&line, &cap, in)) >= 0) {
		n++;
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if ((size_t)len != strlen(line)) {
			trace_fail_line(e, name, n, "a NUL byte in the line (not the tracer's text output)");
			goto out;
		}
		if (!len || line[0] == '#')
			continue;
		if (fn(line, n, &rs, &pend, name, e) < 0)
			goto out;
	}
	if (flush_pending(&rs, &pend, name, e, finish) < 0 || build(&rs, name, t, e) < 0)
		goto out;
	/* perf: each thread's CPU is where it spent most of its time (switch events) */
	for (uint32_t i = 0; i < pend.noc; i++) {
		const struct offcpu *o = &pend.oc[i];
		uint32_t th = trace_thread_of(t, o->tid), best = 0;

		for (uint32_t k = 1; k < o->ncpus; k++)
			if (o->on_time[k] > o->on_time[best])
				best = k;
		if (th != TRACE_NONE && o->ncpus && o->on_time[best])
			t->threads[th].cpu_given = o->cpu_of[best];
	}
	rc = 0;
out:
	free(line);
	free(rs.v);
	pendings_free(&pend);
	if (rc < 0)
		trace_free(t);
	return rc;
}

int record_parse_strace(FILE *in, const char *name, struct trace *t, struct fs_error *e)
{
	if (parse_with(in, name, t, strace_line, strace_call, e) < 0)
		return -1;
	snprintf(t->tracer, sizeof(t->tracer), "strace");
	t->cpus_recorded = false;
	return 0;
}

int record_parse_perf(FILE *in, const char *name, struct trace *t, struct fs_error *e)
{
	if (parse_with(in, name, t, perf_line, perf_call, e) < 0)
		return -1;
	snprintf(t->tracer, sizeof(t->tracer), "perf");
	t->cpus_recorded = true;
	return 0;
}

/* --- running the tracer --- */

/* Whether `prog` is an executable on $PATH. */
static bool on_path(const char *prog)
{
	const char *path = getenv("PATH");
	char buf[4096];

	if (strchr(prog, '/'))
		return access(prog, X_OK) == 0;
	while (path && *path) {
		size_t n = strcspn(path, ":");

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, path, prog);
		if (n && access(buf, X_OK) == 0)
			return true;
		path += n + (path[n] == ':');
	}
	return false;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Runs argv to its end, its stdout into `out` and its stderr into `err` when given
 * (the same file or not); its exit status (128 + signal when killed), -1 when it
 * could not run. */
static int run(char *const *argv, const char *out, const char *err, uint64_t *elapsed_ns)
{
	uint64_t t0 = now_ns();
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (out) {
			int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);

			if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0)
				_exit(127);
			close(fd);
		}
		if (err) {
			int fd = err == out ? STDOUT_FILENO : open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);

			if (fd < 0 || dup2(fd, STDERR_FILENO) < 0)
				_exit(127);
			if (fd != STDOUT_FILENO)
				close(fd);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (elapsed_ns)
		*elapsed_ns = now_ns() - t0;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The first line a command prints ("strace -- version 6.1"), its last word. */
static void version_of(char *const *argv, const char *tmp, char *out, size_t len)
{
	char path[4200], line[256] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/version.txt", tmp);
	out[0] = '\0';
	if (run(argv, path, path, NULL) != 0 || !(f = fopen(path, "r")))
		return;
	if (fgets(line, sizeof(line), f)) {
		char *last = strrchr(line, ' ');

		line[strcspn(line, "\n")] = '\0';
		snprintf(out, len, "%s", last ? last + 1 : line);
	}
	fclose(f);
}

/* The tracepoints record_run asks perf for; those the kernel lacks are left out. */
static const char *const perf_events[] = {
	"syscalls:sys_enter_futex", "syscalls:sys_exit_futex", "syscalls:sys_enter_futex_waitv",
	"syscalls:sys_exit_futex_waitv", "syscalls:sys_enter_clone", "syscalls:sys_exit_clone",
	"syscalls:sys_enter_clone3", "syscalls:sys_exit_clone3", "syscalls:sys_enter_exit",
	"syscalls:sys_enter_exit_group", "syscalls:sys_enter_nanosleep", "syscalls:sys_exit_nanosleep",
	"syscalls:sys_enter_clock_nanosleep", "syscalls:sys_exit_clock_nanosleep", "sched:sched_process_exit",
	"sched:sched_process_exec", NULL,
};

static bool tracepoint_exists(const char *event)
{
	static const char *const roots[] = { "/sys/kernel/tracing/events", "/sys/kernel/debug/tracing/events", NULL };
	char path[512], sys[64];
	bool any_root = false;
	size_t n = strcspn(event, ":");

	snprintf(sys, sizeof(sys), "%.*s", (int)n, event);
	for (int i = 0; roots[i]; i++) {
		if (access(roots[i], R_OK) != 0)
			continue;
		any_root = true;
		snprintf(path, sizeof(path), "%s/%s/%s", roots[i], sys, event + n + 1);
		if (access(path, F_OK) == 0)
			return true;
	}
	return !any_root; /* no tracefs to look in: let perf say */
}

#define MAX_ARGS 128

/* The tracer's command line for the program `prog` (NULL-terminated) into argv. */
static int tracer_argv(enum record_tracer tr, const char *raw, char *const *prog, char **argv)
{
	size_t n = 0;

	if (tr == REC_STRACE) {
		static char *const fixed[] = { "strace", "-f", "-ttt", "-T", "-q",
					       "-e", "trace=futex,futex_waitv,clone,clone3,fork,vfork,exit,exit_group,execve,nanosleep,clock_nanosleep",
					       "-e", "raw=futex", "-o", NULL };

		for (size_t i = 0; fixed[i]; i++)
			argv[n++] = fixed[i];
		argv[n++] = (char *)raw;
	} else {
		argv[n++] = "perf";
		argv[n++] = "record";
		argv[n++] = "-q";
		argv[n++] = "--switch-events"; /* the threads' time off their CPUs, in and out of calls */
		argv[n++] = "-o";
		argv[n++] = (char *)raw;
		for (size_t i = 0; perf_events[i]; i++) {
			if (!tracepoint_exists(perf_events[i]))
				continue;
			argv[n++] = "-e";
			argv[n++] = (char *)perf_events[i];
		}
	}
	argv[n++] = "--";
	for (size_t i = 0; prog[i]; i++) {
		if (n + 1 >= MAX_ARGS)
			return -1;
		argv[n++] = prog[i];
	}
	argv[n] = NULL;
	return 0;
}

/* perf can open the syscall tracepoints here (root, CAP_PERFMON, or a low perf_event_paranoid). */
static bool perf_usable(const char *tmp)
{
	char data[4200], out[4200];
	char *argv[] = { "perf", "record", "-q", "-e", "syscalls:sys_enter_futex", "-o", data, "--", "true", NULL };

	if (!on_path("perf"))
		return false;
	snprintf(data, sizeof(data), "%s/probe.data", tmp);
	snprintf(out, sizeof(out), "%s/probe.txt", tmp);
	return run(argv, out, out, NULL) == 0;
}

/* Runs `prog` under the tracer into a trace (parsed, not finished). */
static int trace_program(enum record_tracer tr, char *const *prog, const char *tmp, const char *keep, bool quiet_prog,
			 struct trace *t, int *status, struct fs_error *e)
{
	char raw[4200], text[4200], out[4200], errs[4200], *argv[MAX_ARGS];
	FILE *f;
	int rc;

	snprintf(raw, sizeof(raw), "%s/%s", tmp, tr == REC_STRACE ? "strace.txt" : "perf.data");
	snprintf(text, sizeof(text), "%s/perf.txt", tmp);
	snprintf(out, sizeof(out), "%s/program.txt", tmp);
	snprintf(errs, sizeof(errs), "%s/perf-script.err", tmp);
	if (tracer_argv(tr, raw, prog, argv) < 0)
		return fs_fail(e, FS_ERR_USAGE, "record: too many arguments (at most %d)", MAX_ARGS - 40);
	*status = run(argv, quiet_prog ? out : NULL, quiet_prog ? out : NULL, NULL);
	if (*status < 0 || *status == 127)
		return fs_fail(e, FS_ERR_RUNTIME, "record: could not run %s", tr == REC_STRACE ? "strace" : "perf record");
	if (tr == REC_PERF) {
		char *script[] = { "perf", "script", "-i", raw, "-F", "pid,tid,cpu,time,event,trace", "--ns",
				   "--show-switch-events", NULL };

		if (run(script, text, errs, NULL) != 0)
			return fs_fail(e, FS_ERR_RUNTIME, "record: perf script could not read %s (was perf record permitted?)", raw);
	}
	if (keep) {
		char *cp[] = { "cp", tr == REC_STRACE ? raw : text, (char *)keep, NULL };

		if (run(cp, NULL, NULL, NULL) != 0)
			return fs_fail(e, FS_ERR_OUTPUT, "record: cannot keep the tracer's output as %s", keep);
	}
	if (!(f = fopen(tr == REC_STRACE ? raw : text, "r")))
		return fs_fail(e, FS_ERR_RUNTIME,
			       "record: the tracer wrote nothing (was tracing permitted? strace needs ptrace of its child, "
			       "perf needs perf_event_paranoid <= -1 or root)");
	rc = tr == REC_STRACE ? record_parse_strace(f, tr == REC_STRACE ? raw : text, t, e)
			      : record_parse_perf(f, text, t, e);
	fclose(f);
	return rc;
}

int record_futex_loop(uint64_t n)
{
	static uint32_t word;
	uint64_t t0 = now_ns();

	for (uint64_t i = 0; i < n; i++)
		syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	printf("%" PRIu64 "\n", now_ns() - t0);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The calibration (header): the loop untraced and traced; the traced loop's
 * median gap between its calls and median call, against the untraced call. */
#define CALIBRATION_CALLS 5000u /* [A] enough for stable medians; under strace about 0.3 s */
static int calibrate_once(enum record_tracer tr, const char *self, const char *tmp, struct trace *into, uint64_t *got,
			  struct fs_error *e)
{
	char n[32], out[4200];
	char *loop[] = { (char *)self, "record", "--calibration-loop", n, NULL };
	struct trace t;
	uint64_t untraced = 0, *gaps, *durs, ngaps = 0, ndurs = 0;
	int status;
	FILE *f;

	snprintf(n, sizeof(n), "%u", CALIBRATION_CALLS);
	snprintf(out, sizeof(out), "%s/loop.txt", tmp);
	if (run(loop, out, out, NULL) != 0 || !(f = fopen(out, "r")))
		return fs_fail(e, FS_ERR_RUNTIME, "record: the calibration loop (%s record --calibration-loop) did not run", self);
	if (fscanf(f, "%" SCNu64, &untraced) != 1)
		untraced = 0;
	fclose(f);
	if (trace_program(tr, loop, tmp, NULL, true, &t, &status, e) < 0)
		return -1;
	gaps = malloc((t.nevents + 1) * sizeof(*gaps));
	durs = malloc((t.nevents + 1) * sizeof(*durs));
	if (!gaps || !durs) {
		free(gaps);
		free(durs);
		trace_free(&t);
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	}
	/* the loop's calls: its thread's FUTEX_WAKEs, in order */
	for (uint32_t i = 0, prev = TRACE_NONE; i < t.nevents; i++) {
		const struct trace_event *ev = &t.events[i];

		if (ev->kind != TEV_FUTEX || (ev->op & FX_CMD_MASK) != FX_WAKE || ev->val != 1)
			continue;
		durs[ndurs++] = ev->dur;
		if (prev != TRACE_NONE && ev->thread == t.events[prev].thread &&
		    ev->t >= t.events[prev].t + t.events[prev].dur + ev->preempted + ev->slept)
			/* on the CPU (perf tells the time off it) */
			gaps[ngaps++] = ev->t - t.events[prev].t - t.events[prev].dur - ev->preempted - ev->slept;
		prev = i;
	}
	*got = ngaps;
	if (ngaps < CALIBRATION_CALLS / 2) {
		/* a busy machine: the tracer lost events, or the loop was off its CPU */
		free(gaps);
		free(durs);
		trace_free(&t);
		return 1;
	}
	qsort(gaps, ngaps, sizeof(*gaps), cmp_u64);
	qsort(durs, ndurs, sizeof(*durs), cmp_u64);
	/* a call untraced costs the loop's time per call (its own loop: a few ns [A]); the
	 * traced gap is all tracer and syscall entry/exit, which the replay models itself */
	into->has_overhead = true;
	into->overhead_gap_ns = gaps[ngaps / 2];
	into->overhead_call_ns = durs[ndurs / 2] > untraced / CALIBRATION_CALLS ? durs[ndurs / 2] - untraced / CALIBRATION_CALLS : 0;
	free(gaps);
	free(durs);
	trace_free(&t);
	return 0;
}

/* Up to CALIBRATION_ATTEMPTS times while the tracer keeps too few of the loop's calls;
 * then the trace goes without its overhead line, saying so on stderr: 0 calibrated, 1
 * not (warned), -1 failed. */
#define CALIBRATION_ATTEMPTS 3
static int calibrate(enum record_tracer tr, const char *self, const char *tmp, struct trace *into, bool quiet,
		     struct fs_error *e)
{
	uint64_t got = 0;

	for (int k = 0; k < CALIBRATION_ATTEMPTS; k++) {
		int rc = calibrate_once(tr, self, tmp, into, &got, e);

		if (rc <= 0)
			return rc;
	}
	if (!quiet)
		fprintf(stderr,
			"futexsim record: warning: the tracer's calibration kept %" PRIu64 " of its %u calls (at least half "
			"needed) in %d attempts: the machine is busy (the tracer loses events, the loop is off its CPU); the "
			"trace has no overhead line (a replay's tracer_overhead: auto then takes none: give it a duration, "
			"or record again on a quieter machine)\n",
			got, CALIBRATION_CALLS, CALIBRATION_ATTEMPTS);
	return 1;
}

static void summary(const struct trace *t, const char *path, int status, FILE *out)
{
	const struct trace_link *lk = &t->link;
	uint32_t calls = 0;

	for (int f = TF_WAIT_BLOCK; f < TF_NFATES; f++)
		calls += lk->fates[f];
	fprintf(out,
		"futexsim record: %s: %u threads in %u processes, %u futex calls over %.6g s (%u woken waits, %u EAGAIN, "
		"%u timed out, %u wakes, %u requeues, %u not replayed); %u woken waits and %" PRIu64
		" wakes' waiters not matched",
		path, t->nthreads, t->nprocs, calls, (double)t->end_ns / 1e9, lk->fates[TF_WAIT_BLOCK], lk->fates[TF_WAIT_EAGAIN],
		lk->fates[TF_WAIT_TIMEOUT], lk->fates[TF_WAKE] + lk->fates[TF_WAKE_OP],
		lk->fates[TF_REQUEUE] + lk->fates[TF_REQUEUE_EAGAIN], lk->fates[TF_UNSUPPORTED] + lk->fates[TF_FAILED],
		lk->fates[TF_WAIT_UNMATCHED], lk->unmatched_woken);
	if (t->has_overhead)
		fprintf(out, "; tracer overhead %.3g us a gap, %.3g us a call", (double)t->overhead_gap_ns / 1e3,
			(double)t->overhead_call_ns / 1e3);
	if (status)
		fprintf(out, "; the program exited with status %d", status);
	fputc('\n', out);
}

/* The command recorded, as one line of the header. */
static void command_line(char *const *argv, char *out, size_t len)
{
	size_t at = 0;

	out[0] = '\0';
	for (size_t i = 0; argv[i] && at + 1 < len; i++) {
		int n = snprintf(out + at, len - at, "%s%s", i ? " " : "", argv[i]);

		if (n < 0)
			break;
		at += (size_t)n;
	}
	out[len - 1] = '\0';
	for (char *p = out; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
}

int record_run(const struct record_opts *o, struct fs_error *e)
{
	char tmp[] = "/tmp/futexsim-record-XXXXXX", ver[32], partial[4200];
	enum record_tracer tr = o->tracer;
	struct trace t = { 0 }, header = { 0 };
	uint64_t ref_ns = 0;
	int status = 0, rc = -1;
	FILE *f;

	if (!o->argv || !o->argv[0])
		return fs_fail(e, FS_ERR_USAGE, "record: no program to run (futexsim record -o TRACE -- PROGRAM ARGS...)");
	if (!mkdtemp(tmp))
		return fs_fail(e, FS_ERR_RUNTIME, "record: cannot make a temporary directory: %s", strerror(errno));
	if (tr == REC_AUTO)
		tr = perf_usable(tmp) ? REC_PERF : REC_STRACE;
	if (tr == REC_STRACE && !on_path("strace")) {
		fs_fail(e, FS_ERR_USAGE, "record: strace is not installed (apt-get install strace)%s",
			o->tracer == REC_AUTO ? ", and perf cannot trace here" : "");
		goto out;
	}
	if (tr == REC_PERF && !perf_usable(tmp)) {
		fs_fail(e, FS_ERR_RUNTIME,
			"record: perf cannot open the syscall tracepoints here (install linux-perf; run as root or set "
			"/proc/sys/kernel/perf_event_paranoid to -1), or use --tracer strace");
		goto out;
	}
	if (o->reference && (status = run(o->argv, NULL, NULL, &ref_ns)) == 127) {
		fs_fail(e, FS_ERR_RUNTIME, "record: cannot run %s", o->argv[0]);
		goto out;
	}
	if (o->calibrate && calibrate(tr, o->self, tmp, &header, o->quiet, e) < 0)
		goto out;
	if (trace_program(tr, o->argv, tmp, o->keep_raw, false, &t, &status, e) < 0)
		goto out;
	if (tr == REC_STRACE) {
		char *v[] = { "strace", "-V", NULL };

		version_of(v, tmp, ver, sizeof(ver));
		snprintf(t.tracer, sizeof(t.tracer), "strace %s -f -ttt -T", ver);
	} else {
		char *v[] = { "perf", "--version", NULL };

		version_of(v, tmp, ver, sizeof(ver));
		snprintf(t.tracer, sizeof(t.tracer), "perf %s syscall tracepoints", ver);
	}
	command_line(o->argv, t.command, sizeof(t.command));
	t.has_overhead = header.has_overhead;
	t.overhead_gap_ns = header.overhead_gap_ns;
	t.overhead_call_ns = header.overhead_call_ns;
	t.reference_run_ns = ref_ns;
	if (trace_finish(&t, tr == REC_STRACE ? "strace output" : "perf script output", e) < 0)
		goto out;
	/* written beside the output, then renamed: no half-written trace */
	snprintf(partial, sizeof(partial), "%s.partial", o->output);
	if (!(f = fopen(partial, "w"))) {
		fs_fail(e, FS_ERR_OUTPUT, "record: cannot write %s: %s", partial, strerror(errno));
		goto out;
	}
	if (trace_write(&t, f) < 0 || fclose(f) != 0 || rename(partial, o->output) != 0) {
		unlink(partial);
		fs_fail(e, FS_ERR_OUTPUT, "record: cannot write %s", o->output);
		goto out;
	}
	if (!o->quiet)
		summary(&t, o->output, status, stderr);
	rc = 0;
out:
	trace_free(&t);
	{
		char *rm[] = { "rm", "-rf", tmp, NULL };

		run(rm, NULL, NULL, NULL);
	}
	return rc;
}
