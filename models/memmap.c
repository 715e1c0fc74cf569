/* SPDX-License-Identifier: MIT */
#include "models/memmap.h"

#include <stdlib.h>
#include <string.h>

#include "sim/core/bytes.h"

/* x86_64 layout, for plausible addresses (bits the hashes see) and home nodes:
 * the direct map with a 64 GiB window per node, the vmalloc area, user heap. */
#define KERNEL_DIRECT_BASE UINT64_C(0xffff888000000000)
#define KERNEL_NODE_SHIFT 36
#define KERNEL_VMALLOC_BASE UINT64_C(0xffffc90000000000)
#define KERNEL_VMEMMAP_BASE UINT64_C(0xffffea0000000000)
#define KERNEL_VMEMMAP_END (KERNEL_VMEMMAP_BASE + (UINT64_C(1) << 42)) /* covers 47-bit user space */
#define STRUCT_PAGE_SIZE 64u
#define PAGE_SHIFT 12
#define USER_NODE_SHIFT 36 /* 64 GiB of user address space per node */

int memmap_init(struct memmap *mm, struct coherence *coh, uint32_t nodes, uint64_t user_base)
{
	memset(mm, 0, sizeof(*mm));
	if (nodes == 0 || nodes > MACHINE_MAX_NODES)
		return -1;
	mm->coh = coh;
	mm->nodes = nodes;
	for (uint32_t n = 0; n < nodes; n++)
		mm->next_kernel[n] = KERNEL_DIRECT_BASE + ((uint64_t)n << KERNEL_NODE_SHIFT);
	mm->next_interleaved = KERNEL_VMALLOC_BASE;
	mm->user_base = user_base;
	for (uint32_t n = 0; n < nodes; n++)
		mm->next_user[n] = user_base + ((uint64_t)n << USER_NODE_SHIFT);
	mm->last_line = MEMMAP_NONE;
	mm->map_cap = 1024;
	mm->map_keys = malloc(mm->map_cap * sizeof(*mm->map_keys));
	mm->map_vals = malloc(mm->map_cap * sizeof(*mm->map_vals));
	if (!mm->map_keys || !mm->map_vals) {
		memmap_free(mm);
		return -1;
	}
	memset(mm->map_vals, 0xff, mm->map_cap * sizeof(*mm->map_vals));
	return 0;
}

void memmap_free(struct memmap *mm)
{
	for (uint32_t i = 0; i < mm->nobjects; i++)
		free((char *)mm->objects[i].name);
	free(mm->objects);
	free(mm->labels);
	free(mm->map_keys);
	free(mm->map_vals);
	memset(mm, 0, sizeof(*mm));
}

uint64_t memmap_alloc(struct memmap *mm, enum mem_region region, uint32_t node, uint64_t size,
		      uint64_t align)
{
	uint64_t *next = region == MEM_KERNEL_NODE	  ? &mm->next_kernel[node % mm->nodes]
			 : region == MEM_KERNEL_INTERLEAVED ? &mm->next_interleaved
							    : &mm->next_user[node % mm->nodes];
	uint64_t addr = memmap_align_up(*next, align ? align : 1);

	*next = addr + size;
	return addr;
}

uint64_t memmap_struct_page(uint64_t uaddr)
{
	return KERNEL_VMEMMAP_BASE + ((uaddr & ((UINT64_C(1) << 47) - 1)) >> PAGE_SHIFT) * STRUCT_PAGE_SIZE;
}

static uint32_t user_home_node(const struct memmap *mm, uint64_t uaddr)
{
	if (uaddr < mm->user_base)
		return 0;
	return (uint32_t)((uaddr - mm->user_base) >> USER_NODE_SHIFT) % mm->nodes;
}

