/* SPDX-License-Identifier: MIT */
#include "models/workloads/tracefile.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>


/* --- names --- */

static const char *const cmd_names[FX_NCMDS] = {
	"WAIT", "WAKE", "FD", "REQUEUE", "CMP_REQUEUE", "WAKE_OP", "LOCK_PI", "UNLOCK_PI", "TRYLOCK_PI",
	"WAIT_BITSET", "WAKE_BITSET", "WAIT_REQUEUE_PI", "CMP_REQUEUE_PI", "LOCK_PI2",
};
static const char *const sys_names[] = { "futex_waitv", "futex_wake", "futex_wait", "futex_requeue" };

const char *trace_op_name(uint32_t op, char *buf, size_t len)
{
	uint32_t cmd = op & FX_CMD_MASK;

	if (op >= TRACE_OP_WAITV && op <= TRACE_OP_FUTEX2_REQUEUE)
		snprintf(buf, len, "%s", sys_names[op - TRACE_OP_WAITV]);
	else if (cmd < FX_NCMDS)
		snprintf(buf, len, "%s%s%s", cmd_names[cmd], op & FX_PRIVATE_FLAG ? "|PRIVATE" : "",
			 op & FX_CLOCK_REALTIME ? "|CLOCK_REALTIME" : "");
	else
		snprintf(buf, len, "0x%" PRIx32, op);
	return buf;
}

static bool parse_u64_text(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return false;
	errno = 0;
	v = strtoull(s, &end, s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 16 : 10);
	if (errno || *end || v > max)
		return false;
	*out = v;
	return true;
}

bool trace_op_parse(const char *s, uint32_t *op)
{
	char word[64];
	const char *p = s;
	uint32_t v = 0;
	uint64_t raw;
	bool first = true;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		if (!parse_u64_text(s, UINT32_MAX, &raw) || raw >= TRACE_OP_WAITV)
			return false;
		*op = (uint32_t)raw;
		return true;
	}
	for (size_t i = 0; i < sizeof(sys_names) / sizeof(sys_names[0]); i++)
		if (!strcmp(s, sys_names[i])) {
			*op = TRACE_OP_WAITV + (uint32_t)i;
			return true;
		}
	while (*p) {
		size_t n = strcspn(p, "|");
		bool known = false;

		if (n == 0 || n >= sizeof(word))
			return false;
		memcpy(word, p, n);
		word[n] = '\0';
		if (first) {
			for (uint32_t c = 0; c < FX_NCMDS; c++)
				if (!strcmp(word, cmd_names[c])) {
					v = c;
					known = true;
				}
		} else if (!strcmp(word, "PRIVATE") && !(v & FX_PRIVATE_FLAG)) {
			v |= FX_PRIVATE_FLAG;
			known = true;
		} else if (!strcmp(word, "CLOCK_REALTIME") && !(v & FX_CLOCK_REALTIME)) {
			v |= FX_CLOCK_REALTIME;
			known = true;
		}
		if (!known)
			return false;
		first = false;
		p += n;
		if (*p == '|' && !*++p)
			return false;
	}
	if (first)
		return false;
	*op = v;
	return true;
}

/* The errnos futex calls return (futex(2), ERRORS), x86-64 and generic numbers. */
static const struct {
	int err;
	const char *name;
} errnos[] = {
	{ 1, "EPERM" }, { 3, "ESRCH" }, { 4, "EINTR" }, { 11, "EAGAIN" }, { 12, "ENOMEM" }, { 14, "EFAULT" },
	{ 22, "EINVAL" }, { 35, "EDEADLK" }, { 38, "ENOSYS" }, { 110, "ETIMEDOUT" }, { 130, "EOWNERDEAD" },
	{ 512, "ERESTARTSYS" }, { 516, "ERESTART_RESTARTBLOCK" },
};

const char *trace_errno_name(int err)
{
	for (size_t i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++)
		if (errnos[i].err == err)
			return errnos[i].name;
	return NULL;
}

int trace_errno_parse(const char *s)
{
	for (size_t i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++)
		if (!strcmp(errnos[i].name, s))
			return errnos[i].err;
	return 0;
}

/* --- building --- */

int trace_grow(void **v, uint32_t *cap, uint32_t need, size_t size)
{
	uint32_t c = *cap ? *cap : 64;
	void *n;

	if (need <= *cap)
		return 0;
	while (c < need)
		c = c > UINT32_MAX / 2 ? need : c * 2;
	n = realloc(*v, (size_t)c * size);
	if (!n)
		return -1;
	*v = n;
	*cap = c;
	return 0;
}

/* Capacities of the arrays being built, and the TIDs' index (trace.building). */
struct build {
	uint32_t threads_cap, events_cap;
	uint32_t *tid_slots;     /* open addressing: tid -> thread index + 1 */
	uint32_t nslots;
};

static struct build *build_of(const struct trace *t)
{
	return t->building;
}

static int build_init(struct trace *t, struct fs_error *e)
{
	if (t->building)
		return 0;
	t->building = calloc(1, sizeof(struct build));
	return t->building ? 0 : fs_fail(e, FS_ERR_LIMIT, "out of memory reading the trace");
}

static void build_free(struct trace *t)
{
	struct build *b = build_of(t);

	if (b)
		free(b->tid_slots);
	free(b);
	t->building = NULL;
}

static uint32_t tid_hash(uint32_t tid, uint32_t nslots)
{
	return (uint32_t)(((uint64_t)tid * 0x9e3779b97f4a7c15ull) >> 40) & (nslots - 1);
}

