/* SPDX-License-Identifier: MIT */
#include "models/futex_table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/core/bytes.h"

static void table_free(struct futex_table *t)
{
	if (!t)
		return;
	free((char *)t->name);
	free(t->field_lines);
	free(t->hashed);
	free(t->chain_head);
	free(t->chain_tail);
	free(t->waiters);
	free(t);
}

/* Whether every field's line is first_line + (offset from the line of base) / 64. */
static void check_contiguous(struct futex_table *t)
{
	int f0 = -1;

	t->contiguous = false;
	for (int f = 0; f < BF_NFIELDS && f0 < 0; f++)
		if (t->off[f] != LAYOUT_ABSENT)
			f0 = f;
	if (f0 < 0)
		return;
	t->first_line = t->field_lines[f0] - (uint32_t)((t->skew + (uint64_t)t->off[f0]) >> 6);
	t->contiguous = true;
	for (uint32_t b = 0; b < t->size && t->contiguous; b++)
		for (int f = 0; f < BF_NFIELDS; f++)
			if (t->off[f] != LAYOUT_ABSENT &&
			    futex_table_line(t, b, (enum bucket_field)f) != t->field_lines[(size_t)b * BF_NFIELDS + f])
				t->contiguous = false;
}

/* A table of `size` buckets at `base` (already allocated), its lines and locks. */
static struct futex_table *table_create(struct futex_tables *ft, const char *name, uint32_t size,
					uint32_t node, uint64_t base, const struct hashfn *hash,
					enum key_scope scope, struct fs_error *e)
{
	const struct object_layout *bl = &ft->k->bucket;
	struct futex_table *t;
	uint32_t object;

	if (ft->ntables == FUTEX_MAX_TABLES) {
		fs_fail(e, FS_ERR_LIMIT, "more than %u futex tables", FUTEX_MAX_TABLES);
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		goto oom;
	t->id = ft->ntables;
	t->name = strdup(name);
	t->size = size;
	t->node = node;
	t->base = base;
	t->hash = hash;
	t->scope = scope;
	t->lock0 = SPIN_NONE;
	t->bucket_size = bl->size;
	t->skew = (uint32_t)(base & (LINE_SIZE - 1));
	memcpy(t->off, bl->off, sizeof(t->off));
	t->field_lines = malloc((size_t)size * BF_NFIELDS * sizeof(*t->field_lines));
	t->hashed = calloc(size, sizeof(*t->hashed));
	t->chain_head = malloc((size_t)size * sizeof(*t->chain_head));
	t->chain_tail = malloc((size_t)size * sizeof(*t->chain_tail));
	t->waiters = calloc(size, sizeof(*t->waiters));
	object = memmap_object(ft->mem, name, "bucket", bucket_field_names);
	if (!t->name || !t->field_lines || !t->hashed || !t->chain_head || !t->chain_tail || !t->waiters ||
	    object == MEMMAP_NONE)
		goto oom;
	memset(t->chain_head, 0xff, (size_t)size * sizeof(*t->chain_head));
	memset(t->chain_tail, 0xff, (size_t)size * sizeof(*t->chain_tail));
	for (uint32_t b = 0; b < size; b++) {
		uint64_t bucket_addr = base + (uint64_t)b * bl->size;

		for (int f = 0; f < BF_NFIELDS; f++) {
			uint32_t line = MEMMAP_NONE;

			if (bl->off[f] != LAYOUT_ABSENT) {
				line = memmap_line(ft->mem, bucket_addr + (uint64_t)bl->off[f], object, b, f);
				if (line == MEMMAP_NONE)
					goto oom;
			}
			t->field_lines[(size_t)b * BF_NFIELDS + f] = line;
		}
		if (bl->off[BF_LOCK] != LAYOUT_ABSENT) {
			uint32_t lock = spinlock_add(ft->locks);

			if (lock == SPIN_NONE)
				goto oom;
			if (b == 0)
				t->lock0 = lock;
		}
	}
	check_contiguous(t);
	ft->tables[ft->ntables++] = t;
	return t;
oom:
	table_free(t);
	fs_fail(e, FS_ERR_LIMIT, "out of memory building futex table '%s' of %u buckets", name, size);
	return NULL;
}

/* Lines of `nfields` fields of one object at `addr`. */
static int place_fields(struct futex_tables *ft, const struct object_layout *o, uint64_t addr,
			const char *name, const char *element, uint32_t index,
			const char *const *field_names, uint32_t *lines, unsigned nfields)
{
	uint32_t object = memmap_object(ft->mem, name, element, field_names);

	if (object == MEMMAP_NONE)
		return -1;
	for (unsigned f = 0; f < nfields; f++) {
		lines[f] = MEMMAP_NONE;
		if (o->off[f] == LAYOUT_ABSENT)
			continue;
		lines[f] = memmap_line(ft->mem, addr + (uint64_t)o->off[f], object, index, (int)f);
		if (lines[f] == MEMMAP_NONE)
			return -1;
	}
	return 0;
}

/* A line per CPU in its node's memory, for object `name` with the one field `fields[0]`:
 * a malloc'd array in *lines. */
static int per_cpu_lines(struct futex_tables *ft, const char *name, const char *const *fields, uint32_t **lines,
			 struct fs_error *e)
{
	uint32_t object = memmap_object(ft->mem, name, "cpu", fields);

