/* SPDX-License-Identifier: MIT */
#include "models/workloads/hashbench.h"

#include <stdlib.h>
#include <string.h>

#include "models/futex_table.h"
#include "models/procset.h"
#include "models/world.h"
#include "sim/core/config.h"
#include "sim/core/hugemem.h"

#define MAX_FUTEXES (1u << 20)
#define MAX_UOPS 64u

struct hashbench_params {
	struct procset_params pp;
	uint32_t futexes;
	bool shared;
	bool numa;          /* FUTEX2_NUMA futexes: the caller's node's global table */
	struct fs_cost loop_cost;
	bool random_start;  /* each thread starts at a random index of its array */
	uint64_t mm_write_rate; /* other mm activity (mmap, faults taking mmap_sem for write), per second */
	simtime_t mm_write_hold;
};

/* Where one futex of one thread hashes: its table's id and bucket, 8 bytes (there
 * are millions at scale); its lines are the thread's (word_lines, page_lines). */
struct hb_target {
	uint32_t table, bucket;
};

struct hashbench {
	const struct world *world;
	const struct hashbench_params *p;
	struct procset ps;
	struct hb_target *targets;  /* [thread * futexes + j] */
	/* per thread, the lines of its futex words and (shared futexes) of their struct
	 * pages, by 64-byte line (4 KiB page) from the one holding futex 0 */
	uint32_t *word_lines, *page_lines; /* [thread * nword_lines + k], [thread * npage_lines + k] */
	uint32_t nword_lines, npage_lines;
	uint32_t *next;             /* per thread: index of its next futex */
	uint64_t *array;            /* per thread: address of futex[0] */
	struct uop *progs;          /* [(thread * NPROG_VARIANTS + variant) * MAX_UOPS] */
	uint32_t *nuops;            /* [thread * NPROG_VARIANTS + variant] */
	/* [thread * NPROG_VARIANTS + variant]: the thread whose slot holds the program.
	 * Threads of a process mostly run equal programs, kept once: the interpreter
	 * then reads one copy, warm in the host's cache, not one per thread. */
	uint32_t *prog_owner;
};

static int parse(const struct yt_node *n, const struct machine *m, void **params, struct fs_error *e)
{
	static const char *const keys[] = { "type", PROCSET_KEYS, "futexes", "shared", "loop_cost", "start",
					    "futex2_numa", "mm_writes", NULL };
	static const char *const mm_keys[] = { "rate", "hold", NULL };
	const struct yt_node *mm = yt_get(n, "mm_writes");
	static const char *const starts[] = { "random", "first", NULL };
	struct hashbench_params *p = calloc(1, sizeof(*p));
	int start;

	*params = p;
	if (!p)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	if (cfg_check_keys(n, "workload", keys, e) < 0)
		return -1;
	if (procset_parse(n, m, &p->pp, e) < 0)
		return -1;
	if (cfg_get_u32(n, "futexes", 1024, 1, MAX_FUTEXES, &p->futexes, e) < 0 ||
	    cfg_get_bool(n, "shared", false, &p->shared, e) < 0 ||
	    cfg_get_bool(n, "futex2_numa", false, &p->numa, e) < 0 ||
	    /* the benchmark loop, the libc syscall wrapper and the ops counter [A] */
	    cfg_get_cost(n, "loop_cost", fs_cost_of_cycles(10), &p->loop_cost, e) < 0 ||
	    cfg_get_enum(n, "start", starts, 0, &start, e) < 0)
		return -1;
	p->random_start = start == 0;
	if (mm && (cfg_expect(mm, YT_MAP, "mm_writes", e) < 0 || cfg_check_keys(mm, "mm_writes", mm_keys, e) < 0))
		return -1;
	/* a writer per process holds mmap_sem for `hold`, `rate` times a second (Poisson) */
	if (cfg_get_u64(mm, "rate", 0, 0, 100000000, &p->mm_write_rate, e) < 0 ||
	    cfg_get_duration(mm, "hold", 2 * PS_PER_US, 1, PS_PER_S, &p->mm_write_hold, e) < 0)
		return -1;
	if ((uint64_t)p->pp.threads * p->futexes > (1u << 26))
		return fs_fail_at(e, &n->mark, "workload: threads x futexes = %llu, at most 2^26",
				  (unsigned long long)p->pp.threads * p->futexes);
	return 0;
}

/* the threads, then one mm writer per process when mm_writes.rate > 0 */
static uint32_t ntasks(const void *params)
{
	const struct hashbench_params *p = params;

	return p->pp.threads + (p->mm_write_rate ? p->pp.processes : 0);
}

