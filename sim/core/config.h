/* SPDX-License-Identifier: MIT */
/* Typed, checked reading of YAML trees (sim/core/yamltree.h) into model parameters.
 *
 * Every reader takes a node, a name for messages and bounds, and either stores a
 * value or fails with "FILE:LINE:COL: NAME: what is wrong (what was expected)".
 * cfg_get_* read an optional member of a map: when the key is absent the
 * documented default is stored, and, while the map's doc records defaults
 * (yt_doc_record_defaults), also written into the map as `key: default` (in a
 * form these readers read back as the same value), so a resolved scenario
 * shows every value a run used. cfg_check_keys rejects unknown keys and suggests
 * the nearest known one.
 *
 * Units: durations are integer picoseconds and accept ps, ns, us (or µs), ms, s
 * (decimal fractions allowed as long as the result is a whole number of ps:
 * "1.5ns", "0.25us"; spaces between number and unit allowed: "10 ns"). A bare 0
 * needs no unit; any other bare number is an error. Costs also accept
 * "N cycles"/"N cycle" (decimal, at most 3 fractional digits, kept in
 * thousandths of a cycle) and are turned into picoseconds with the machine's
 * frequency by fs_cost_ps. Exponents ("1e3ns"), signs, "inf"/"nan" are refused;
 * values that do not fit in 64 bits fail instead of wrapping.
 *
 * Quoted scalars are strings: every reader of numbers, booleans, durations,
 * costs, frequencies and fixed3 refuses them (`threads: "28"` fails with
 * "expected an integer, got a string ('28' is quoted; remove the quotes)"), so
 * a value means the same whether it came from a file, a --set or an emitted
 * resolved scenario. Enums and strings accept quoted and plain scalars.
 * Empty plain values (`threads:`) fail with "no value".
 */
#ifndef FUTEXSIM_CONFIG_H
#define FUTEXSIM_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/core/error.h"
#include "sim/core/yamltree.h"

#define PS_PER_NS 1000ull
#define PS_PER_US 1000000ull
#define PS_PER_MS 1000000000ull
#define PS_PER_S 1000000000000ull

enum fs_cost_unit { FS_COST_PS, FS_COST_MILLICYCLES };

struct fs_cost {
	uint64_t amount;        /* picoseconds or thousandths of a cycle */
	enum fs_cost_unit unit;
};

/* A cost in picoseconds at `freq_khz` (rounded to nearest, half up): for cycles,
 * millicycles * 1e6 / freq_khz (a cycle is 1e9 / freq_khz ps). Saturates at
 * UINT64_MAX, which is also the result for a cycle cost at freq_khz 0. */
uint64_t fs_cost_ps(struct fs_cost c, uint64_t freq_khz);
static inline struct fs_cost fs_cost_of_ps(uint64_t ps) { return (struct fs_cost){ ps, FS_COST_PS }; }
static inline struct fs_cost fs_cost_of_cycles(uint64_t cycles)
{
	/* Saturates like fs_cost_ps instead of wrapping. */
	return (struct fs_cost){ cycles > UINT64_MAX / 1000u ? UINT64_MAX : cycles * 1000u,
				 FS_COST_MILLICYCLES };
}

/* Fails unless `n` is of `kind`: "FILE:LINE:COL: WHAT: expected a map, got a sequence". */
int cfg_expect(const struct yt_node *n, enum yt_kind kind, const char *what, struct fs_error *e);

/* "a, b, c" from `names` (NULL-terminated) into `buf`, ending in "..." when cut
 * to fit; returns `buf`. For the lists of valid names in messages. */
const char *cfg_list_names(char *buf, size_t size, const char *const names[]);

/* Fails on the first key of `map` not in `known` (NULL-terminated), at the key:
 * "FILE:LINE:COL: unknown key 'treads' in WHAT (did you mean 'threads'?)", or,
 * when no known key is close, "... (expected one of: a, b, c)". */
int cfg_check_keys(const struct yt_node *map, const char *what, const char *const known[],
		   struct fs_error *e);

/* The candidate closest to `word` by edit distance (Levenshtein, ignoring ASCII
 * case; the first one on ties) when it is close enough to be a plausible typo
 * (distance <= max(2, strlen(word)/3)), else NULL. */