uint32_t memmap_home_node(const struct memmap *mm, uint64_t addr)
{
	/* a struct page lives with the page it describes */
	if (addr >= KERNEL_VMEMMAP_BASE && addr < KERNEL_VMEMMAP_END)
		return user_home_node(mm, ((addr - KERNEL_VMEMMAP_BASE) / STRUCT_PAGE_SIZE) << PAGE_SHIFT);
	if (addr >= KERNEL_VMALLOC_BASE)
		return (uint32_t)((addr >> PAGE_SHIFT) % mm->nodes);
	if (addr >= KERNEL_DIRECT_BASE)
		return (uint32_t)((addr - KERNEL_DIRECT_BASE) >> KERNEL_NODE_SHIFT) % mm->nodes;
	return user_home_node(mm, addr);
}

uint32_t memmap_object(struct memmap *mm, const char *name, const char *element,
		       const char *const *fields)
{
	char *copy;

	if (mm->nobjects == mm->objects_cap) {
		uint32_t cap = mm->objects_cap ? mm->objects_cap * 2 : 16;
		struct mem_object *o = realloc(mm->objects, cap * sizeof(*o));

		if (!o)
			return MEMMAP_NONE;
		mm->objects = o;
		mm->objects_cap = cap;
	}
	copy = strdup(name);
	if (!copy)
		return MEMMAP_NONE;
	mm->objects[mm->nobjects] = (struct mem_object){ copy, element, fields };
	return mm->nobjects++;
}

static size_t slot_of(uint64_t key, size_t cap)
{
	/* Fibonacci hashing of the line number; cap is a power of two */
	return (size_t)(((key >> 6) * UINT64_C(0x9E3779B97F4A7C15)) >> 32) & (cap - 1);
}

/* The line at `key`, or MEMMAP_NONE; *slot: where it is, or the free slot it would take. */
static uint32_t map_find(const struct memmap *mm, uint64_t key, size_t *slot)
{
	size_t s;

	for (s = slot_of(key, mm->map_cap); mm->map_vals[s] != MEMMAP_NONE; s = (s + 1) & (mm->map_cap - 1))
		if (mm->map_keys[s] == key)
			break;
	*slot = s;
	return mm->map_vals[s];
}

static int map_grow(struct memmap *mm)
{
	size_t cap = mm->map_cap * 2;
	uint64_t *keys = malloc(cap * sizeof(*keys));
	uint32_t *vals = malloc(cap * sizeof(*vals));

	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -1;
	}
	memset(vals, 0xff, cap * sizeof(*vals));
	for (size_t i = 0; i < mm->map_cap; i++) {
		size_t s;

		if (mm->map_vals[i] == MEMMAP_NONE)
			continue;
		for (s = slot_of(mm->map_keys[i], cap); vals[s] != MEMMAP_NONE; s = (s + 1) & (cap - 1))
			;
		keys[s] = mm->map_keys[i];
		vals[s] = mm->map_vals[i];
	}
	free(mm->map_keys);
	free(mm->map_vals);
	mm->map_keys = keys;
	mm->map_vals = vals;
	mm->map_cap = cap;
	return 0;
}

static int ensure_labels(struct memmap *mm, uint32_t line)
{
	if (line < mm->labels_cap)
		return 0;
	uint32_t cap = mm->labels_cap ? mm->labels_cap : 1024;
	while (cap <= line)
		cap *= 2;
	struct line_label *l = realloc(mm->labels, cap * sizeof(*l));
	if (!l)
		return -1;
	mm->labels = l;
	mm->labels_cap = cap;
	return 0;
}

