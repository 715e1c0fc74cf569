/* SPDX-License-Identifier: MIT */
/* Futex keys as the kernel builds them on x86_64 (64-bit layout since 5.6).
 *
 * A key is {ptr, word, offset}: ptr = the mm (private and mm-shared keys) or the
 * inode sequence (file-backed shared keys); word = the page-aligned user address
 * (or the page offset in the file); offset = address % 4096 with bit 0 set for
 * inode-based keys and bit 1 for mm-shared keys. A key is private when neither
 * bit is set. Before 5.6 the kernel laid out `word` before `ptr`, which changes
 * the words the global hash sees.
 */
#ifndef FUTEXSIM_FUTEX_KEY_H
#define FUTEXSIM_FUTEX_KEY_H

#include <stdbool.h>
#include <stdint.h>

#define FUTEX_PAGE_SIZE 4096u
#define FUT_OFF_INODE 1u    /* offset bit: key refers to an inode */
#define FUT_OFF_MMSHARED 2u /* offset bit: key refers to an mm, shared op */

struct futex_key {
	uint64_t ptr;
	uint64_t word;
	uint32_t offset;
};

/* Which words of the key a table hashes. */
enum key_scope {
	KEY_SCOPE_FULL,   /* global table: ptr and word, 4 u32 words, initval = offset */
	KEY_SCOPE_ADDRESS /* private hash: the mm is implied, word only (2 u32), initval = offset */
};

/* Memory order of ptr and word in the key (what jhash2 sees first). */
enum key_order {
	KEY_ORDER_PTR_FIRST,  /* 5.6 and later */
	KEY_ORDER_WORD_FIRST  /* before 5.6 */
};

static inline struct futex_key futex_key_private(uint64_t mm, uint64_t uaddr)
{
	return (struct futex_key){ mm, uaddr & ~(uint64_t)(FUTEX_PAGE_SIZE - 1),
				   (uint32_t)(uaddr % FUTEX_PAGE_SIZE) };
}

/* Shared futex in anonymous (process-private) memory: the kernel keys it by mm. */
static inline struct futex_key futex_key_mm_shared(uint64_t mm, uint64_t uaddr)
{
	return (struct futex_key){ mm, uaddr & ~(uint64_t)(FUTEX_PAGE_SIZE - 1),
				   (uint32_t)(uaddr % FUTEX_PAGE_SIZE) | FUT_OFF_MMSHARED };
}

/* Shared futex in a file mapping (shm, memfd, a mapped file): the kernel keys it
 * by the inode's i_seq and the page's index in the file (pgoff), the same in every
 * process. */
static inline struct futex_key futex_key_inode(uint64_t inode_seq, uint64_t file_offset)
{
	return (struct futex_key){ inode_seq, file_offset / FUTEX_PAGE_SIZE,
				   (uint32_t)(file_offset % FUTEX_PAGE_SIZE) | FUT_OFF_INODE };
}

static inline bool futex_key_is_private(const struct futex_key *k)
{
	return (k->offset & (FUT_OFF_INODE | FUT_OFF_MMSHARED)) == 0;
}

/* The u32 words a hash consumes, in memory order (little-endian halves), and the
 * initval; returns the number of words (2 or 4). */
static inline unsigned futex_key_words(const struct futex_key *k, enum key_scope scope,
				       enum key_order order, uint32_t words[4], uint32_t *initval)
{
	uint64_t first = order == KEY_ORDER_PTR_FIRST ? k->ptr : k->word;
	uint64_t second = order == KEY_ORDER_PTR_FIRST ? k->word : k->ptr;

	*initval = k->offset;
	if (scope == KEY_SCOPE_ADDRESS) {
		words[0] = (uint32_t)k->word;
		words[1] = (uint32_t)(k->word >> 32);
		return 2;
	}
	words[0] = (uint32_t)first;
	words[1] = (uint32_t)(first >> 32);
	words[2] = (uint32_t)second;
	words[3] = (uint32_t)(second >> 32);
	return 4;
}

#endif