	*lines = malloc((size_t)ft->m->ncpus * sizeof(**lines));
	if (!*lines || object == MEMMAP_NONE)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	for (uint32_t cpu = 0; cpu < ft->m->ncpus; cpu++) {
		uint64_t addr = memmap_alloc(ft->mem, MEM_KERNEL_NODE, ft->m->cpu_node[cpu], LINE_SIZE, LINE_SIZE);

		(*lines)[cpu] = memmap_line(ft->mem, addr, object, cpu, 0);
		if ((*lines)[cpu] == MEMMAP_NONE)
			return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	}
	return 0;
}

int futex_tables_init(struct futex_tables *ft, const struct kernel_design *k, const struct machine *m,
		      struct memmap *mem, struct spinlocks *locks, struct rwsems *rwsems, struct fs_error *e)
{
	static const char *const qnode_fields[] = { "qnode", NULL };

	memset(ft, 0, sizeof(*ft));
	ft->k = k;
	ft->m = m;
	ft->mem = mem;
	ft->locks = locks;
	ft->rwsems = rwsems;
	ft->nglobal = k->global.per_node ? m->nodes : 1;
	ft->global_buckets = kernel_global_buckets(k, m->ncpus, ft->nglobal);
	if (ft->global_buckets == 0 || ft->global_buckets > (1u << 26))
		return fs_fail(e, FS_ERR_LIMIT, "global futex table of more than 2^26 buckets refused");

	for (uint32_t n = 0; n < ft->nglobal; n++) {
		enum mem_region region = k->global.interleave ? MEM_KERNEL_INTERLEAVED : MEM_KERNEL_NODE;
		uint64_t base = memmap_alloc(mem, region, n, (uint64_t)ft->global_buckets * k->bucket.size,
					     k->bucket.align > 4096 ? k->bucket.align : 4096);
		char name[64];

		if (ft->nglobal == 1)
			snprintf(name, sizeof(name), "global hash");
		else
			snprintf(name, sizeof(name), "global hash node %u", n);
		if (!table_create(ft, name, ft->global_buckets, n, base, k->global.hash, KEY_SCOPE_FULL, e))
			return -1;
	}

