/* SPDX-License-Identifier: MIT */
/* Hash functions for futex tables: the primitives (lookup3, multiplicative hashes,
 * xxHash, CRCs, SipHash) written from their published algorithm descriptions, and
 * the table of named key hashes the simulator selects from YAML.
 *
 * Every function here is pure: no global mutable state, so tables and threads may
 * call them freely. Multi-byte input is decoded little-endian byte by byte, which
 * matches x86_64 and keeps results the same on any host and at any alignment.
 */
#include "models/hashfn.h"

#include <stdbool.h>
#include <string.h>
#include "sim/core/registry.h"

/* ---- Small helpers ---------------------------------------------------------- */

static inline uint32_t rotl32(uint32_t x, unsigned r)
{
	return (x << (r & 31)) | (x >> ((32 - r) & 31));
}

static inline uint64_t rotl64(uint64_t x, unsigned r)
{
	return (x << (r & 63)) | (x >> ((64 - r) & 63));
}

static inline uint32_t load_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t load_le64(const uint8_t *p)
{
	return (uint64_t)load_le32(p) | (uint64_t)load_le32(p + 4) << 32;
}

static inline void store_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* floor(log2(x)) for x >= 1; 0 for x == 0 so callers never shift by garbage. */
static inline unsigned log2_floor(uint32_t x)
{
	return x ? 31u - (unsigned)__builtin_clz(x) : 0;
}

/* ---- Bob Jenkins' lookup3 (hashword = the kernel's jhash2, hashlittle) ------ */

struct lookup3_state {
	uint32_t a, b, c;
};

/* The reversible mix applied to each full block (rotations 4, 6, 8, 16, 19, 4). */
static void lookup3_mix(struct lookup3_state *s)
{
	s->a -= s->c; s->a ^= rotl32(s->c, 4);  s->c += s->b;
	s->b -= s->a; s->b ^= rotl32(s->a, 6);  s->a += s->c;
	s->c -= s->b; s->c ^= rotl32(s->b, 8);  s->b += s->a;
	s->a -= s->c; s->a ^= rotl32(s->c, 16); s->c += s->b;
	s->b -= s->a; s->b ^= rotl32(s->a, 19); s->a += s->c;
	s->c -= s->b; s->c ^= rotl32(s->b, 4);  s->b += s->a;
}

/* The final avalanche after the last block (rotations 14, 11, 25, 16, 4, 14, 24). */
static void lookup3_final(struct lookup3_state *s)
{
	s->c ^= s->b; s->c -= rotl32(s->b, 14);
	s->a ^= s->c; s->a -= rotl32(s->c, 11);
	s->b ^= s->a; s->b -= rotl32(s->a, 25);
	s->c ^= s->b; s->c -= rotl32(s->b, 16);
	s->a ^= s->c; s->a -= rotl32(s->c, 4);
	s->b ^= s->a; s->b -= rotl32(s->a, 14);
	s->c ^= s->b; s->c -= rotl32(s->b, 24);
}

static struct lookup3_state lookup3_init(uint32_t seed)
{
	return (struct lookup3_state){ seed, seed, seed };
}

uint32_t jhash2(const uint32_t *k, uint32_t length, uint32_t initval)
{
	struct lookup3_state s = lookup3_init(0xdeadbeefu + (length << 2) + initval);

	for (; length > 3; length -= 3, k += 3) {
		s.a += k[0];
		s.b += k[1];
		s.c += k[2];
		lookup3_mix(&s);
	}
	if (length == 0) /* nothing left over: the last mix was the whole hash */
		return s.c;
	if (length == 3)
		s.c += k[2];
	if (length >= 2)
		s.b += k[1];
	s.a += k[0];
	lookup3_final(&s);
	return s.c;
}

/* Adds up to 12 tail bytes into a, b, c: byte i lands in word i / 4, lane i % 4. */
static void lookup3_add_tail(struct lookup3_state *s, const uint8_t *p, size_t n)
{
	uint8_t block[12] = { 0 };

	memcpy(block, p, n);
	s->a += load_le32(block);
	s->b += load_le32(block + 4);
	s->c += load_le32(block + 8);
}