uint32_t trace_thread_of(const struct trace *t, uint32_t tid)
{
	for (uint32_t i = 0; i < t->nthreads; i++)
		if (t->threads[i].tid == tid)
			return i;
	return TRACE_NONE;
}

/* The same through the build's hash (the reader's per-line lookup). */
static uint32_t build_thread_of(const struct trace *t, uint32_t tid)
{
	struct build *b = build_of(t);

	if (!b || !b->nslots)
		return trace_thread_of(t, tid);
	for (uint32_t s = tid_hash(tid, b->nslots);; s = (s + 1) & (b->nslots - 1)) {
		if (!b->tid_slots[s])
			return TRACE_NONE;
		if (t->threads[b->tid_slots[s] - 1].tid == tid)
			return b->tid_slots[s] - 1;
	}
}

static int index_tid(struct trace *t, uint32_t idx, struct fs_error *e)
{
	struct build *b = build_of(t);

	if (2 * (t->nthreads + 1) > b->nslots) {
		uint32_t n = b->nslots ? b->nslots * 2 : 1024;
		uint32_t *slots = calloc(n, sizeof(*slots));

		if (!slots)
			return fs_fail(e, FS_ERR_LIMIT, "out of memory reading the trace");
		for (uint32_t i = 0; i < b->nslots; i++)
			if (b->tid_slots[i]) {
				uint32_t s = tid_hash(t->threads[b->tid_slots[i] - 1].tid, n);

				while (slots[s])
					s = (s + 1) & (n - 1);
				slots[s] = b->tid_slots[i];
			}
		free(b->tid_slots);
		b->tid_slots = slots;
		b->nslots = n;
	}
	for (uint32_t s = tid_hash(t->threads[idx].tid, b->nslots);; s = (s + 1) & (b->nslots - 1))
		if (!b->tid_slots[s]) {
			b->tid_slots[s] = idx + 1;
			return 0;
		}
}

int trace_add_thread(struct trace *t, uint32_t tid, uint32_t pid, uint32_t parent_tid, uint64_t cleartid,
		     struct fs_error *e)
{
	struct build *b;
	struct trace_thread *th;
	uint32_t parent = TRACE_NONE;

	if (build_init(t, e) < 0)
		return -1;
	b = build_of(t);
	if (t->nthreads == TRACE_MAX_THREADS)
		return fs_fail(e, FS_ERR_INPUT, "more than %u threads (the most a replay can simulate)", TRACE_MAX_THREADS);
	if (build_thread_of(t, tid) != TRACE_NONE)
		return fs_fail(e, FS_ERR_INPUT, "thread %" PRIu32 " declared twice", tid);
	if (parent_tid) {
		parent = build_thread_of(t, parent_tid);
		if (parent == TRACE_NONE)
			return fs_fail(e, FS_ERR_INPUT, "thread %" PRIu32 ": parent %" PRIu32 " is not declared before it",
				       tid, parent_tid);
	}
	if (trace_grow((void **)&t->threads, &b->threads_cap, t->nthreads + 1, sizeof(*t->threads)) < 0)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory reading the trace");
	th = &t->threads[t->nthreads];
	*th = (struct trace_thread){ .tid = tid, .pid = pid, .parent = parent, .cleartid = cleartid, .process = TRACE_NONE,
				     .cpu = -1, .cpu_given = -1 };
	if (index_tid(t, t->nthreads, e) < 0)
		return -1;
	t->nthreads++;
	return 0;
}

int trace_add_event(struct trace *t, const struct trace_event *ev, struct fs_error *e)
{
	struct build *b;

	if (build_init(t, e) < 0)
		return -1;
	b = build_of(t);
	if (t->nevents == TRACE_MAX_EVENTS)
		return fs_fail(e, FS_ERR_INPUT, "more than %u events (the most a trace may hold)", TRACE_MAX_EVENTS);
	if (trace_grow((void **)&t->events, &b->events_cap, t->nevents + 1, sizeof(*t->events)) < 0)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory reading the trace");
	t->events[t->nevents++] = *ev;
	return 0;
}

void trace_free(struct trace *t)
{
	build_free(t);
	free(t->link.calls);
	free(t->link.keys);
	free(t->link.classes);
	free(t->link.rank_entries);
	free(t->threads);
	free(t->procs);
	free(t->events);
	free(t->thread_events);
	memset(t, 0, sizeof(*t));
}

/* --- checks of the whole (trace_finish) --- */

int trace_fail_line(struct fs_error *e, const char *name, uint32_t line, const char *fmt, ...)
{
	char msg[900];
	struct fs_mark at = { name, line, 1 };
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return fs_fail_at(e, &at, "%s", msg);
}

