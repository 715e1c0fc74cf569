/* SPDX-License-Identifier: MIT */
/* Hash functions a futex table can use, selected by name from YAML.
 *
 * A table hashes a key (models/futex_key.h) to a 32-bit value with `hash`, then
 * maps it to a bucket with `index` and, for per-node tables, takes the node from
 * `node_part`. Keeping the split per function lets each follow its own rule:
 * jhash2 masks the low bits (bucket = h & (size - 1)) and leaves the bits above
 * for the node, as the kernel does; the multiplicative hash_long takes the top
 * bits of the product; hash_mod takes h modulo the largest prime <= size.
 *
 * The primitives are exported so tests can check them against published vectors.
 * `cost_cycles` is the default cost of one hash in the futex path; kernel presets
 * may override it (an assumption until calibrated: hash_costs in docs/kernel.md).
 */
#ifndef FUTEXSIM_HASHFN_H
#define FUTEXSIM_HASHFN_H

#include <stddef.h>
#include <stdint.h>

#include "models/futex_key.h"

struct hashfn {
	const char *name;        /* as written in YAML, e.g. "jhash2" */
	const char *description; /* one line: what it is and where it comes from */
	uint32_t (*hash)(const struct futex_key *k, enum key_scope scope, enum key_order order);
	uint32_t (*index)(uint32_t h, uint32_t size);     /* bucket in a table of `size` */
	uint32_t (*node_part)(uint32_t h, uint32_t size); /* bits left for choosing a node */
	uint32_t cost_cycles;    /* default cost of one hash, in cycles [A] */
};

/* Room for the names of every function of the table and a NULL (checked where
 * the table is defined). */
#define HASHFN_MAX 16u
/* The function called `name`, or NULL. */
const struct hashfn *hashfn_find(const char *name);
/* The i-th function of the table, or NULL past its end. */
const struct hashfn *hashfn_at(size_t i);
/* The names of every function, in table order, NULL-terminated, into out (for
 * YAML enums, messages and suggestions); returns out. */
const char *const *hashfn_names(const char *out[HASHFN_MAX + 1]);

/* Bob Jenkins' lookup3 hashword(), which the kernel calls jhash2. */
uint32_t jhash2(const uint32_t *k, uint32_t length, uint32_t initval);
/* lookup3 hashlittle() over bytes (the kernel's jhash() on little-endian). */
uint32_t lookup3_hashlittle(const void *key, size_t length, uint32_t initval);

/* include/linux/hash.h multiplicative hashes: since 4.7 (GOLDEN_RATIO_32/64) and
 * before 4.7 (the bit-sparse 0x9e370001 / 0x9e37fffffffc0001). bits in 1..32 / 1..64. */
uint32_t hash_32_new(uint32_t v, unsigned bits);
uint32_t hash_32_old(uint32_t v, unsigned bits);
uint64_t hash_64_new(uint64_t v, unsigned bits);
uint64_t hash_64_old(uint64_t v, unsigned bits);

/* The largest prime <= n (n >= 2). */
uint32_t largest_prime_le(uint32_t n);

/* Yann Collet's xxHash (XXH32, XXH64), seeded; input bytes read little-endian. */
uint32_t xxh32(const void *data, size_t len, uint32_t seed);
uint64_t xxh64(const void *data, size_t len, uint64_t seed);

/* CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), init ~0, final xor ~0:
 * the standard CRC-32C ("123456789" -> 0xE3069283). The kernel's crc32c(~0, p, n)
 * does not invert its result, so it returns ~crc32c(p, n). */
uint32_t crc32c(const void *data, size_t len);
/* CRC-32 IEEE 802.3 (reflected polynomial 0xEDB88320), init ~0, final xor ~0:
 * zlib's crc32(0, p, n) ("123456789" -> 0xCBF43926). */
uint32_t crc32_ieee(const void *data, size_t len);

/* SipHash-c-d with a 128-bit key given as 16 bytes (two little-endian u64, as the
 * kernel's siphash_key_t holds them on x86_64); 64-bit output. */
uint64_t siphash_2_4(const uint8_t key[16], const void *data, size_t len);
uint64_t siphash_1_3(const uint8_t key[16], const void *data, size_t len);
/* The kernel's hsiphash() on 64-bit machines: SipHash-1-3 with 64-bit state and a
 * 128-bit key, truncated to the low 32 bits (HalfSipHash-1-3 is its 32-bit form). */
uint32_t hsiphash(const uint8_t key[16], const void *data, size_t len);

#endif