static void free_state(void *state)
{
	struct hashbench *h = state;

	if (!h)
		return;
	procset_free(&h->ps);
	free(h->targets);
	free(h->word_lines);
	free(h->page_lines);
	free(h->next);
	free(h->array);
	free(h->progs);
	free(h->nuops);
	free(h->prog_owner);
	free(h);
}

/* The futexes of process `pid`'s threads, hashed as the kernel would now. */
static void resolve_process(struct hashbench *h, uint32_t pid)
{
	const struct hashbench_params *p = h->p;
	const struct process *hp = &h->world->ft->procs[pid];
	const struct world *world = h->world;

	for (uint32_t i = hp->first_task; i < hp->first_task + hp->ntasks; i++) {
		int numa_node = p->numa ? (int)world->tasks->v[i].node : -1;

		for (uint32_t j = 0; j < p->futexes; j++) {
			struct hb_target *t = &h->targets[(size_t)i * p->futexes + j];
			struct op_target r = futex_tables_resolve(world->ft, pid, h->array[i] + 4ull * j, p->shared,
								  numa_node);

			t->table = r.table->id;
			t->bucket = r.bucket;
		}
	}
}

/* The heap chunk of one thread's array: its futex words and glibc's size field. */
static uint64_t chunk_bytes(const struct hashbench_params *p)
{
	uint64_t chunk = memmap_align_up((uint64_t)p->futexes * 4 + 8, MALLOC_ALIGN);

	return chunk < MALLOC_MIN_CHUNK ? MALLOC_MIN_CHUNK : chunk;
}

/* Each thread's array is its own calloc'd chunk; the process's main thread callocs
 * them one after the other, so they are consecutive and first touched on its node. */
static int place_arrays(struct hashbench *h, uint32_t pid, struct fs_error *e)
{
	static const char *const no_fields[] = { NULL };
	const struct hashbench_params *p = h->p;
	const struct process *hp = &h->world->ft->procs[pid];
	const struct world *world = h->world;
	uint64_t chunk = chunk_bytes(p);
	uint32_t page_object = MEMMAP_NONE;
	uint64_t heap;
	char name[64];

	heap = memmap_alloc(world->mem, MEM_USER, world->ft->procs[pid].home_node, chunk * hp->ntasks + MALLOC_HEADER, 4096);
	if (p->shared) {
		snprintf(name, sizeof(name), "struct page of process %u", pid);
		page_object = memmap_object(world->mem, name, "page", no_fields);
	}
	for (uint32_t i = hp->first_task; i < hp->first_task + hp->ntasks; i++) {
		uint32_t object;

		h->array[i] = heap + MALLOC_HEADER + chunk * (i - hp->first_task);
		snprintf(name, sizeof(name), "futex words of thread %u", i);
		object = memmap_object(world->mem, name, "futex", no_fields);
		if (object == MEMMAP_NONE)
			return fs_fail(e, FS_ERR_LIMIT, "out of memory");
		for (uint32_t j = 0; j < p->futexes; j++) {
			uint64_t uaddr = h->array[i] + 4ull * j;
			uint32_t *word = &h->word_lines[(size_t)i * h->nword_lines + (uaddr / 64 - h->array[i] / 64)];
			uint32_t *page = &h->page_lines[(size_t)i * h->npage_lines + (uaddr / 4096 - h->array[i] / 4096)];

			*word = memmap_line(world->mem, uaddr, object, j, -1);
			if (p->shared)
				*page = memmap_line(world->mem, memmap_struct_page(uaddr), page_object,
						    (uint32_t)((uaddr - heap) >> 12), -1);
			if (*word == MEMMAP_NONE || (p->shared && *page == MEMMAP_NONE))
				return fs_fail(e, FS_ERR_LIMIT, "out of memory");
		}
	}
	resolve_process(h, pid);
	return 0;
}

/* Task `task`'s own slot for program `variant`. */
static struct uop *prog_slot(struct hashbench *h, uint32_t task, int variant)
{
	return &h->progs[((size_t)task * NPROG_VARIANTS + (size_t)variant) * MAX_UOPS];
}

/* The program `task` runs as `variant`: its own, or an equal one of its process. */
static struct uop *prog_of(struct hashbench *h, uint32_t task, int variant)
{
	return prog_slot(h, h->prog_owner[task * NPROG_VARIANTS + (uint32_t)variant], variant);
}