uint32_t lookup3_hashlittle(const void *key, size_t length, uint32_t initval)
{
	const uint8_t *p = key;
	struct lookup3_state s = lookup3_init(0xdeadbeefu + (uint32_t)length + initval);

	for (; length > 12; length -= 12, p += 12) {
		s.a += load_le32(p);
		s.b += load_le32(p + 4);
		s.c += load_le32(p + 8);
		lookup3_mix(&s);
	}
	if (length == 0)
		return s.c;
	lookup3_add_tail(&s, p, length);
	lookup3_final(&s);
	return s.c;
}

/* ---- include/linux/hash.h multiplicative hashes ----------------------------- */

#define GOLDEN_RATIO_32_NEW 0x61C88647u
#define GOLDEN_RATIO_64_NEW UINT64_C(0x61C8864680B583EB)
#define GOLDEN_RATIO_32_OLD 0x9e370001u
#define GOLDEN_RATIO_64_OLD UINT64_C(0x9e37fffffffc0001)

/* The top `bits` bits of the product. bits == 0 selects no bits (0); bits above the
 * word width are clamped to it, so no shift is ever out of range. */
static uint32_t mult_hash_32(uint32_t v, uint32_t mult, unsigned bits)
{
	if (bits == 0)
		return 0;
	if (bits > 32)
		bits = 32;
	return (v * mult) >> (32 - bits);
}

static uint64_t mult_hash_64(uint64_t v, uint64_t mult, unsigned bits)
{
	if (bits == 0)
		return 0;
	if (bits > 64)
		bits = 64;
	return (v * mult) >> (64 - bits);
}

uint32_t hash_32_new(uint32_t v, unsigned bits)
{
	return mult_hash_32(v, GOLDEN_RATIO_32_NEW, bits);
}

uint32_t hash_32_old(uint32_t v, unsigned bits)
{
	return mult_hash_32(v, GOLDEN_RATIO_32_OLD, bits);
}

uint64_t hash_64_new(uint64_t v, unsigned bits)
{
	return mult_hash_64(v, GOLDEN_RATIO_64_NEW, bits);
}

uint64_t hash_64_old(uint64_t v, unsigned bits)
{
	return mult_hash_64(v, GOLDEN_RATIO_64_OLD, bits);
}

/* ---- Primes ------------------------------------------------------------------ */

/* Trial division by odd numbers up to sqrt(n): at most 32768 divisions for any
 * 32-bit n, and composites usually stop early. */
static bool is_prime(uint32_t n)
{
	if (n < 2)
		return false;
	if (n % 2 == 0)
		return n == 2;
	for (uint32_t d = 3; d <= n / d; d += 2)
		if (n % d == 0)
			return false;
	return true;
}

/* Returns 0 when there is no such prime (n < 2). */
uint32_t largest_prime_le(uint32_t n)
{
	if (n < 2)
		return 0;
	if (n == 2)
		return 2;
	for (uint32_t c = n % 2 ? n : n - 1; c >= 3; c -= 2)
		if (is_prime(c))
			return c;
	return 2;
}

/* ---- xxHash (XXH32 and XXH64, from Yann Collet's specification) ------------- */

#define XXH32_P1 0x9E3779B1u
#define XXH32_P2 0x85EBCA77u
#define XXH32_P3 0xC2B2AE3Du
#define XXH32_P4 0x27D4EB2Fu
#define XXH32_P5 0x165667B1u

static uint32_t xxh32_round(uint32_t acc, uint32_t lane)
{
	return rotl32(acc + lane * XXH32_P2, 13) * XXH32_P1;
}

/* Consumes the 16-byte stripes; returns the converged accumulator. */
static uint32_t xxh32_stripes(const uint8_t **pp, size_t *len, uint32_t seed)
{
	uint32_t v[4] = { seed + XXH32_P1 + XXH32_P2, seed + XXH32_P2, seed, seed - XXH32_P1 };
	const uint8_t *p = *pp;

	for (; *len >= 16; *len -= 16, p += 16)
		for (int i = 0; i < 4; i++)
			v[i] = xxh32_round(v[i], load_le32(p + 4 * i));
	*pp = p;
	return rotl32(v[0], 1) + rotl32(v[1], 7) + rotl32(v[2], 12) + rotl32(v[3], 18);
}