const char *cfg_nearest(const char *word, const char *const candidates[]);

/* Scalar parsers. Integers are decimal (or 0x hex), optionally with '_' between
 * digits ("1_000"), no sign; a decimal with a leading zero ("010") is refused
 * because YAML 1.1 reads it as octal. Range errors state the range. Booleans are
 * true/false (yes/no/on/off accepted), case-insensitive; fixed3 is a decimal with
 * at most three fractional digits stored in thousandths ("1.3" -> 1300). */
int cfg_parse_u64(const struct yt_node *n, const char *what, uint64_t min, uint64_t max,
		  uint64_t *out, struct fs_error *e);
int cfg_parse_bool(const struct yt_node *n, const char *what, bool *out, struct fs_error *e);
int cfg_parse_fixed3(const struct yt_node *n, const char *what, uint64_t min_milli,
		     uint64_t max_milli, uint64_t *out_milli, struct fs_error *e);
int cfg_parse_duration(const struct yt_node *n, const char *what, uint64_t min_ps, uint64_t max_ps,
		       uint64_t *out_ps, struct fs_error *e);
int cfg_parse_cost(const struct yt_node *n, const char *what, struct fs_cost *out, struct fs_error *e);
/* A memory size in bytes: an integer and a unit, "4GiB", "512MiB", "100MB", "64 kB"
 * (B, kB, MB, GB, TB decimal; KiB, MiB, GiB, TiB binary); no fractions, no bare numbers. */
int cfg_parse_size(const struct yt_node *n, const char *what, uint64_t min, uint64_t max, uint64_t *out,
		   struct fs_error *e);
/* "2.0GHz", "2000MHz", "2000000kHz" -> kHz. */
int cfg_parse_frequency(const struct yt_node *n, const char *what, uint64_t *out_khz,
			struct fs_error *e);
/* One of `names` (NULL-terminated, matched exactly); stores its index. Unknown
 * names fail with the nearest suggestion and the list of valid names:
 * "FILE:LINE:COL: unknown WHAT 'x' (did you mean 'y'?; one of: a, b, c)". */
int cfg_parse_enum(const struct yt_node *n, const char *what, const char *const names[], int *out,
		   struct fs_error *e);
/* Any scalar, as a string owned by the tree's doc. */
int cfg_parse_string(const struct yt_node *n, const char *what, const char **out, struct fs_error *e);

/* Optional members of a map: absent -> default stored, 0 returned. The member's
 * key is used as WHAT in messages. `map` may be NULL (everything absent); a
 * `map` that is not a map fails. */
int cfg_get_u64(const struct yt_node *map, const char *key, uint64_t dflt, uint64_t min,
		uint64_t max, uint64_t *out, struct fs_error *e);
int cfg_get_u32(const struct yt_node *map, const char *key, uint32_t dflt, uint32_t min,
		uint32_t max, uint32_t *out, struct fs_error *e);
int cfg_get_bool(const struct yt_node *map, const char *key, bool dflt, bool *out, struct fs_error *e);
int cfg_get_fixed3(const struct yt_node *map, const char *key, uint64_t dflt_milli, uint64_t min_milli,
		   uint64_t max_milli, uint64_t *out_milli, struct fs_error *e);
int cfg_get_duration(const struct yt_node *map, const char *key, uint64_t dflt_ps, uint64_t min_ps,
		     uint64_t max_ps, uint64_t *out_ps, struct fs_error *e);
int cfg_get_cost(const struct yt_node *map, const char *key, struct fs_cost dflt, struct fs_cost *out,
		 struct fs_error *e);
int cfg_get_size(const struct yt_node *map, const char *key, uint64_t dflt, uint64_t min, uint64_t max,
		 uint64_t *out, struct fs_error *e);
int cfg_get_string(const struct yt_node *map, const char *key, const char *dflt, const char **out,
		   struct fs_error *e);
int cfg_get_enum(const struct yt_node *map, const char *key, const char *const names[], int dflt,
		 int *out, struct fs_error *e);

/* Fails with "FILE:LINE:COL: missing key 'KEY' in WHAT" unless `map` has `key`. */
int cfg_require(const struct yt_node *map, const char *key, const char *what, struct fs_error *e);

#endif