static bool uops_equal(const struct uop *a, const struct uop *b, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (!uop_same(&a[i], &b[i]))
			return false;
	return true;
}

static int build_program(struct hashbench *h, struct task *t, int variant, struct fs_error *e)
{
	const struct world *world = h->world;
	struct path_builder b = procset_builder(&h->ps, t, variant, h->p->shared, prog_slot(h, t->id, variant), MAX_UOPS);

	path_emit_work(&b, fs_cost_ps(h->p->loop_cost, world->m->freq_khz));
	if (futex_path_build(&b, FOP_WAIT_EAGAIN, e) < 0)
		return -1;
	h->nuops[t->id * NPROG_VARIANTS + (uint32_t)variant] = b.n;
	h->prog_owner[t->id * NPROG_VARIANTS + (uint32_t)variant] = t->id;
	return 0;
}

/* Builds every program variant of process `pid`'s threads; a thread whose
 * program equals the previous thread's runs that one. */
static int build_programs(struct hashbench *h, uint32_t pid, struct fs_error *e)
{
	const struct process *hp = &h->world->ft->procs[pid];

	for (uint32_t i = hp->first_task; i < hp->first_task + hp->ntasks; i++)
		for (int v = 0; v < NPROG_VARIANTS; v++)
			if ((v == PROG_NORMAL || procset_uses_atomic_mode(&h->ps, pid)) && build_program(h, &h->world->tasks->v[i], v, e) < 0)
				return -1;
	for (uint32_t i = hp->first_task + 1; i < hp->first_task + hp->ntasks; i++)
		for (uint32_t v = 0; v < NPROG_VARIANTS; v++) {
			uint32_t n = h->nuops[i * NPROG_VARIANTS + v];

			if (n == h->nuops[(i - 1) * NPROG_VARIANTS + v] &&
			    uops_equal(prog_slot(h, i, (int)v), prog_of(h, i - 1, (int)v), n))
				h->prog_owner[i * NPROG_VARIANTS + v] = h->prog_owner[(i - 1) * NPROG_VARIANTS + v];
		}
	return 0;
}

/* The program for the task's next op: atomic mode while its process resizes. */
static void select_program(struct hashbench *h, struct task *t)
{
	enum prog_variant v = procset_variant(&h->ps, t);

	t->prog = prog_of(h, t->id, v);
	t->nuops = h->nuops[t->id * NPROG_VARIANTS + (uint32_t)v];
}

/* Thread `thread`'s futex `j` as the task executor takes it. */
static struct op_target target_of(const struct hashbench *h, uint32_t thread, uint32_t j)
{
	const struct hb_target *c = &h->targets[(size_t)thread * h->p->futexes + j];
	uint64_t first = h->array[thread], uaddr = first + 4ull * j;

	return (struct op_target){
		.table = h->world->ft->tables[c->table], .bucket = c->bucket,
		.word_line = h->word_lines[(size_t)thread * h->nword_lines + (uaddr / 64 - first / 64)],
		.page_line = h->p->shared ? h->page_lines[(size_t)thread * h->npage_lines + (uaddr / 4096 - first / 4096)]
					  : MEMMAP_NONE,
	};
}

static void note_lines(struct hashbench *h, struct task *t)
{
	for (int v = 0; v < NPROG_VARIANTS; v++) {
		if (v != PROG_NORMAL && !procset_uses_atomic_mode(&h->ps, t->process))
			continue;
		t->prog = prog_of(h, t->id, v);
		t->nuops = h->nuops[t->id * NPROG_VARIANTS + (uint32_t)v];
		/* in batches: after a batch's first target only the lines that move with
		 * the target are looked at */
		for (uint32_t j = 0; j < h->p->futexes;) {
			struct op_target batch[64];
			uint32_t n = 0;

			while (n < 64 && j < h->p->futexes)
				batch[n++] = target_of(h, t->id, j++);
			task_note_lines(h->world->tasks, t, batch, n);
		}
	}
	select_program(h, t);
}

/* procset: thread `t` starts at its clock. */
static void start_thread(void *ctx, struct task *t)
{
	struct hashbench *h = ctx;
	const struct hashbench_params *p = h->p;

	/* perf's threads all start at futex 0 and drift apart over a 10 s run; a short
	 * simulated window matches the drifted state better */
	if (p->random_start)
		h->next[t->id] = (uint32_t)gsl_rng_uniform_int(h->world->rng, p->futexes);
	t->target = target_of(h, t->id, h->next[t->id]);
	select_program(h, t);
	task_start(h->world->tasks, t, t->clock);
}