uint32_t xxh32(const void *data, size_t len, uint32_t seed)
{
	const uint8_t *p = data;
	const uint32_t total_len = (uint32_t)len; /* the spec adds the length mod 2^32 */
	uint32_t acc = len >= 16 ? xxh32_stripes(&p, &len, seed) : seed + XXH32_P5;

	acc += total_len;
	for (; len >= 4; len -= 4, p += 4)
		acc = rotl32(acc + load_le32(p) * XXH32_P3, 17) * XXH32_P4;
	for (; len > 0; len--, p++)
		acc = rotl32(acc + *p * XXH32_P5, 11) * XXH32_P1;
	acc ^= acc >> 15;
	acc *= XXH32_P2;
	acc ^= acc >> 13;
	acc *= XXH32_P3;
	acc ^= acc >> 16;
	return acc;
}

#define XXH64_P1 UINT64_C(0x9E3779B185EBCA87)
#define XXH64_P2 UINT64_C(0xC2B2AE3D27D4EB4F)
#define XXH64_P3 UINT64_C(0x165667B19E3779F9)
#define XXH64_P4 UINT64_C(0x85EBCA77C2B2AE63)
#define XXH64_P5 UINT64_C(0x27D4EB2F165667C5)

static uint64_t xxh64_round(uint64_t acc, uint64_t lane)
{
	return rotl64(acc + lane * XXH64_P2, 31) * XXH64_P1;
}

static uint64_t xxh64_merge(uint64_t acc, uint64_t v)
{
	return (acc ^ xxh64_round(0, v)) * XXH64_P1 + XXH64_P4;
}

/* Consumes the 32-byte stripes; returns the converged, merged accumulator. */
static uint64_t xxh64_stripes(const uint8_t **pp, size_t *len, uint64_t seed)
{
	uint64_t v[4] = { seed + XXH64_P1 + XXH64_P2, seed + XXH64_P2, seed, seed - XXH64_P1 };
	const uint8_t *p = *pp;
	uint64_t acc;

	for (; *len >= 32; *len -= 32, p += 32)
		for (int i = 0; i < 4; i++)
			v[i] = xxh64_round(v[i], load_le64(p + 8 * i));
	*pp = p;
	acc = rotl64(v[0], 1) + rotl64(v[1], 7) + rotl64(v[2], 12) + rotl64(v[3], 18);
	for (int i = 0; i < 4; i++)
		acc = xxh64_merge(acc, v[i]);
	return acc;
}

uint64_t xxh64(const void *data, size_t len, uint64_t seed)
{
	const uint8_t *p = data;
	const uint64_t total_len = len;
	uint64_t acc = len >= 32 ? xxh64_stripes(&p, &len, seed) : seed + XXH64_P5;

	acc += total_len;
	for (; len >= 8; len -= 8, p += 8) {
		acc ^= xxh64_round(0, load_le64(p));
		acc = rotl64(acc, 27) * XXH64_P1 + XXH64_P4;
	}
	if (len >= 4) {
		acc ^= (uint64_t)load_le32(p) * XXH64_P1;
		acc = rotl64(acc, 23) * XXH64_P2 + XXH64_P3;
		len -= 4;
		p += 4;
	}
	for (; len > 0; len--, p++) {
		acc ^= *p * XXH64_P5;
		acc = rotl64(acc, 11) * XXH64_P1;
	}
	acc ^= acc >> 33;
	acc *= XXH64_P2;
	acc ^= acc >> 29;
	acc *= XXH64_P3;
	acc ^= acc >> 32;
	return acc;
}

/* ---- CRC-32C and CRC-32 (reflected, one nibble per table step) -------------- */

/* Entry n = the CRC register after shifting nibble n through 4 reflected steps.
 * 16 entries keep the tables short enough to check by eye against the polynomial
 * (entry 8 is the polynomial itself) while costing only two lookups per byte. */
static const uint32_t crc32c_nibble[16] = {
	0x00000000, 0x105EC76F, 0x20BD8EDE, 0x30E349B1,
	0x417B1DBC, 0x5125DAD3, 0x61C69362, 0x7198540D,
	0x82F63B78, 0x92A8FC17, 0xA24BB5A6, 0xB21572C9,
	0xC38D26C4, 0xD3D3E1AB, 0xE330A81A, 0xF36E6F75,
};

static const uint32_t crc32_ieee_nibble[16] = {
	0x00000000, 0x1DB71064, 0x3B6E20C8, 0x26D930AC,
	0x76DC4190, 0x6B6B51F4, 0x4DB26158, 0x5005713C,
	0xEDB88320, 0xF00F9344, 0xD6D6A3E8, 0xCB61B38C,
	0x9B64C2B0, 0x86D3D2D4, 0xA00AE278, 0xBDBDF21C,
};