/* Events by time, ties in their file order (the recorder's order). */
static int cmp_event(const void *a, const void *b)
{
	const struct trace_event *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* The op's recorded result is one the kernel can return (futex(2)). */
static int check_futex(const struct trace_event *ev, const char *name, struct fs_error *e)
{
	uint32_t cmd = ev->op & FX_CMD_MASK;
	uint64_t most;
	bool ok = ev->ret < 0;

	if (ev->op >= TRACE_OP_WAITV)
		return 0;
	switch (cmd) {
	case FX_WAIT:
	case FX_WAIT_BITSET:
		ok = ok || ev->ret == 0;
		break;
	case FX_WAKE:
	case FX_WAKE_BITSET:
		/* futex_wake() wakes one even when asked for none */
		ok = ok || (uint64_t)ev->ret <= (ev->val ? ev->val : 1);
		break;
	case FX_REQUEUE:
	case FX_CMP_REQUEUE:
	case FX_WAKE_OP:
		if (!ev->has_uaddr2 || !ev->has_val2)
			return trace_fail_line(e, name, ev->line, "%s needs uaddr2= and val2=", cmd_names[cmd]);
		most = (uint64_t)ev->val + ev->val2;
		ok = ok || (uint64_t)ev->ret <= (most ? most : 1);
		break;
	default:
		ok = true; /* not replayed: any result */
		break;
	}
	if (!ok)
		return trace_fail_line(e, name, ev->line, "%s returned %" PRId64 ", more than it can (val %" PRIu32 ")",
				 cmd_names[cmd], ev->ret, ev->val);
	if (ev->ret >= 0 && (ev->uaddr & 3))
		return trace_fail_line(e, name, ev->line,
				 "uaddr 0x%" PRIx64 " is not 4-byte aligned, yet the call succeeded (the kernel refuses it)",
				 ev->uaddr);
	if (ev->ret >= 0 && (cmd == FX_WAIT_BITSET || cmd == FX_WAKE_BITSET) && ev->has_val3 && !ev->val3)
		return trace_fail_line(e, name, ev->line, "bitset 0 (val3=0), yet the call succeeded (the kernel refuses it)");
	return 0;
}

/* An event's fields are in range (a recorder's events skip the reader's checks). */
static int check_fields(const struct trace *t, const struct trace_event *ev, const char *name, struct fs_error *e)
{
	if (ev->thread >= t->nthreads || ev->kind > TEV_EXIT_GROUP || (ev->kind == TEV_CLONE && ev->child >= t->nthreads))
		return trace_fail_line(e, name, ev->line, "an event of an unknown thread or kind");
	if (ev->preempted > TRACE_MAX_NS || ev->slept > TRACE_MAX_NS)
		return trace_fail_line(e, name, ev->line, "preempted= or slept= past an hour");
	if (ev->t > TRACE_MAX_NS || ev->dur > TRACE_MAX_NS || ev->t + ev->dur > TRACE_MAX_NS)
		return trace_fail_line(e, name, ev->line, "the event ends after %llu s (at most an hour)",
				 (unsigned long long)(TRACE_MAX_NS / 1000000000ull));
	if (ev->cpu >= 4096 || ev->cpu < -1)
		return trace_fail_line(e, name, ev->line, "cpu %" PRId32 " out of range (0..4095)", ev->cpu);
	if (ev->cpu >= 0 && !t->cpus_recorded)
		return trace_fail_line(e, name, ev->line, "cpu= given, but the header says `cpus absent`");
	if (ev->ret == TRACE_RET_UNFINISHED && (ev->kind != TEV_FUTEX || ev->dur))
		return trace_fail_line(e, name, ev->line, "a call that never returned has no duration");
	return ev->kind == TEV_FUTEX ? check_futex(ev, name, e) : 0;
}

/* Event i of its thread, after the thread's events so far: not after its exit or
 * a call that never returned, not before the clone that creates it. */
static int check_order(const struct trace *t, const struct trace_event *ev, const bool *created, const char *name,
		       struct fs_error *e)
{
	const struct trace_thread *th = &t->threads[ev->thread];
	const struct trace_event *prev = th->n ? &t->events[t->thread_events[th->first + th->n - 1]] : NULL;

	if (prev && (prev->kind == TEV_EXIT || prev->kind == TEV_EXIT_GROUP))
		return trace_fail_line(e, name, ev->line, "thread %" PRIu32 " has an event after its exit (line %" PRIu32 ")",
				 th->tid, prev->line);
	if (prev && prev->kind == TEV_FUTEX && prev->ret == TRACE_RET_UNFINISHED)
		return trace_fail_line(e, name, ev->line,
				 "thread %" PRIu32 " has an event after a call that never returned (line %" PRIu32 ")", th->tid,
				 prev->line);
	if (th->parent != TRACE_NONE && !created[ev->thread])
		return trace_fail_line(e, name, ev->line, "thread %" PRIu32 " has an event before the clone that creates it",
				 th->tid);
	if (ev->kind == TEV_CLONE && (t->threads[ev->child].parent != ev->thread || created[ev->child]))
		return trace_fail_line(e, name, ev->line,
				 created[ev->child] ? "thread %" PRIu32 " is created twice"
						    : "thread %" PRIu32 " is not declared with this parent",
				 t->threads[ev->child].tid);
	return 0;
}

/* Each thread's CPU: its cpu= (where it spent most time), else where most of its events ran. */
static int thread_cpus(struct trace *t, struct fs_error *e)
{
	uint32_t *votes = calloc(4096, sizeof(*votes));

	if (!votes)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory reading the trace");
	for (uint32_t i = 0; i < t->nthreads; i++) {
		struct trace_thread *th = &t->threads[i];
		uint32_t best = 0;

		if (th->cpu_given >= 0) {
			th->cpu = th->cpu_given;
			continue;
		}
		memset(votes, 0, 4096 * sizeof(*votes));
		for (uint32_t k = 0; k < th->n; k++) {
			int32_t c = t->events[t->thread_events[th->first + k]].cpu;

			if (c >= 0 && ++votes[c] > best) {
				best = votes[c];
				th->cpu = c;
			}
		}
	}
	free(votes);
	return 0;
}

/* Every event checked, each thread's events listed in order, its start set (its
 * creator's clone returned, or its first event if that came sooner). */
static int check_threads(struct trace *t, const char *name, struct fs_error *e)
{
	size_t nt = t->nthreads ? t->nthreads : 1;
	uint32_t *count = calloc(nt, sizeof(*count));
	bool *created = calloc(nt, sizeof(*created));
	int rc = -1;

	t->thread_events = malloc((t->nevents ? t->nevents : 1) * sizeof(*t->thread_events));
	if (!count || !created || !t->thread_events) {
		fs_fail(e, FS_ERR_LIMIT, "out of memory reading the trace");
		goto out;
	}
	for (uint32_t i = 0; i < t->nevents; i++) {
		if (check_fields(t, &t->events[i], name, e) < 0)
			goto out;
		count[t->events[i].thread]++;
	}
	for (uint32_t i = 0, at = 0; i < t->nthreads; i++) {
		t->threads[i].first = at;
		t->threads[i].n = 0;
		at += count[i];
	}
	for (uint32_t i = 0; i < t->nevents; i++) {
		const struct trace_event *ev = &t->events[i];
		struct trace_thread *th = &t->threads[ev->thread];

		if (check_order(t, ev, created, name, e) < 0)
			goto out;
		if (ev->kind == TEV_CLONE) {
			created[ev->child] = true;
			t->threads[ev->child].start = ev->t + ev->dur;
		}
		if (th->parent != TRACE_NONE && !th->n && ev->t < th->start)
			th->start = ev->t; /* it ran before its creator's clone returned */
		t->thread_events[th->first + th->n++] = i;
	}
	for (uint32_t i = 0; i < t->nthreads; i++)
		if (t->threads[i].cpu_given >= 0 && (!t->cpus_recorded || t->threads[i].cpu_given >= 4096)) {
			trace_fail_line(e, name, t->threads[i].line, "thread %" PRIu32 ": cpu= %s", t->threads[i].tid,
					t->cpus_recorded ? "out of range (0..4095)" : "given, but the header says `cpus absent`");
			goto out;
		}
	for (uint32_t i = 0; i < t->nthreads; i++)
		if (t->threads[i].parent != TRACE_NONE && !created[i]) {
			trace_fail_line(e, name, t->threads[i].line, "thread %" PRIu32 " has a parent but no clone creates it",
				  t->threads[i].tid);
			goto out;
		}
	rc = t->cpus_recorded ? thread_cpus(t, e) : 0;
out:
	free(count);
	free(created);
	return rc;
}

/* Processes in order of their first thread; threads' process indexes. */
static int build_processes(struct trace *t, struct fs_error *e)
{
	t->procs = calloc(t->nthreads ? t->nthreads : 1, sizeof(*t->procs));
	if (!t->procs)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory reading the trace");
	t->nprocs = 0;
	for (uint32_t i = 0; i < t->nthreads; i++) {
		struct trace_thread *th = &t->threads[i];
		uint32_t q = 0;

		/* a thread's process is its creator's when they share a PID (CLONE_THREAD) */
		if (th->parent != TRACE_NONE && t->threads[th->parent].pid == th->pid)
			q = t->threads[th->parent].process;
		else {
			for (q = 0; q < t->nprocs && t->procs[q].pid != th->pid; q++)
				;
			if (q == t->nprocs) {
				t->procs[q].pid = th->pid;
				t->procs[q].main = i;
				t->nprocs++;
			}
		}
		th->process = q;
		t->procs[q].nthreads++;
	}
	return 0;
}

int trace_finish(struct trace *t, const char *name, struct fs_error *e)
{
	if (build_init(t, e) < 0)
		return -1;
	if (!t->nthreads)
		return trace_fail_line(e, name, 1, "no threads: a trace declares at least one `thread TID PID` line");
	if (t->nevents) /* (a trace of threads and no events has no array) */
		qsort(t->events, t->nevents, sizeof(*t->events), cmp_event);
	for (uint32_t i = 0; i < t->nevents; i++)
		if (t->events[i].t + t->events[i].dur > t->end_ns)
			t->end_ns = t->events[i].t + t->events[i].dur;
	if (check_threads(t, name, e) < 0 || build_processes(t, e) < 0)
		return -1;
	build_free(t);
	return trace_link(t, e);
}

/* --- the reader --- */

#define MAX_TOKENS 32

struct tokens {
	uint32_t n;
	char *s[MAX_TOKENS];
	uint32_t col[MAX_TOKENS];
};

struct reader {
	const char *name;
	uint32_t line;
	struct trace *t;
	struct fs_error *e;
	bool in_events;
	uint64_t last_t;
};

static int fail_tok(struct reader *r, const struct tokens *tk, uint32_t i, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fail_tok(struct reader *r, const struct tokens *tk, uint32_t i, const char *fmt, ...)
{
	char msg[900];
	struct fs_mark at = { r->name, r->line, i < tk->n ? tk->col[i] : 1 };
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return fs_fail_at(r->e, &at, "%s", msg);
}

/* Splits a line at blanks (spaces and tabs); false with too many tokens. */
static bool tokenize(char *line, struct tokens *tk)
{
	char *p = line;

	tk->n = 0;
	while (*p) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		if (tk->n == MAX_TOKENS)
			return false;
		tk->col[tk->n] = (uint32_t)(p - line) + 1;
		tk->s[tk->n++] = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		if (*p)
			*p++ = '\0';
	}
	return true;
}

static int tok_u64(struct reader *r, const struct tokens *tk, uint32_t i, const char *s, uint64_t max, const char *what,
		   uint64_t *out)
{
	if (!parse_u64_text(s, max, out))
		return fail_tok(r, tk, i, "%s: expected a number from 0 to %" PRIu64 ", got '%.40s'", what, max, s);
	return 0;
}

static int tok_u32(struct reader *r, const struct tokens *tk, uint32_t i, const char *s, const char *what, uint32_t *out)
{
	uint64_t v;

	if (tok_u64(r, tk, i, s, UINT32_MAX, what, &v) < 0)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* An address: 0x hex, at most 2^64 - 1 (user addresses are below 2^57 on x86-64, but
 * the reader does not second-guess the machine). */
static int tok_addr(struct reader *r, const struct tokens *tk, uint32_t i, const char *s, const char *what, uint64_t *out)
{
	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || !parse_u64_text(s, UINT64_MAX, out))
		return fail_tok(r, tk, i, "%s: expected a hex address 0x..., got '%.40s'", what, s);
	return 0;
}

static int tok_ret(struct reader *r, const struct tokens *tk, uint32_t i, const char *s, int64_t *out)
{
	uint64_t v;
	int err;

	if (!strcmp(s, "?")) {
		*out = TRACE_RET_UNFINISHED;
		return 0;
	}
	if (s[0] == '-') {
		if ((err = trace_errno_parse(s + 1)) != 0) {
			*out = -err;
			return 0;
		}
		if (parse_u64_text(s + 1, 4095, &v) && v > 0) {
			*out = -(int64_t)v;
			return 0;
		}
		return fail_tok(r, tk, i, "ret: unknown error '%.40s' (expected -ENAME such as -EAGAIN, or -1..-4095)", s);
	}
	if (tok_u64(r, tk, i, s, INT32_MAX, "ret", &v) < 0)
		return -1;
	*out = (int64_t)v;
	return 0;
}

/* key=value options after an event's fixed fields. */
struct options {
	bool has_dur, has_ret, has_cpu, has_preempted, has_slept;
	uint64_t dur;
	int64_t ret;
	int32_t cpu;
};

static int event_options(struct reader *r, const struct tokens *tk, uint32_t from, struct trace_event *ev,
			 struct options *o)
{
	uint64_t v;

	memset(o, 0, sizeof(*o));
	for (uint32_t i = from; i < tk->n; i++) {
		const char *s = tk->s[i], *eq = strchr(s, '=');
		const char *val = eq ? eq + 1 : "";
		size_t klen = eq ? (size_t)(eq - s) : strlen(s);

#define KEY(k) (klen == sizeof(k) - 1 && !strncmp(s, k, klen))
		if (ev->kind == TEV_FUTEX && !eq && !strcmp(s, "timeout")) {
			ev->timeout = true;
		} else if (KEY("dur") && !o->has_dur) {
			if (tok_u64(r, tk, i, val, TRACE_MAX_NS, "dur", &o->dur) < 0)
				return -1;
			o->has_dur = true;
		} else if (KEY("preempted") && !o->has_preempted) {
			if (tok_u64(r, tk, i, val, TRACE_MAX_NS, "preempted", &ev->preempted) < 0)
				return -1;
			o->has_preempted = true;
		} else if (KEY("slept") && !o->has_slept) {
			if (tok_u64(r, tk, i, val, TRACE_MAX_NS, "slept", &ev->slept) < 0)
				return -1;
			o->has_slept = true;
		} else if (KEY("cpu") && !o->has_cpu) {
			if (tok_u64(r, tk, i, val, 4095, "cpu", &v) < 0)
				return -1;
			o->cpu = (int32_t)v;
			o->has_cpu = true;
		} else if (ev->kind == TEV_FUTEX && KEY("ret") && !o->has_ret) {
			if (tok_ret(r, tk, i, val, &o->ret) < 0)
				return -1;
			o->has_ret = true;
		} else if (ev->kind == TEV_FUTEX && KEY("val2") && !ev->has_val2) {
			if (tok_u32(r, tk, i, val, "val2", &ev->val2) < 0)
				return -1;
			ev->has_val2 = true;
		} else if (ev->kind == TEV_FUTEX && KEY("val3") && !ev->has_val3) {
			if (tok_u32(r, tk, i, val, "val3", &ev->val3) < 0)
				return -1;
			ev->has_val3 = true;
		} else if (ev->kind == TEV_FUTEX && KEY("uaddr2") && !ev->has_uaddr2) {
			if (tok_addr(r, tk, i, val, "uaddr2", &ev->uaddr2) < 0)
				return -1;
			ev->has_uaddr2 = true;
		} else {
			return fail_tok(r, tk, i, "unexpected '%.40s' (a repeated or unknown option)", s);
		}
#undef KEY
	}
	return 0;
}

static const char *const kind_names[] = { "futex", "clone", "sleep", "exit", "exit_group", NULL };

static int read_event(struct reader *r, struct tokens *tk)
{
	struct trace *t = r->t;
	struct trace_event ev = { 0 };
	struct options o;
	uint32_t tid, from = 3;
	int kind = -1;

	ev.line = r->line;
	ev.cpu = -1;
	if (tk->n < 3)
		return fail_tok(r, tk, tk->n, "an event is TIME TID KIND ... (got %u fields)", tk->n);
	if (tok_u64(r, tk, 0, tk->s[0], TRACE_MAX_NS, "time (ns)", &ev.t) < 0 || tok_u32(r, tk, 1, tk->s[1], "tid", &tid) < 0)
		return -1;
	if (ev.t < r->last_t)
		return fail_tok(r, tk, 0, "time goes back: %" PRIu64 " ns after %" PRIu64 " ns (events are in time order)",
				ev.t, r->last_t);
	r->last_t = ev.t;
	ev.thread = build_thread_of(t, tid);
	if (ev.thread == TRACE_NONE)
		return fail_tok(r, tk, 1, "thread %" PRIu32 " is not declared (a `thread TID PID` line before the events)", tid);
	for (int k = 0; kind_names[k]; k++)
		if (!strcmp(tk->s[2], kind_names[k]))
			kind = k;
	if (kind < 0)
		return fail_tok(r, tk, 2, "unknown event '%.40s' (one of: futex, clone, sleep, exit, exit_group)", tk->s[2]);
	ev.kind = (uint8_t)kind;
	if (kind == TEV_FUTEX) {
		uint64_t val;

		if (tk->n < 6)
			return fail_tok(r, tk, tk->n, "a futex event is TIME TID futex OP UADDR VAL ... (got %u fields)", tk->n);
		if (!trace_op_parse(tk->s[3], &ev.op))
			return fail_tok(r, tk, 3, "unknown futex op '%.40s' (e.g. WAIT|PRIVATE, CMP_REQUEUE, 0x89, futex_waitv)",
					tk->s[3]);
		if (tok_addr(r, tk, 4, tk->s[4], "uaddr", &ev.uaddr) < 0 || tok_u64(r, tk, 5, tk->s[5], UINT32_MAX, "val", &val) < 0)
			return -1;
		ev.val = (uint32_t)val;
		from = 6;
	} else if (kind == TEV_CLONE) {
		uint32_t child;

		if (tk->n < 4)
			return fail_tok(r, tk, tk->n, "a clone event is TIME TID clone CHILD dur=NS");
		if (tok_u32(r, tk, 3, tk->s[3], "child tid", &child) < 0)
			return -1;
		ev.child = build_thread_of(t, child);
		if (ev.child == TRACE_NONE)
			return fail_tok(r, tk, 3, "clone of thread %" PRIu32 ", which is not declared", child);
		from = 4;
	}
	if (event_options(r, tk, from, &ev, &o) < 0)
		return -1;
	ev.cpu = o.has_cpu ? o.cpu : -1;
	if (kind == TEV_FUTEX) {
		if (!o.has_ret)
			return fail_tok(r, tk, tk->n, "a futex event needs ret= (a number, -ENAME, or ? when it never returned)");
		ev.ret = o.ret;
		if (ev.ret != TRACE_RET_UNFINISHED && !o.has_dur)
			return fail_tok(r, tk, tk->n, "a futex event that returned needs dur=");
		if (ev.ret == TRACE_RET_UNFINISHED && o.has_dur)
			return fail_tok(r, tk, tk->n, "a call that never returned (ret=?) has no dur=");
		if ((ev.op & FX_CMD_MASK) != FX_WAIT_BITSET && (ev.op & FX_CMD_MASK) != FX_WAKE_BITSET &&
		    (ev.op & FX_CMD_MASK) != FX_CMP_REQUEUE && (ev.op & FX_CMD_MASK) != FX_WAKE_OP && ev.op < TRACE_OP_WAITV &&
		    (ev.op & FX_CMD_MASK) != FX_CMP_REQUEUE_PI && ev.has_val3)
			return fail_tok(r, tk, tk->n, "val3= given to an op that has none");
	} else if (kind == TEV_CLONE || kind == TEV_SLEEP) {
		if (!o.has_dur)
			return fail_tok(r, tk, tk->n, "a %s event needs dur=", kind_names[kind]);
	}
	ev.dur = o.dur;
	return trace_add_event(t, &ev, r->e);
}

static int read_thread(struct reader *r, struct tokens *tk)
{
	uint32_t tid, pid, parent = 0;
	uint64_t cleartid = 0, cpu = 0;
	bool has_parent = false, has_cleartid = false, has_cpu = false;

	if (tk->n < 3)
		return fail_tok(r, tk, tk->n, "a thread line is `thread TID PID [parent=TID] [cleartid=0x...]`");
	if (tok_u32(r, tk, 1, tk->s[1], "tid", &tid) < 0 || tok_u32(r, tk, 2, tk->s[2], "pid", &pid) < 0)
		return -1;
	if (!tid || !pid)
		return fail_tok(r, tk, !tid ? 1 : 2, "TIDs and PIDs are at least 1");
	for (uint32_t i = 3; i < tk->n; i++) {
		if (!strncmp(tk->s[i], "parent=", 7) && !has_parent) {
			if (tok_u32(r, tk, i, tk->s[i] + 7, "parent", &parent) < 0)
				return -1;
			if (!parent || parent == tid)
				return fail_tok(r, tk, i, "parent: a thread other than itself");
			has_parent = true;
		} else if (!strncmp(tk->s[i], "cleartid=", 9) && !has_cleartid) {
			if (tok_addr(r, tk, i, tk->s[i] + 9, "cleartid", &cleartid) < 0)
				return -1;
			has_cleartid = true;
		} else if (!strncmp(tk->s[i], "cpu=", 4) && !has_cpu) {
			if (tok_u64(r, tk, i, tk->s[i] + 4, 4095, "cpu", &cpu) < 0)
				return -1;
			has_cpu = true;
		} else {
			return fail_tok(r, tk, i, "unexpected '%.40s' (parent=TID, cleartid=0x... or cpu=N)", tk->s[i]);
		}
	}
	if (trace_add_thread(r->t, tid, pid, parent, cleartid, r->e) < 0) {
		struct fs_mark at = { r->name, r->line, 1 };
		char msg[sizeof(r->e->msg)];

		snprintf(msg, sizeof(msg), "%s", r->e->msg);
		if (r->e->status == FS_ERR_INPUT)
			fs_fail_at(r->e, &at, "%s", msg);
		return -1;
	}
	r->t->threads[r->t->nthreads - 1].line = r->line;
	r->t->threads[r->t->nthreads - 1].cpu_given = has_cpu ? (int32_t)cpu : -1;
	return 0;
}

static int read_header(struct reader *r, struct tokens *tk, const char *raw)
{
	struct trace *t = r->t;
	const char *kw = tk->s[0];

	if (!strcmp(kw, "thread"))
		return read_thread(r, tk);
	if (!strcmp(kw, "tracer") || !strcmp(kw, "command")) {
		/* the original text of the line after the keyword, blanks kept */
		const char *text = raw + strlen(kw);
		char *dst = !strcmp(kw, "tracer") ? t->tracer : t->command;
		size_t cap = !strcmp(kw, "tracer") ? sizeof(t->tracer) : sizeof(t->command);

		while (*text == ' ' || *text == '\t')
			text++;
		if (strlen(text) >= cap)
			return fail_tok(r, tk, 1, "%s: at most %zu characters", kw, cap - 1);
		snprintf(dst, cap, "%s", text);
		return 0;
	}
	if (!strcmp(kw, "cpus")) {
		if (tk->n != 2 || (strcmp(tk->s[1], "recorded") && strcmp(tk->s[1], "absent")))
			return fail_tok(r, tk, 1, "cpus: `recorded` or `absent`");
		t->cpus_recorded = !strcmp(tk->s[1], "recorded");
		return 0;
	}
	if (!strcmp(kw, "overhead")) {
		if (tk->n != 3 || strncmp(tk->s[1], "gap=", 4) || strncmp(tk->s[2], "call=", 5))
			return fail_tok(r, tk, 1, "overhead: `overhead gap=NS call=NS`");
		if (tok_u64(r, tk, 1, tk->s[1] + 4, TRACE_MAX_NS, "gap", &t->overhead_gap_ns) < 0 ||
		    tok_u64(r, tk, 2, tk->s[2] + 5, TRACE_MAX_NS, "call", &t->overhead_call_ns) < 0)
			return -1;
		t->has_overhead = true;
		return 0;
	}
	if (!strcmp(kw, "reference")) {
		if (tk->n != 2 || strncmp(tk->s[1], "run=", 4))
			return fail_tok(r, tk, 1, "reference: `reference run=NS`");
		return tok_u64(r, tk, 1, tk->s[1] + 4, TRACE_MAX_NS, "run", &t->reference_run_ns);
	}
	return fail_tok(r, tk, 0,
			"unknown line '%.40s' (header lines: tracer, cpus, command, overhead, reference, thread; "
			"then events TIME TID KIND ...)",
			kw);
}

int trace_read(FILE *in, const char *name, struct trace *t, struct fs_error *e)
{
	struct reader r = { .name = name, .t = t, .e = e };
	char *line = NULL, *raw = NULL;
	size_t cap = 0;
	ssize_t len;
	bool seen_version = false;
	int rc = -1;

	memset(t, 0, sizeof(*t));
	if (build_init(t, e) < 0)
		return -1;
	while ((len = getline(&line, &cap, in)) >= 0) {
		struct tokens tk;
		size_t n = (size_t)len;

		if (r.line == UINT32_MAX - 1) {
			trace_fail_line(e, name, r.line, "too many lines");
			goto out;
		}
		r.line++;
		if (n && line[n - 1] == '\n')
			line[--n] = '\0';
		if (n && line[n - 1] == '\r')
			line[--n] = '\0';
		if (n > TRACE_MAX_LINE) {
			trace_fail_line(e, name, r.line, "line longer than %u bytes", TRACE_MAX_LINE);
			goto out;
		}
		if (strlen(line) != n) {
			trace_fail_line(e, name, r.line, "a NUL byte in the line (not a text trace)");
			goto out;
		}
		free(raw);
		raw = strdup(line);
		if (!raw) {
			fs_fail(e, FS_ERR_LIMIT, "out of memory reading the trace");
			goto out;
		}
		if (!tokenize(line, &tk)) {
			trace_fail_line(e, name, r.line, "more than %u fields on a line", MAX_TOKENS);
			goto out;
		}
		if (!tk.n || tk.s[0][0] == '#')
			continue;
		if (!seen_version) {
			uint64_t v;

			if (tk.n != 2 || strcmp(tk.s[0], TRACE_FORMAT)) {
				trace_fail_line(e, name, r.line, "not a futexsim trace: the first line is `%s %u`", TRACE_FORMAT,
					  TRACE_VERSION);
				goto out;
			}
			if (!parse_u64_text(tk.s[1], UINT32_MAX, &v) || v != TRACE_VERSION) {
				fail_tok(&r, &tk, 1, "trace format version '%.20s': this futexsim reads version %u", tk.s[1],
					 TRACE_VERSION);
				goto out;
			}
			seen_version = true;
			continue;
		}
		if (tk.s[0][0] >= '0' && tk.s[0][0] <= '9') {
			r.in_events = true;
			if (read_event(&r, &tk) < 0)
				goto out;
		} else if (r.in_events) {
			fail_tok(&r, &tk, 0, "header line '%.40s' after the first event", tk.s[0]);
			goto out;
		} else if (read_header(&r, &tk, raw) < 0) {
			goto out;
		}
	}
	if (ferror(in)) {
		fs_fail(e, FS_ERR_INPUT, "%s: read error", name);
		goto out;
	}
	if (!seen_version) {
		trace_fail_line(e, name, r.line ? r.line : 1, "empty: not a futexsim trace (its first line is `%s %u`)", TRACE_FORMAT,
			  TRACE_VERSION);
		goto out;
	}
	rc = trace_finish(t, name, e);
out:
	free(line);
	free(raw);
	if (rc < 0)
		trace_free(t);
	return rc;
}

int trace_read_file(const char *path, struct trace *t, struct fs_error *e)
{
	FILE *f = fopen(path, "r");
	int rc;

	if (!f) {
		memset(t, 0, sizeof(*t));
		return fs_fail(e, FS_ERR_INPUT, "%s: cannot read the trace: %s", path, strerror(errno));
	}
	rc = trace_read(f, path, t, e);
	fclose(f);
	return rc;
}

int trace_read_mem(const char *buf, size_t len, const char *name, struct trace *t, struct fs_error *e)
{
	FILE *f = len ? fmemopen((void *)buf, len, "r") : NULL;
	int rc;

	if (!len) {
		memset(t, 0, sizeof(*t));
		return trace_fail_line(e, name, 1, "empty: not a futexsim trace (its first line is `%s %u`)", TRACE_FORMAT,
				 TRACE_VERSION);
	}
	if (!f) {
		memset(t, 0, sizeof(*t));
		return fs_fail(e, FS_ERR_LIMIT, "out of memory reading the trace");
	}
	rc = trace_read(f, name, t, e);
	fclose(f);
	return rc;
}

/* --- the writer --- */

int trace_write(const struct trace *t, FILE *out)
{
	char op[64];

	fprintf(out, "%s %u\n", TRACE_FORMAT, TRACE_VERSION);
	fprintf(out, "# docs/trace.md: header, threads, then TIME(ns) TID KIND ... per event in time order\n");
	if (t->tracer[0])
		fprintf(out, "tracer %s\n", t->tracer);
	if (t->command[0])
		fprintf(out, "command %s\n", t->command);
	fprintf(out, "cpus %s\n", t->cpus_recorded ? "recorded" : "absent");
	if (t->has_overhead)
		fprintf(out, "overhead gap=%" PRIu64 " call=%" PRIu64 "\n", t->overhead_gap_ns, t->overhead_call_ns);
	if (t->reference_run_ns)
		fprintf(out, "reference run=%" PRIu64 "\n", t->reference_run_ns);
	for (uint32_t i = 0; i < t->nthreads; i++) {
		const struct trace_thread *th = &t->threads[i];

		fprintf(out, "thread %" PRIu32 " %" PRIu32, th->tid, th->pid);
		if (th->parent != TRACE_NONE)
			fprintf(out, " parent=%" PRIu32, t->threads[th->parent].tid);
		if (th->cleartid && !th->cleartid_inferred)
			fprintf(out, " cleartid=0x%" PRIx64, th->cleartid);
		if (th->cpu_given >= 0)
			fprintf(out, " cpu=%" PRId32, th->cpu_given);
		fputc('\n', out);
	}
	for (uint32_t i = 0; i < t->nevents; i++) {
		const struct trace_event *ev = &t->events[i];

		fprintf(out, "%" PRIu64 " %" PRIu32 " %s", ev->t, t->threads[ev->thread].tid, kind_names[ev->kind]);
		if (ev->kind == TEV_FUTEX) {
			fprintf(out, " %s 0x%" PRIx64 " %" PRIu32, trace_op_name(ev->op, op, sizeof(op)), ev->uaddr, ev->val);
			if (ev->has_val2)
				fprintf(out, " val2=%" PRIu32, ev->val2);
			if (ev->has_uaddr2)
				fprintf(out, " uaddr2=0x%" PRIx64, ev->uaddr2);
			if (ev->has_val3)
				fprintf(out, " val3=0x%" PRIx32, ev->val3);
			if (ev->timeout)
				fputs(" timeout", out);
		} else if (ev->kind == TEV_CLONE) {
			fprintf(out, " %" PRIu32, t->threads[ev->child].tid);
		}
		if (ev->kind == TEV_FUTEX && ev->ret == TRACE_RET_UNFINISHED)
			fputs(" ret=?", out);
		else if (ev->kind == TEV_FUTEX || ev->kind == TEV_CLONE || ev->kind == TEV_SLEEP || ev->dur)
			fprintf(out, " dur=%" PRIu64, ev->dur); /* an exit's: to its end, when the tracer saw it */
		if (ev->kind == TEV_FUTEX && ev->ret != TRACE_RET_UNFINISHED) {
			const char *name = ev->ret < 0 ? trace_errno_name((int)-ev->ret) : NULL;

			if (name)
				fprintf(out, " ret=-%s", name);
			else
				fprintf(out, " ret=%" PRId64, ev->ret);
		}
		if (ev->preempted)
			fprintf(out, " preempted=%" PRIu64, ev->preempted);
		if (ev->slept)
			fprintf(out, " slept=%" PRIu64, ev->slept);
		if (ev->cpu >= 0)
			fprintf(out, " cpu=%" PRId32, ev->cpu);
		fputc('\n', out);
	}
	return ferror(out) ? -1 : 0;
}

uint64_t trace_bytes(uint64_t nevents, uint64_t nthreads)
{
	/* the events and their per-thread index, the link's per-event calls and, at
	 * worst, a key, a class and an entry per event while linking */
	return nevents * (sizeof(struct trace_event) + sizeof(uint32_t) + sizeof(struct trace_call) +
			  sizeof(struct trace_key) + sizeof(struct trace_class) + 64) +
	       nthreads * (sizeof(struct trace_thread) + sizeof(struct trace_process));
}