	return per_cpu_lines(ft, "MCS queue node", qnode_fields, &ft->qnode_lines, e);
}

void futex_tables_free(struct futex_tables *ft)
{
	for (uint32_t i = 0; i < ft->ntables; i++)
		table_free(ft->tables[i]);
	for (uint32_t p = 0; p < ft->nprocs; p++)
		free(ft->procs[p].percpu_ref_lines);
	free(ft->procs);
	free(ft->resizes);
	free(ft->qnode_lines);
	memset(ft, 0, sizeof(*ft));
}

static int add_private_hash(struct futex_tables *ft, struct process *p, uint32_t size, struct fs_error *e)
{
	const struct kernel_design *k = ft->k;
	uint32_t node = p->home_node;
	uint64_t align = k->bucket.align > k->phash_header.align ? k->bucket.align : k->phash_header.align;
	uint64_t buckets_off = memmap_align_up(k->phash_header.size, k->bucket.align);
	uint64_t header = memmap_alloc(ft->mem, MEM_KERNEL_NODE, node,
				       buckets_off + (uint64_t)size * k->bucket.size, align);
	char name[80], resize[32] = "";

	if (p->resizes)
		snprintf(resize, sizeof(resize), " (resize %u)", p->resizes);
	snprintf(name, sizeof(name), "private hash header of process %u%s", p->id, resize);
	if (place_fields(ft, &k->phash_header, header, name, NULL, p->id, phash_field_names,
			 p->phash_lines, PHF_NFIELDS) < 0)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	snprintf(name, sizeof(name), "private hash of process %u%s", p->id, resize);
	p->phash = table_create(ft, name, size, node, header + buckets_off, k->private_hash.hash,
				k->private_hash.key, e);
	return p->phash ? 0 : -1;
}

int futex_tables_add_process(struct futex_tables *ft, uint32_t nthreads, uint32_t home_node, uint32_t *pid,
			     struct fs_error *e)
{
	static const char *const ref_fields[] = { "futex_ref", NULL };
	const struct kernel_design *k = ft->k;
	struct process *procs = realloc(ft->procs, (ft->nprocs + 1) * sizeof(*procs));
	struct process *p;
	uint32_t size;
	char name[64];

	if (!procs)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	ft->procs = procs;
	p = &procs[ft->nprocs];
	memset(p, 0, sizeof(*p));
	p->id = ft->nprocs++;
	p->nthreads = nthreads;
	p->home_node = home_node % ft->m->nodes;
	p->mm = memmap_alloc(ft->mem, MEM_KERNEL_NODE, p->home_node, k->mm.size, k->mm.align);
	snprintf(name, sizeof(name), "mm of process %u", p->id);
	if (place_fields(ft, &k->mm, p->mm, name, NULL, p->id, mm_field_names, p->mm_lines,
			 MMF_NFIELDS) < 0)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	p->mmap_sem = RWSEM_NONE;
	if (p->mm_lines[MMF_MMAP_LOCK] != MEMMAP_NONE) {
		p->mmap_sem = rwsem_add(ft->rwsems, p->mm_lines[MMF_MMAP_LOCK]);
		if (p->mmap_sem == RWSEM_NONE)
			return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	}

	snprintf(name, sizeof(name), "per-CPU futex_ref of process %u", p->id);
	if (per_cpu_lines(ft, name, ref_fields, &p->percpu_ref_lines, e) < 0)
		return -1;

	size = kernel_private_buckets(k, nthreads, ft->m->ncpus, ft->global_buckets);
	if (size && add_private_hash(ft, p, size, e) < 0)
		return -1;
	*pid = p->id;
	return 0;
}

int futex_tables_thread_created(struct futex_tables *ft, uint32_t pid, uint32_t nthreads, simtime_t now,
				bool *grew, struct fs_error *e)
{
	struct process *p = &ft->procs[pid];
	struct futex_resize *log;
	uint32_t size;

	*grew = false;
	p->nthreads = nthreads;
	/* a size set by prctl (or none at all) never changes with the thread count */
	if (ft->k->private_hash.buckets >= 0)
		return 0;
	size = kernel_private_buckets(ft->k, nthreads, ft->m->ncpus, ft->global_buckets);
	if (!p->phash || size <= p->phash->size)
		return 0;
	log = realloc(ft->resizes, (ft->nresizes + 1) * sizeof(*log));
	if (!log)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	ft->resizes = log;
	log[ft->nresizes] = (struct futex_resize){ pid, p->phash->size, size, now, SIMTIME_MAX };
	p->resizes++;
	if (add_private_hash(ft, p, size, e) < 0)
		return -1;
	ft->nresizes++;
	*grew = true;
	return 0;
}

void futex_tables_resize_done(struct futex_tables *ft, uint32_t pid, simtime_t now)
{
	for (uint32_t i = 0; i < ft->nresizes; i++)
		if (ft->resizes[i].pid == pid && ft->resizes[i].end == SIMTIME_MAX)
			ft->resizes[i].end = now;
}

/* The global table of a key: by the hash (6.16+: the bits above the bucket index),
 * or, in the 2006 per-node proposal, by the node holding a private futex's memory
 * (shared futexes by the low bits of the hash). */
static const struct futex_table *global_table(const struct futex_tables *ft, const struct futex_key *key,
					      uint64_t uaddr, uint32_t h)
{
	const struct futex_table *t0 = ft->tables[0];

	if (ft->nglobal == 1)
		return t0;
	if (ft->k->global.node_select == NODE_SELECT_MEMORY)
		return ft->tables[futex_key_is_private(key) ? memmap_home_node(ft->mem, uaddr) % ft->nglobal
							    : h % ft->nglobal];
	if (ft->k->global.node_select == NODE_SELECT_MULSHIFT) /* the kernel's reciprocal_scale() */
		return ft->tables[((uint64_t)h * ft->nglobal) >> 32];
	return ft->tables[t0->hash->node_part(h, t0->size) % ft->nglobal];
}

/* The bucket of hash `h` in table `t`, counted in its occupancy. */
static struct op_target bucket_of(const struct futex_table *t, uint32_t h)
{
	struct op_target target = { .table = t, .bucket = t->hash->index(h, t->size) };

