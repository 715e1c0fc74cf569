#include "models/workload_hashbench.h"

#include <stdlib.h>
#include <string.h>

#include "models/futex_table.h"
#include "sim/hugemem.h"
#include "sim/config.h"
#include "sim/sim.h"

#define MAX_FUTEXES (1u << 20)
#define MAX_UOPS 64u
#define MALLOC_HEADER 16u /* glibc chunk header before the user pointer */
#define MALLOC_ALIGN 16u

struct hashbench_params {
	uint32_t threads;
	uint32_t futexes;
	bool shared;
	uint32_t *cpus;
	uint32_t ncpus;
	struct fs_cost loop_cost;
	simtime_t start_skew;
	bool random_start;  /* each thread starts at a random index of its array */
};

struct hashbench {
	const struct hashbench_params *p;
	struct op_target *targets;  /* [thread * futexes + j] */
	uint32_t *next;             /* per thread: index of its next futex */
	uint64_t *array;            /* per thread: address of futex[0] */
	struct uop *progs;          /* [thread * MAX_UOPS] */
};

static void free_params(void *params)
{
	struct hashbench_params *p = params;

	if (p)
		free(p->cpus);
	free(p);
}

static int parse(const struct yt_node *n, const struct machine *m, void **params, struct fs_error *e)
{
	static const char *const keys[] = { "type", "threads", "futexes", "shared", "cpus",
					    "loop_cost", "start_skew", "start", NULL };
	static const char *const starts[] = { "random", "first", NULL };
	int start;
	struct hashbench_params *p = calloc(1, sizeof(*p));
	const struct yt_node *cpus = yt_get(n, "cpus");

	*params = p;
	if (!p)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	if (cfg_check_keys(n, "workload", keys, e) < 0)
		return -1;
	if (cpus && cfg_expect(cpus, YT_SCALAR, "cpus", e) < 0)
		return -1;
	if (machine_parse_cpulist(m, cpus ? cpus->scalar : "all", cpus ? &cpus->mark : &n->mark, &p->cpus,
				  &p->ncpus, e) < 0)
		return -1;
	if (cfg_get_u32(n, "threads", p->ncpus, 1, 1u << 16, &p->threads, e) < 0 ||
	    cfg_get_u32(n, "futexes", 1024, 1, MAX_FUTEXES, &p->futexes, e) < 0 ||
	    cfg_get_bool(n, "shared", false, &p->shared, e) < 0 ||
	    /* the benchmark loop, the libc syscall wrapper and the ops counter [A] */
	    cfg_get_cost(n, "loop_cost", fs_cost_of_cycles(10), &p->loop_cost, e) < 0 ||
	    cfg_get_duration(n, "start_skew", 1 * PS_PER_US, 0, PS_PER_S, &p->start_skew, e) < 0 ||
	    cfg_get_enum(n, "start", starts, 0, &start, e) < 0)
		return -1;
	p->random_start = start == 0;
	if (p->threads > p->ncpus) {
		const struct yt_node *t = yt_get(n, "threads");

		return fs_fail_at(e, t ? &t->mark : &n->mark,
				  "threads: %u threads but the CPU list has %u CPUs (futexsim pins one thread "
				  "per CPU; it does not model CPUs shared by several threads)",
				  p->threads, p->ncpus);
	}
	if ((uint64_t)p->threads * p->futexes > (1u << 26))
		return fs_fail_at(e, &n->mark, "workload: threads x futexes = %llu, at most 2^26",
				  (unsigned long long)p->threads * p->futexes);
	return 0;
}

static uint32_t ntasks(const void *params)
{
	return ((const struct hashbench_params *)params)->threads;
}

static void free_state(void *state)
{
	struct hashbench *h = state;

	if (!h)
		return;
	free(h->targets);
	free(h->next);
	free(h->array);
	free(h->progs);
	free(h);
}

/* Each thread's array is its own calloc'd chunk; chunks follow each other on the heap. */
static int place_arrays(struct sim *s, struct hashbench *h, uint32_t pid, struct fs_error *e)
{
	const struct hashbench_params *p = h->p;
	uint64_t chunk = ((uint64_t)p->futexes * 4 + 8 + MALLOC_ALIGN - 1) & ~(uint64_t)(MALLOC_ALIGN - 1);
	static const char *const no_fields[] = { NULL };
	uint32_t page_object = MEMMAP_NONE;
	uint64_t heap;

	if (chunk < 32)
		chunk = 32;
	heap = memmap_alloc(&s->mem, MEM_USER, 0, chunk * p->threads + MALLOC_HEADER, 4096);
	if (p->shared)
		page_object = memmap_object(&s->mem, "struct page of user page", "page", no_fields);
	for (uint32_t i = 0; i < p->threads; i++) {
		char name[64];
		uint32_t object;

		h->array[i] = heap + MALLOC_HEADER + chunk * i;
		snprintf(name, sizeof(name), "futex words of thread %u", i);
		object = memmap_object(&s->mem, name, "futex", no_fields);
		if (object == MEMMAP_NONE)
			return fs_fail(e, FS_ERR_LIMIT, "out of memory");
		for (uint32_t j = 0; j < p->futexes; j++) {
			uint64_t uaddr = h->array[i] + 4ull * j;
			struct op_target *t = &h->targets[(size_t)i * p->futexes + j];

			*t = futex_tables_resolve(&s->ft, pid, uaddr, p->shared);
			t->word_line = memmap_line(&s->mem, uaddr, object, j, -1);
			t->page_line = MEMMAP_NONE;
			if (p->shared)
				t->page_line = memmap_line(&s->mem, memmap_struct_page(uaddr), page_object,
							   (uint32_t)((uaddr - heap) >> 12), -1);
			if (t->word_line == MEMMAP_NONE || (p->shared && t->page_line == MEMMAP_NONE))
				return fs_fail(e, FS_ERR_LIMIT, "out of memory");
		}
	}
	return 0;
}