uint32_t memmap_line(struct memmap *mm, uint64_t addr, uint32_t object, uint32_t index, int field)
{
	uint64_t key = addr & ~(uint64_t)(LINE_SIZE - 1);
	uint16_t bit = field >= 0 && field < (int)MEMMAP_MAX_FIELDS ? (uint16_t)(1u << field) : 0;
	uint32_t line = mm->last_line != MEMMAP_NONE && mm->last_key == key ? mm->last_line : MEMMAP_NONE;
	size_t s = 0;

	if (line == MEMMAP_NONE) {
		if ((mm->map_len + 1) * 4 > mm->map_cap * 3 && map_grow(mm) < 0)
			return MEMMAP_NONE;
		line = map_find(mm, key, &s);
	}
	if (line != MEMMAP_NONE) {
		struct line_label *l = &mm->labels[line];

		if (l->object != object) {
			l->mixed = 1;
		} else {
			l->first = index < l->first ? index : l->first;
			l->last = index > l->last ? index : l->last;
			l->fields |= bit;
		}
	} else {
		line = coh_add_line(mm->coh, key, memmap_home_node(mm, key));
		if (line == COH_NONE || ensure_labels(mm, line) < 0)
			return MEMMAP_NONE;
		mm->labels[line] = (struct line_label){ object, index, index, bit, 0 };
		mm->map_keys[s] = key;
		mm->map_vals[s] = line;
		mm->map_len++;
		/* the other line of its 128-byte pair, if simulated, for the prefetcher */
		if (mm->coh->m->adjacent_line_prefetch) {
			size_t other_slot;
			uint32_t other = map_find(mm, key ^ LINE_SIZE, &other_slot);

			if (other != MEMMAP_NONE)
				coh_pair_lines(mm->coh, line, other);
		}
	}
	mm->last_key = key;
	mm->last_line = line;
	return line;
}

/* Text built by appending, cut to the buffer as snprintf would (always
 * terminated): the result file describes every line that moved, hundreds of
 * thousands on a large machine, where snprintf took a fifth of a short run. */
struct text {
	char *buf;
	size_t len, n; /* capacity (> 0), characters written */
};

static void put_chars(struct text *t, const char *s, size_t k)
{
	if (t->n + 1 >= t->len)
		return;
	if (k > t->len - 1 - t->n)
		k = t->len - 1 - t->n;
	memcpy(t->buf + t->n, s, k);
	t->n += k;
	t->buf[t->n] = '\0';
}

static void put_str(struct text *t, const char *s)
{
	put_chars(t, s, strlen(s));
}

static void put_u32(struct text *t, uint32_t v)
{
	char d[10];
	size_t k = sizeof(d);

	do
		d[--k] = (char)('0' + v % 10);
	while (v /= 10);
	put_chars(t, d + k, sizeof(d) - k);
}

/* The object's field names marked in `fields`, comma-separated, the first after `sep`. */
static void put_fields(struct text *t, const struct mem_object *o, uint16_t fields, const char *sep)
{
	for (unsigned i = 0; o->fields && o->fields[i] && i < MEMMAP_MAX_FIELDS; i++) {
		if (!(fields & (1u << i)))
			continue;
		put_str(t, sep);
		put_str(t, o->fields[i]);
		sep = ",";
	}
}

const char *memmap_describe(const struct memmap *mm, uint32_t line, char *buf, size_t len)
{
	const struct line_label *l = &mm->labels[line];
	const struct mem_object *o = &mm->objects[l->object];
	struct text t = { buf, len, 0 };

	buf[0] = '\0';
	put_str(&t, o->name);
	if (o->element) { /* else a single object: its name says which */
		put_str(&t, " ");
		put_str(&t, o->element);
		put_str(&t, " ");
		put_u32(&t, l->first);
		if (l->first != l->last) {
			put_str(&t, "-");
			put_u32(&t, l->last);
		}
	}
	if (l->fields && o->fields) {
		put_fields(&t, o, l->fields, " (");
		put_str(&t, ")");
	}
	if (l->mixed)
		put_str(&t, " +other objects");
	return buf;
}

const char *memmap_fields(const struct memmap *mm, uint32_t line, char *buf, size_t len)
{
	const struct line_label *l = &mm->labels[line];
	struct text t = { buf, len, 0 };

	buf[0] = '\0';
	put_fields(&t, &mm->objects[l->object], l->fields, "");
	return buf;
}

uint64_t memmap_bytes(uint64_t nlines)
{
	uint64_t labels = bytes_mul(bytes_doubled(nlines, 1024), sizeof(struct line_label));

	return bytes_add(labels, bytes_mul(bytes_doubled(bytes_mul(nlines, 2), 1024), sizeof(uint64_t) + sizeof(uint32_t)));
}