/* Reflected CRC: low nibble first, init ~0, final xor ~0. */
static uint32_t crc32_reflected(const uint32_t table[16], const void *data, size_t len)
{
	const uint8_t *p = data;
	uint32_t crc = ~0u;

	for (size_t i = 0; i < len; i++) {
		crc ^= p[i];
		crc = (crc >> 4) ^ table[crc & 15];
		crc = (crc >> 4) ^ table[crc & 15];
	}
	return ~crc;
}

uint32_t crc32c(const void *data, size_t len)
{
	return crc32_reflected(crc32c_nibble, data, len);
}

uint32_t crc32_ieee(const void *data, size_t len)
{
	return crc32_reflected(crc32_ieee_nibble, data, len);
}

/* ---- SipHash (Aumasson and Bernstein) ---------------------------------------- */

struct sip_state {
	uint64_t v0, v1, v2, v3;
};

static void sip_round(struct sip_state *s)
{
	s->v0 += s->v1; s->v1 = rotl64(s->v1, 13); s->v1 ^= s->v0; s->v0 = rotl64(s->v0, 32);
	s->v2 += s->v3; s->v3 = rotl64(s->v3, 16); s->v3 ^= s->v2;
	s->v0 += s->v3; s->v3 = rotl64(s->v3, 21); s->v3 ^= s->v0;
	s->v2 += s->v1; s->v1 = rotl64(s->v1, 17); s->v1 ^= s->v2; s->v2 = rotl64(s->v2, 32);
}

static void sip_absorb(struct sip_state *s, uint64_t m, unsigned c_rounds)
{
	s->v3 ^= m;
	for (unsigned i = 0; i < c_rounds; i++)
		sip_round(s);
	s->v0 ^= m;
}

/* SipHash-c-d: c rounds per 8-byte word, d finalization rounds. */
static uint64_t siphash_cd(const uint8_t key[16], const void *data, size_t len,
			   unsigned c_rounds, unsigned d_rounds)
{
	const uint64_t k0 = load_le64(key), k1 = load_le64(key + 8);
	struct sip_state s = { /* "somepseudorandomlygeneratedbytes" */
		k0 ^ UINT64_C(0x736f6d6570736575), k1 ^ UINT64_C(0x646f72616e646f6d),
		k0 ^ UINT64_C(0x6c7967656e657261), k1 ^ UINT64_C(0x7465646279746573),
	};
	const uint8_t *p = data;
	uint8_t tail[8] = { 0 };
	size_t n = len;

	for (; n >= 8; n -= 8, p += 8)
		sip_absorb(&s, load_le64(p), c_rounds);
	if (n) /* data may be NULL when len == 0 */
		memcpy(tail, p, n);
	/* Last word: the 0-7 leftover bytes, with the length mod 256 in the top byte. */
	sip_absorb(&s, load_le64(tail) | (uint64_t)len << 56, c_rounds);
	s.v2 ^= 0xff;
	for (unsigned i = 0; i < d_rounds; i++)
		sip_round(&s);
	return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}

uint64_t siphash_2_4(const uint8_t key[16], const void *data, size_t len)
{
	return siphash_cd(key, data, len, 2, 4);
}

uint64_t siphash_1_3(const uint8_t key[16], const void *data, size_t len)
{
	return siphash_cd(key, data, len, 1, 3);
}

/* On 64-bit the kernel trades HalfSipHash-1-3 for SipHash-1-3 (faster there) and
 * returns the 64-bit result as a u32, i.e. its low 32 bits. */
uint32_t hsiphash(const uint8_t key[16], const void *data, size_t len)
{
	return (uint32_t)siphash_1_3(key, data, len);
}

/* ---- Key hashes: what each named table entry computes from a futex key ------ */

/* [A] The kernel draws siphash keys at random at boot; we fix bytes 00..0f so runs
 * are reproducible. Spread does not depend on which key is used. */
static const uint8_t fixed_sip_key[16] = {
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
};

static uint32_t key_jhash2(const struct futex_key *k, enum key_scope scope,
			   enum key_order order)
{
	uint32_t words[4], initval;
	unsigned n = futex_key_words(k, scope, order, words, &initval);

	return jhash2(words, n, initval);
}

/* Our reading of the published column "jhash2 over only address+offset": the
 * address word's two halves and the offset as a third word, initval 0; the ptr
 * (mm or inode) is ignored whatever the scope. */