/* procset: a replaced private hash becomes the one ops use: new buckets, new
 * header lines (ops in flight finish in the old one; nobody waits in it). */
static bool publish(void *ctx, uint32_t pid)
{
	struct hashbench *h = ctx;
	struct fs_error e = { 0 };

	resolve_process(h, pid);
	/* the layout was accepted when the programs were first built: this cannot fail */
	if (build_programs(h, pid, &e) < 0)
		abort();
	return true;
}

static int setup_processes(struct hashbench *h, struct fs_error *e)
{
	const struct hashbench_params *p = h->p;
	static const struct procset_ops ops = { start_thread, publish };

	if (procset_init(&h->ps, h->world, &p->pp, !p->numa && !p->shared, &ops, h, e) < 0)
		return -1;
	for (uint32_t q = 0; q < p->pp.processes; q++)
		if (place_arrays(h, q, e) < 0 || build_programs(h, q, e) < 0)
			return -1;
	return 0;
}

/* One background task per process writes mmap_sem: think (exponential), down_write,
 * hold, up_write. It runs on its process's first CPU without taking time from it [A]. */
static int setup_mm_writers(struct hashbench *h, struct fs_error *e)
{
	const struct hashbench_params *p = h->p;
	const struct world *world = h->world;

	for (uint32_t q = 0; q < p->pp.processes; q++) {
		struct task *t = &world->tasks->v[p->pp.threads + q];
		const struct task *first = &world->tasks->v[h->world->ft->procs[q].first_task];
		uint32_t sem = world->ft->procs[q].mmap_sem;
		struct uop *u = prog_slot(h, t->id, PROG_NORMAL);

		if (sem == RWSEM_NONE)
			return fs_fail(e, FS_ERR_INPUT, "workload.mm_writes needs an mmap_sem: the kernel's layout.mm "
							"has no mmap_lock field");
		t->cpu = first->cpu;
		t->core = first->core;
		t->node = first->node;
		t->process = q;
		t->background = true;
		u[0] = (struct uop){ .kind = UOP_WORK, .operand = OPND_RANDOM_EXP,
				     .work_ps = PS_PER_S / p->mm_write_rate };
		u[1] = (struct uop){ .kind = UOP_RWSEM, .rwsem_op = RWSEM_DOWN_WRITE, .sem = sem };
		u[2] = (struct uop){ .kind = UOP_WORK, .operand = OPND_NONE, .work_ps = p->mm_write_hold };
		u[3] = (struct uop){ .kind = UOP_RWSEM, .rwsem_op = RWSEM_UP_WRITE, .sem = sem };
		t->prog = u;
		t->nuops = h->nuops[t->id * NPROG_VARIANTS + PROG_NORMAL] = 4;
		/* its lines take no target: any one will do */
		struct op_target any = target_of(h, 0, 0);

		task_note_lines(world->tasks, t, &any, 1);
		task_start(world->tasks, t, 0);
	}
	return 0;
}

static int setup(const struct world *world, const void *params, void **state, struct fs_error *e)
{
	const struct hashbench_params *p = params;
	struct hashbench *h = calloc(1, sizeof(*h));

	*state = h;
	if (!h)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	if (p->numa && world->ft->nglobal < 2)
		return fs_fail(e, FS_ERR_INPUT,
			       "workload.futex2_numa needs per-node global tables (kernel.global_hash.per_node on a "
			       "machine with more than one node)");
	h->world = world;
	h->p = p;
	h->targets = huge_alloc(_Alignof(struct hb_target), (size_t)p->pp.threads * p->futexes * sizeof(*h->targets));
	h->next = calloc(p->pp.threads, sizeof(*h->next));
	h->array = calloc(p->pp.threads, sizeof(*h->array));
	/* an array of 4 x futexes bytes spans at most this many lines and pages */
	h->nword_lines = (uint32_t)((4ull * p->futexes + 63) / 64 + 1);
	h->npage_lines = p->shared ? (uint32_t)((4ull * p->futexes + 4095) / 4096 + 1) : 0;
	h->word_lines = calloc((size_t)p->pp.threads * h->nword_lines, sizeof(*h->word_lines));
	h->page_lines = calloc((size_t)p->pp.threads * h->npage_lines + 1, sizeof(*h->page_lines));
	h->progs = calloc((size_t)ntasks(p) * NPROG_VARIANTS * MAX_UOPS, sizeof(*h->progs));
	h->nuops = calloc((size_t)ntasks(p) * NPROG_VARIANTS, sizeof(*h->nuops));
	h->prog_owner = malloc((size_t)ntasks(p) * NPROG_VARIANTS * sizeof(*h->prog_owner));
	if (!h->targets || !h->next || !h->array || !h->progs || !h->nuops || !h->prog_owner || !h->word_lines ||
	    !h->page_lines)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	for (uint32_t i = 0; i < ntasks(p) * NPROG_VARIANTS; i++)
		h->prog_owner[i] = i / NPROG_VARIANTS;
	if (setup_processes(h, e) < 0 || (p->mm_write_rate && setup_mm_writers(h, e) < 0))
		return -1;
	for (uint32_t i = 0; i < p->pp.threads; i++)
		note_lines(h, &world->tasks->v[i]);
	procset_start(&h->ps);
	return 0;
}

