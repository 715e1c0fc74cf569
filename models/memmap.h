/* SPDX-License-Identifier: MIT */
/* The simulated address space: where kernel and user objects live, which node's
 * memory backs each address, and which cache line (models/coherence.h) each
 * object's fields fall on.
 *
 * Objects are allocated by bump allocators: kernel memory per node (kmalloc_node),
 * kernel memory interleaved page by page over the nodes (vmalloc'd tables with
 * hashdist), and user memory (first touched on a configurable node). Registering
 * a field at an address returns the id of the line holding it, creating the line
 * on first use, so objects that share a line share its coherence state: this is
 * how packed buckets and false sharing arise. A new line is paired with the
 * other line of its 128-byte pair, when that one exists, for the coherence
 * model's adjacent-line prefetcher (coh_pair_lines).
 *
 * Each line keeps a label of what lives on it (object, element range, fields)
 * for reports; labels are built at setup, never on the simulator's hot path.
 */
#ifndef FUTEXSIM_MEMMAP_H
#define FUTEXSIM_MEMMAP_H

#include <stddef.h>
#include <stdint.h>

#include "models/coherence.h"
#include "models/machine.h"

#define LINE_SIZE 64u
#define MEMMAP_NONE UINT32_MAX
#define MEMMAP_MAX_FIELDS 16u
/* glibc malloc in user memory: a 16-byte chunk header before the pointer it
 * returns, chunks 16-byte aligned, 32 bytes at least (x86-64 glibc) */
#define MALLOC_HEADER 16u
#define MALLOC_ALIGN 16u
#define MALLOC_MIN_CHUNK 32u

/* A kind of object placed in memory: "global hash node 0", element "bucket". */
struct mem_object {
	const char *name;         /* owned */
	const char *element;      /* static string: what an index counts ("bucket", "cpu"); NULL
				     for a single object whose name says which ("mm of process 0") */
	const char *const *fields;/* static NULL-terminated field names, bit i = fields[i] */
};

/* What lives on one line: elements first..last of one object, which fields. */
struct line_label {
	uint32_t object;
	uint32_t first, last;
	uint16_t fields;    /* bitmask over the object's field names */
	uint8_t mixed;      /* several objects share the line; only the first is named */
};

enum mem_region { MEM_KERNEL_NODE, MEM_KERNEL_INTERLEAVED, MEM_USER };

struct memmap {
	struct coherence *coh;
	uint32_t nodes;
	uint64_t user_base;
	uint64_t next_kernel[MACHINE_MAX_NODES]; /* bump pointers per node */
	uint64_t next_interleaved;
	uint64_t next_user[MACHINE_MAX_NODES];   /* user memory first touched on each node */

	uint32_t nobjects, objects_cap;
	struct mem_object *objects;

	struct line_label *labels;   /* per line id */
	uint32_t labels_cap;

	/* open-addressing map from line address to line id (setup only) */
	uint64_t *map_keys;
	uint32_t *map_vals;
	size_t map_cap, map_len;
	/* the line of the last lookup (an array's elements come in address order, 16
	 * futex words to a line): no probe of the map for the next element */
	uint64_t last_key;
	uint32_t last_line;      /* MEMMAP_NONE before the first */
};

/* `user_base` places the user heap (randomised per seed like ASLR); must be page
 * aligned. User memory first touched on node n lives in its own 64 GiB window. */
int memmap_init(struct memmap *mm, struct coherence *coh, uint32_t nodes, uint64_t user_base);
void memmap_free(struct memmap *mm);

/* `v` rounded up to a multiple of `align`, a power of two. */
static inline uint64_t memmap_align_up(uint64_t v, uint64_t align)
{
	return (v + align - 1) & ~(align - 1);
}

/* Allocates size bytes aligned to `align` (a power of two); returns the address. */
uint64_t memmap_alloc(struct memmap *mm, enum mem_region region, uint32_t node, uint64_t size,
		      uint64_t align);

/* Address of the struct page describing the user page holding `uaddr` (the
 * vmemmap array; backed by the user memory's node). */
uint64_t memmap_struct_page(uint64_t uaddr);

/* The node whose DRAM backs `addr`. */
uint32_t memmap_home_node(const struct memmap *mm, uint64_t addr);

/* Declares a kind of object for labels; returns its id (MEMMAP_NONE on OOM). */
uint32_t memmap_object(struct memmap *mm, const char *name, const char *element,
		       const char *const *fields);

/* The line holding field `field` (index into the object's field names, or -1
 * for none) of element `index` of `object`, at `addr`; created on first use.
 * Returns MEMMAP_NONE when out of memory. */
uint32_t memmap_line(struct memmap *mm, uint64_t addr, uint32_t object, uint32_t index, int field);

/* Bytes the map takes for `nlines` lines: a label each, and the address map
 * (kept under 3/4 full), at the capacity they double to. */
uint64_t memmap_bytes(uint64_t nlines);

/* "global hash node 0 bucket 17-18 (waiters,lock)" into buf (len > 0; cut to it,
 * terminated); returns buf. */
const char *memmap_describe(const struct memmap *mm, uint32_t line, char *buf, size_t len);
/* The names of the line's object's fields that live on it ("waiters,lock"), into buf. */
const char *memmap_fields(const struct memmap *mm, uint32_t line, char *buf, size_t len);

#endif