	t->hashed[target.bucket]++;
	return target;
}

struct op_target futex_tables_resolve(struct futex_tables *ft, uint32_t pid, uint64_t uaddr, bool shared,
				      int numa_node)
{
	const struct process *p = &ft->procs[pid];
	struct futex_key key = shared ? futex_key_mm_shared(p->mm, uaddr) : futex_key_private(p->mm, uaddr);
	const struct futex_table *t;
	uint32_t h;

	if (numa_node >= 0 && ft->nglobal > 1) {
		t = ft->tables[(uint32_t)numa_node % ft->nglobal];
		h = t->hash->hash(&key, KEY_SCOPE_FULL, ft->k->key_order);
	} else if (!shared && p->phash) {
		t = p->phash;
		h = t->hash->hash(&key, t->scope, ft->k->key_order);
	} else {
		h = ft->tables[0]->hash->hash(&key, KEY_SCOPE_FULL, ft->k->key_order);
		t = global_table(ft, &key, uaddr, h);
	}
	return bucket_of(t, h);
}

struct op_target futex_tables_resolve_inode(struct futex_tables *ft, uint64_t inode_seq, uint64_t file_offset)
{
	struct futex_key key = futex_key_inode(inode_seq, file_offset);
	uint32_t h = ft->tables[0]->hash->hash(&key, KEY_SCOPE_FULL, ft->k->key_order);

	return bucket_of(global_table(ft, &key, 0, h), h);
}

/* Lines that `bytes` of objects touch: a misaligned start touches one more on each side. */
static uint64_t lines_of(uint64_t bytes)
{
	return bytes / LINE_SIZE + 2;
}

void futex_tables_size(const struct kernel_design *k, const struct machine *m, uint64_t processes,
		       uint32_t max_threads, uint64_t *lines, uint64_t *buckets)
{
	uint32_t nglobal = k->global.per_node ? m->nodes : 1;
	uint64_t gbuckets = kernel_global_buckets(k, m->ncpus, nglobal);
	uint64_t pbuckets = kernel_private_buckets(k, max_threads, m->ncpus, (uint32_t)gbuckets);
	uint64_t phashes = bytes_mul(processes, k->private_hash.buckets < 0 ? 2 : 1);
	uint64_t n;

	*buckets = bytes_add(bytes_mul(nglobal, gbuckets), bytes_mul(phashes, pbuckets));
	n = bytes_mul(nglobal, lines_of(bytes_mul(gbuckets, k->bucket.size)));
	n = bytes_add(n, bytes_mul(phashes, bytes_add(lines_of(bytes_mul(pbuckets, k->bucket.size)),
						      lines_of(k->phash_header.size))));
	/* per CPU: an MCS queue node, and per process a futex_ref counter; the mm */
	n = bytes_add(n, m->ncpus);
	*lines = bytes_add(n, bytes_mul(processes, bytes_add(m->ncpus, lines_of(k->mm.size))));
}

uint64_t futex_tables_bytes(uint64_t buckets)
{
	/* the field lines and the occupancy count of each */
	return bytes_mul(buckets, BF_NFIELDS * sizeof(uint32_t) + sizeof(uint32_t));
}