static void program_done(void *state, struct task *t)
{
	struct hashbench *h = state;
	uint32_t j;

	if (t->background)
		return; /* an mm writer loops over its program */
	if (procset_exiting(&h->ps, t))
		return;
	j = h->next[t->id] + 1;

	if (j == h->p->futexes)
		j = 0;
	h->next[t->id] = j;
	t->target = target_of(h, t->id, j);
	/* the next op's entry, fetched while this op runs (a host cache miss at scale) */
	if (h->world->eng->prefetch_next)
		__builtin_prefetch(&h->targets[(size_t)t->id * h->p->futexes + (j + 1 == h->p->futexes ? 0 : j + 1)]);
	select_program(h, t);
}

static void print_header(const void *params, const void *state, double secs, FILE *out)
{
	(void)state;
	const struct hashbench_params *p = params;

	fprintf(out, "Run summary [PID 0]: %u threads, each operating on %u [%s] futexes for %.6g secs.\n\n",
		p->pp.threads, p->futexes, p->shared ? "shared" : "private", secs);
}

static void print_thread(const void *state, const struct task *t, uint64_t ops_per_sec, FILE *out)
{
	const struct hashbench *h = state;
	uint64_t first = h->array[t->id];

	if (h->p->futexes == 1)
		fprintf(out, "[thread %2u] futex: 0x%llx [ %llu ops/sec ]\n", t->id, (unsigned long long)first,
			(unsigned long long)ops_per_sec);
	else
		fprintf(out, "[thread %2u] futexes: 0x%llx ... 0x%llx [ %llu ops/sec ]\n", t->id,
			(unsigned long long)first, (unsigned long long)(first + 4ull * (h->p->futexes - 1)),
			(unsigned long long)ops_per_sec);
}

/* What setup allocates and maps (sim/estimate.h); keep in step with setup and
 * place_arrays. */
static void size(const void *params, struct workload_size *out)
{
	const struct hashbench_params *p = params;
	uint64_t chunk = chunk_bytes(p);
	uint64_t per_proc = (p->pp.threads + p->pp.processes - 1) / p->pp.processes;
	uint64_t heap_lines = (chunk * per_proc + MALLOC_HEADER) / 64 + 2;

	out->processes = p->pp.processes;
	out->max_process_threads = (uint32_t)per_proc + 1;
	/* each process's heap of futex words, and with shared futexes their struct pages */
	out->user_lines = p->pp.processes * heap_lines * (p->shared ? 2 : 1);
	out->targets = (uint64_t)p->pp.threads * p->futexes;
	out->bytes = (uint64_t)p->pp.threads * p->futexes * sizeof(struct hb_target) +
		     (uint64_t)p->pp.threads * ((4ull * p->futexes + 63) / 64 + 1) * sizeof(uint32_t) * (p->shared ? 2 : 1) +
		     (uint64_t)ntasks(p) * NPROG_VARIANTS * (MAX_UOPS * sizeof(struct uop) + 2 * sizeof(uint32_t)) +
		     (uint64_t)p->pp.threads * (sizeof(uint32_t) + sizeof(uint64_t));
}

const struct workload_type workload_hashbench = {
	.name = "hash-bench",
	.description = "perf bench futex hash: FUTEX_WAIT on mismatching values, EAGAIN loop",
	.parse = parse,
	.ntasks = ntasks,
	.nthreads = procset_params_threads,
	.setup = setup,
	.program_done = program_done,
	.print_header = print_header,
	.print_thread = print_thread,
	.free_state = free_state,
	.free_params = procset_params_release,
	.size = size,
};