static int build_program(struct sim *s, struct hashbench *h, struct task *t, struct fs_error *e)
{
	const struct process *proc = &s->ft.procs[t->process];
	struct path_builder b = {
		.k = s->k,
		.m = s->m,
		.shared = h->p->shared,
		.private_hash = proc->phash != NULL,
		.mm_lines = proc->mm_lines,
		.phash_lines = proc->phash_lines,
		.percpu_ref_line = proc->percpu_ref_lines[t->cpu],
		.uops = &h->progs[(size_t)t->id * MAX_UOPS],
		.cap = MAX_UOPS,
	};

	for (unsigned c = 0; c < KC_NCOSTS; c++)
		b.costs_ps[c] = fs_cost_ps(s->k->costs[c], s->m->freq_khz);
	path_emit_work(&b, fs_cost_ps(h->p->loop_cost, s->m->freq_khz));
	if (futex_path_build(&b, FOP_WAIT_EAGAIN, e) < 0)
		return -1;
	t->prog = b.uops;
	t->nuops = b.n;
	return 0;
}

static int setup(struct sim *s, const void *params, void **state, struct fs_error *e)
{
	const struct hashbench_params *p = params;
	struct hashbench *h = calloc(1, sizeof(*h));
	uint32_t pid;

	*state = h;
	if (!h)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	h->p = p;
	h->targets = huge_alloc(_Alignof(struct op_target), (size_t)p->threads * p->futexes * sizeof(*h->targets));
	h->next = calloc(p->threads, sizeof(*h->next));
	h->array = calloc(p->threads, sizeof(*h->array));
	h->progs = calloc((size_t)p->threads * MAX_UOPS, sizeof(*h->progs));
	if (!h->targets || !h->next || !h->array || !h->progs)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	/* the workers plus the main thread that created them */
	if (futex_tables_add_process(&s->ft, p->threads + 1, &pid, e) < 0 || place_arrays(s, h, pid, e) < 0)
		return -1;
	for (uint32_t i = 0; i < p->threads; i++) {
		struct task *t = &s->tasks.v[i];

		t->cpu = p->cpus[i % p->ncpus];
		t->core = s->m->cpu_core[t->cpu];
		t->node = s->m->cpu_node[t->cpu];
		t->process = pid;
		t->target = h->targets[(size_t)i * p->futexes];
		if (build_program(s, h, t, e) < 0)
			return -1;
		task_note_lines(&s->tasks, t, &h->targets[(size_t)i * p->futexes], p->futexes);
	}
	for (uint32_t i = 0; i < p->threads; i++) {
		simtime_t skew = p->start_skew ? (simtime_t)gsl_rng_uniform_int(s->rng, p->start_skew) : 0;
		struct task *t = &s->tasks.v[i];

		/* perf's threads all start at futex 0 and drift apart over a 10 s run; a
		 * short simulated window matches the drifted state better */
		if (p->random_start) {
			h->next[i] = (uint32_t)gsl_rng_uniform_int(s->rng, p->futexes);
			t->target = h->targets[(size_t)i * p->futexes + h->next[i]];
		}
		task_start(&s->tasks, t, skew);
	}
	return 0;
}

static void op_done(void *state, struct task *t)
{
	struct hashbench *h = state;
	uint32_t j = h->next[t->id] + 1;

	if (j == h->p->futexes)
		j = 0;
	h->next[t->id] = j;
	t->target = h->targets[(size_t)t->id * h->p->futexes + j];
}

static void print_header(const void *params, double secs, FILE *out)
{
	const struct hashbench_params *p = params;

	fprintf(out, "Run summary [PID 0]: %u threads, each operating on %u [%s] futexes for %.6g secs.\n\n",
		p->threads, p->futexes, p->shared ? "shared" : "private", secs);
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

const struct workload_type workload_hashbench = {
	.name = "hash-bench",
	.description = "perf bench futex hash: FUTEX_WAIT on mismatching values, EAGAIN loop",
	.parse = parse,
	.ntasks = ntasks,
	.setup = setup,
	.op_done = op_done,
	.print_header = print_header,
	.print_thread = print_thread,
	.free_state = free_state,
	.free_params = free_params,
};