static uint32_t key_jhash2_addr_offs(const struct futex_key *k, enum key_scope scope,
				     enum key_order order)
{
	const uint32_t words[3] = { (uint32_t)k->word, (uint32_t)(k->word >> 32), k->offset };

	(void)scope;
	(void)order;
	return jhash2(words, 3, 0);
}

/* Early 2.6 futexes hashed address + mm + offset; the private scope drops the mm.
 * A sum ignores word order. Wraps mod 2^64. */
static uint64_t key_sum(const struct futex_key *k, enum key_scope scope)
{
	uint64_t x = k->word + k->offset;

	return scope == KEY_SCOPE_FULL ? x + k->ptr : x;
}

static uint32_t key_hash_long(const struct futex_key *k, enum key_scope scope,
			      enum key_order order)
{
	(void)order;
	return (uint32_t)hash_64_new(key_sum(k, scope), 32);
}

static uint32_t key_hash_long_old(const struct futex_key *k, enum key_scope scope,
				  enum key_order order)
{
	(void)order;
	return (uint32_t)hash_64_old(key_sum(k, scope), 32);
}

/* [A] hash_mod (2016, code not found): fold the key sum to 32 bits; the table
 * then takes it modulo the largest prime <= size. */
static uint32_t key_hash_mod(const struct futex_key *k, enum key_scope scope,
			     enum key_order order)
{
	uint64_t x = key_sum(k, scope);

	(void)order;
	return (uint32_t)(x ^ (x >> 32));
}

/* The byte string the byte-oriented hashes see: the key words as little-endian
 * bytes (8 or 16), then the offset as 4 little-endian bytes. */
struct key_bytes {
	uint8_t b[20];
	size_t len;
};

static struct key_bytes key_to_bytes(const struct futex_key *k, enum key_scope scope,
				     enum key_order order)
{
	struct key_bytes kb = { { 0 }, 0 };
	uint32_t words[4], initval;
	unsigned n = futex_key_words(k, scope, order, words, &initval);

	for (unsigned i = 0; i < n; i++, kb.len += 4)
		store_le32(kb.b + kb.len, words[i]);
	store_le32(kb.b + kb.len, k->offset);
	kb.len += 4;
	return kb;
}

/* [A] The kernel's xxhash() is xxh64 on 64-bit; seed 0, low 32 bits kept. */
static uint32_t key_xxhash(const struct futex_key *k, enum key_scope scope,
			   enum key_order order)
{
	struct key_bytes kb = key_to_bytes(k, scope, order);

	return (uint32_t)xxh64(kb.b, kb.len, 0);
}

static uint32_t key_crc32c(const struct futex_key *k, enum key_scope scope,
			   enum key_order order)
{
	struct key_bytes kb = key_to_bytes(k, scope, order);

	return crc32c(kb.b, kb.len);
}

static uint32_t key_crc32(const struct futex_key *k, enum key_scope scope,
			  enum key_order order)
{
	struct key_bytes kb = key_to_bytes(k, scope, order);

	return crc32_ieee(kb.b, kb.len);
}

static uint32_t key_siphash(const struct futex_key *k, enum key_scope scope,
			    enum key_order order)
{
	struct key_bytes kb = key_to_bytes(k, scope, order);

	return (uint32_t)siphash_2_4(fixed_sip_key, kb.b, kb.len);
}

static uint32_t key_hsiphash(const struct futex_key *k, enum key_scope scope,
			     enum key_order order)
{
	struct key_bytes kb = key_to_bytes(k, scope, order);

	return hsiphash(fixed_sip_key, kb.b, kb.len);
}

/* ---- Bucket and node selection ------------------------------------------------
 * Sizes are expected to be powers of two (hash_mod: any size >= 2). Another size
 * uses floor(log2(size)) bits, so the index still stays below it. Size 0 is a
 * caller error; it yields index 0 rather than undefined behaviour. */

/* Low bits pick the bucket, as the kernel's hash & (size - 1). */
static uint32_t index_low_bits(uint32_t h, uint32_t size)
{
	return size ? h & ((UINT32_C(1) << log2_floor(size)) - 1) : 0;
}

/* The bits above the bucket bits (the kernel's hash >> hashbits). */
static uint32_t node_high_bits(uint32_t h, uint32_t size)
{
	return h >> log2_floor(size);
}

/* hash_long: the top log2(size) bits of the 32-bit hash (= of the 64-bit product). */
static uint32_t index_top_bits(uint32_t h, uint32_t size)
{
	unsigned bits = log2_floor(size);

	return bits ? h >> (32 - bits) : 0;
}

/* What the top-bits index leaves: the low 32 - log2(size) bits. */
static uint32_t node_low_bits(uint32_t h, uint32_t size)
{
	unsigned bits = log2_floor(size);

	return bits ? h & ((UINT32_C(1) << (32 - bits)) - 1) : h;
}

static uint32_t index_mod_prime(uint32_t h, uint32_t size)
{
	return size >= 2 ? h % largest_prime_le(size) : 0;
}

static uint32_t node_div_prime(uint32_t h, uint32_t size)
{
	return size >= 2 ? h / largest_prime_le(size) : h;
}

/* ---- The table ------------------------------------------------------------------
 * cost_cycles are [A] assumptions for one hash of a 2-4 word key on a ~2013-2020
 * x86_64 core, to be calibrated (docs/model.md):
 *   jhash2 ~30: one or two 6-step mixes plus the 7-step final, ~1 cycle per op chain.
 *   hash_long ~5: one 64-bit multiply (3-4 cycles) and a shift.
 *   hash_mod ~30: a 32-bit division (20-30 cycles on Haswell-era cores).
 *   xxh64 ~25: 12-20 bytes through the short-input path, three multiplies each.
 *   crc32c ~10: the SSE4.2 crc32 instruction, 3-cycle latency per 8 bytes.
 *   crc32 ~30: table-driven, a dependent load per byte.
 *   siphash ~80: 2 rounds per word + 4 final rounds, ~8 cycles per round.
 *   hsiphash ~45: SipHash-1-3 on 64-bit, about half the rounds. */
static const struct hashfn hashfns[] = {
	{ "jhash2", "lookup3 hashword over the key words, initval = offset (the kernel's futex hash)",
	  key_jhash2, index_low_bits, node_high_bits, 30 },
	{ "jhash2_addr_offs", "jhash2 over {address lo, address hi, offset}, initval 0 [A]",
	  key_jhash2_addr_offs, index_low_bits, node_high_bits, 28 },
	{ "hash_long", "hash_64(word [+ ptr] + offset, 32), 4.7+ golden-ratio constant; top bits index",
	  key_hash_long, index_top_bits, node_low_bits, 5 },
	{ "hash_long_old", "hash_64(word [+ ptr] + offset, 32), pre-4.7 bit-sparse constant; top bits index",
	  key_hash_long_old, index_top_bits, node_low_bits, 5 },
	{ "hash_mod", "key sum folded to 32 bits, modulo the largest prime <= size (2016 proposal) [A]",
	  key_hash_mod, index_mod_prime, node_div_prime, 30 },
	{ "xxhash", "xxh64, seed 0, over key bytes + offset, low 32 bits",
	  key_xxhash, index_low_bits, node_high_bits, 25 },
	{ "crc32c", "CRC-32C (Castagnoli) over key bytes + offset",
	  key_crc32c, index_low_bits, node_high_bits, 10 },
	{ "crc32", "CRC-32 (IEEE 802.3, zlib) over key bytes + offset",
	  key_crc32, index_low_bits, node_high_bits, 30 },
	{ "siphash", "SipHash-2-4, fixed key 00..0f [A], over key bytes + offset, low 32 bits",
	  key_siphash, index_low_bits, node_high_bits, 80 },
	{ "hsiphash", "the kernel's 64-bit hsiphash (SipHash-1-3, low 32 bits), fixed key 00..0f [A]",
	  key_hsiphash, index_low_bits, node_high_bits, 45 },
};

#define HASHFN_COUNT (sizeof(hashfns) / sizeof(hashfns[0]))
_Static_assert(HASHFN_COUNT <= HASHFN_MAX, "raise HASHFN_MAX");

static const struct registry registry = REGISTRY(hashfns, HASHFN_COUNT, struct hashfn, name);

const struct hashfn *hashfn_find(const char *name)
{
	return registry_find(&registry, name);
}

const struct hashfn *hashfn_at(size_t i)
{
	return registry_at(&registry, i);
}

const char *const *hashfn_names(const char *out[HASHFN_MAX + 1])
{
	return registry_names(&registry, out);
}
