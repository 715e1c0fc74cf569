/* SPDX-License-Identifier: MIT */
/* Typed reading of YAML trees (see sim/core/config.h).
 *
 * Numbers are parsed by hand, not with strtoull/strtod: those accept signs,
 * spaces, exponents, "inf" and locale-dependent separators, round silently and
 * report overflow through errno. Here every accepted spelling is listed below
 * and every value is exact or rejected.
 */
#include "sim/core/config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Room for a user's text quoted in a message. */
#define SHOWN_BYTES 96
/* Candidates longer than this are never suggested (no key or name is). */
#define NEAREST_MAX_LEN 63

/* ---- messages ------------------------------------------------------------- */

static const char *what_or_default(const char *what)
{
	return what ? what : "value";
}

static int fail_node(const struct yt_node *n, const char *what, struct fs_error *e,
		     const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* "FILE:LINE:COL: WHAT: ..." at the node's mark. */
static int fail_node(const struct yt_node *n, const char *what, struct fs_error *e,
		     const char *fmt, ...)
{
	char why[800];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return fs_fail_at(e, n ? &n->mark : NULL, "%s: %s", what_or_default(what), why);
}

const char *cfg_list_names(char *buf, size_t size, const char *const names[])
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; names && names[i]; i++) {
		const int n = snprintf(buf + used, size - used, "%s%s", i ? ", " : "", names[i]);

		if (n < 0 || (size_t)n >= size - used) {
			if (size >= 4)
				memcpy(buf + size - 4, "...", 4);
			break;
		}
		used += (size_t)n;
	}
	return buf;
}

static const char *format_range(char *buf, size_t size, uint64_t min, uint64_t max)
{
	if (max == UINT64_MAX)
		snprintf(buf, size, "at least %" PRIu64, min);
	else if (min == 0)
		snprintf(buf, size, "at most %" PRIu64, max);
	else
		snprintf(buf, size, "between %" PRIu64 " and %" PRIu64, min, max);
	return buf;
}

/* 1300 -> "1.3", 2000 -> "2". */
static const char *format_fixed3(char *buf, size_t size, uint64_t milli)
{
	const uint64_t whole = milli / 1000, frac = milli % 1000;

	if (frac == 0)
		snprintf(buf, size, "%" PRIu64, whole);
	else if (frac % 100 == 0)
		snprintf(buf, size, "%" PRIu64 ".%" PRIu64, whole, frac / 100);
	else if (frac % 10 == 0)
		snprintf(buf, size, "%" PRIu64 ".%02" PRIu64, whole, frac / 10);
	else
		snprintf(buf, size, "%" PRIu64 ".%03" PRIu64, whole, frac);
	return buf;
}

/* The largest unit that shows `ps` with at most 3 decimals: 1500 -> "1.5ns". */
static const char *format_duration(char *buf, size_t size, uint64_t ps)
{
	static const struct {
		const char *name;
		uint64_t ps;
	} units[] = { { "s", PS_PER_S }, { "ms", PS_PER_MS }, { "us", PS_PER_US }, { "ns", PS_PER_NS } };
	char number[32];

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		const uint64_t milli_unit = units[i].ps / 1000;

		if (ps >= units[i].ps && ps % milli_unit == 0) {
			snprintf(buf, size, "%s%s",
				 format_fixed3(number, sizeof(number), ps / milli_unit), units[i].name);
			return buf;
		}
	}
	snprintf(buf, size, "%" PRIu64 "ps", ps);
	return buf;
}

static const char *format_duration_range(char *buf, size_t size, uint64_t min, uint64_t max)
{
	char lo[48], hi[48];

	if (max == UINT64_MAX)
		snprintf(buf, size, "at least %s", format_duration(lo, sizeof(lo), min));
	else if (min == 0)
		snprintf(buf, size, "at most %s", format_duration(hi, sizeof(hi), max));
	else
		snprintf(buf, size, "between %s and %s", format_duration(lo, sizeof(lo), min),
			 format_duration(hi, sizeof(hi), max));
	return buf;
}

/* ---- shapes and keys ------------------------------------------------------ */

int cfg_expect(const struct yt_node *n, enum yt_kind kind, const char *what, struct fs_error *e)
{
	if (!n)
		return fs_fail(e, FS_ERR_INPUT, "%s: missing (expected a %s)", what_or_default(what),
			       yt_kind_name(kind));
	if (n->kind == kind)
		return 0;
	return fail_node(n, what, e, "expected a %s, got a %s", yt_kind_name(kind), yt_kind_name(n->kind));
}

static char ascii_lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* Levenshtein distance, ignoring ASCII case (a key typed "Threads" is a typo
 * of "threads"); `b` is at most NEAREST_MAX_LEN long. */
static size_t edit_distance(const char *a, size_t alen, const char *b, size_t blen)
{
	size_t row[NEAREST_MAX_LEN + 1];

	for (size_t j = 0; j <= blen; j++)
		row[j] = j;
	for (size_t i = 1; i <= alen; i++) {
		size_t diagonal = row[0];

		row[0] = i;
		for (size_t j = 1; j <= blen; j++) {
			const size_t above = row[j];
			const size_t cost = ascii_lower(a[i - 1]) == ascii_lower(b[j - 1]) ? 0 : 1;
			size_t best = diagonal + cost;

			if (above + 1 < best)
				best = above + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diagonal = above;
			row[j] = best;
		}
	}
	return row[blen];
}

const char *cfg_nearest(const char *word, const char *const candidates[])
{
	const size_t wlen = word ? strlen(word) : 0;
	const size_t limit = wlen / 3 > 2 ? wlen / 3 : 2;
	const char *best = NULL;
	size_t best_distance = SIZE_MAX;

	if (!word || !candidates)
		return NULL;
	for (size_t i = 0; candidates[i]; i++) {
		const size_t clen = strlen(candidates[i]);
		size_t d;

		/* The length difference alone already exceeds the limit. */
		if (clen > NEAREST_MAX_LEN || (wlen > clen ? wlen - clen : clen - wlen) > limit)
			continue;
		d = edit_distance(word, wlen, candidates[i], clen);
		if (d <= limit && d < best_distance) {
			best = candidates[i];
			best_distance = d;
		}
	}
	return best;
}

static bool in_list(const char *word, const char *const names[])
{
	for (size_t i = 0; names && names[i]; i++)
		if (strcmp(word, names[i]) == 0)
			return true;
	return false;
}

int cfg_check_keys(const struct yt_node *map, const char *what, const char *const known[],
		   struct fs_error *e)
{
	char shown[SHOWN_BYTES], list[600];

	if (cfg_expect(map, YT_MAP, what, e))
		return -1;
	what = what_or_default(what);
	for (size_t i = 0; i < map->len; i++) {
		const char *key = map->keys[i];
		const char *near;

		if (in_list(key, known))
			continue;
		/* a key that is no name is the text of a file that is not a config (a
		 * --set kernel=/etc/shadow): where it is, never what it says */
		if (!*key || strlen(key) > 64 ||
		    strspn(key, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") != strlen(key))
			return fs_fail_at(e, &map->key_marks[i], "unknown key in %s: not a name, so not shown (%zu bytes; "
					  "expected %s%s)", what, strlen(key), known && known[0] ? "one of: " : "no keys",
					  known && known[0] ? cfg_list_names(list, sizeof(list), known) : "");
		yt_excerpt(shown, sizeof(shown), key);
		near = cfg_nearest(key, known);
		if (near)
			return fs_fail_at(e, &map->key_marks[i], "unknown key '%s' in %s (did you mean '%s'?)",
					  shown, what, near);
		if (!known || !known[0])
			return fs_fail_at(e, &map->key_marks[i], "unknown key '%s' in %s (expected no keys)",
					  shown, what);
		return fs_fail_at(e, &map->key_marks[i], "unknown key '%s' in %s (expected one of: %s)",
				  shown, what, cfg_list_names(list, sizeof(list), known));
	}
	return 0;
}

int cfg_require(const struct yt_node *map, const char *key, const char *what, struct fs_error *e)
{
	what = what_or_default(what);
	if (!map)
		return fs_fail(e, FS_ERR_INPUT, "missing key '%s' in %s", key, what);
	if (cfg_expect(map, YT_MAP, what, e))
		return -1;
	if (yt_find(map, key) < 0)
		return fs_fail_at(e, &map->mark, "missing key '%s' in %s", key, what);
	return 0;
}

/* ---- scalars -------------------------------------------------------------- */

/* The text of a scalar that should hold a number-like value described by
 * `noun` ("an integer"). Quoted scalars are strings: `threads: "28"` fails. */
static const char *unquoted_text(const struct yt_node *n, const char *what, const char *noun,
				 struct fs_error *e)
{
	char shown[SHOWN_BYTES];

	if (!n) {
		fs_fail(e, FS_ERR_INPUT, "%s: missing (expected %s)", what_or_default(what), noun);
		return NULL;
	}
	if (n->kind != YT_SCALAR) {
		fail_node(n, what, e, "expected %s, got a %s", noun, yt_kind_name(n->kind));
		return NULL;
	}
	if (n->quoted) {
		fail_node(n, what, e, "expected %s, got a string ('%s' is quoted; remove the quotes)",
			  noun, yt_excerpt(shown, sizeof(shown), n->scalar));
		return NULL;
	}
	if (n->scalar[0] == '\0') {
		fail_node(n, what, e, "no value (expected %s)", noun);
		return NULL;
	}
	return n->scalar;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int hex_value(char c)
{
	if (is_digit(c))
		return c - '0';
	c = ascii_lower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static bool mul_u64(uint64_t a, uint64_t b, uint64_t *out)
{
	if (b != 0 && a > UINT64_MAX / b)
		return false;
	*out = a * b;
	return true;
}

static bool add_u64(uint64_t a, uint64_t b, uint64_t *out)
{
	if (a > UINT64_MAX - b)
		return false;
	*out = a + b;
	return true;
}

enum int_syntax {
	INT_OK,
	INT_NOT_A_NUMBER,
	INT_NEGATIVE,
	INT_SIGNED,
	INT_LEADING_ZERO,
	INT_FRACTION,
	INT_TOO_LARGE,
};

/* Decimal or 0x hex, '_' only between two digits ("1_000", "0xff_ff"). */
static enum int_syntax parse_integer(const char *s, uint64_t *out)
{
	const char *p = s;
	unsigned base = 10;
	uint64_t v = 0;
	size_t digits = 0;
	bool too_large = false;

	if (s[0] == '-' && is_digit(s[1]))
		return INT_NEGATIVE;
	if (s[0] == '+' && is_digit(s[1]))
		return INT_SIGNED;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		p += 2;
	} else if (s[0] == '0' && (is_digit(s[1]) || s[1] == '_')) {
		/* YAML 1.1 reads 010 as octal 8: refuse rather than guess. */
		return INT_LEADING_ZERO;
	}
	for (; *p; p++) {
		const int dv = base == 16 ? hex_value(*p) : (is_digit(*p) ? *p - '0' : -1);

		if (*p == '_' && digits > 0 && p[-1] != '_' &&
		    (base == 16 ? hex_value(p[1]) >= 0 : is_digit(p[1])))
			continue;
		if (dv < 0)
			break;
		digits++;
		if (v > (UINT64_MAX - (uint64_t)dv) / base)
			too_large = true;
		else
			v = v * base + (uint64_t)dv;
	}
	if (digits == 0)
		return INT_NOT_A_NUMBER;
	if (base == 10 && *p == '.' && is_digit(p[1]))
		return INT_FRACTION;
	if (*p)
		return INT_NOT_A_NUMBER;
	if (too_large)
		return INT_TOO_LARGE;
	*out = v;
	return INT_OK;
}

int cfg_parse_u64(const struct yt_node *n, const char *what, uint64_t min, uint64_t max,
		  uint64_t *out, struct fs_error *e)
{
	const char *s = unquoted_text(n, what, "an integer", e);
	char shown[SHOWN_BYTES], range[96];
	uint64_t v = 0;

	if (!s)
		return -1;
	yt_excerpt(shown, sizeof(shown), s);
	format_range(range, sizeof(range), min, max);
	switch (parse_integer(s, &v)) {
	case INT_OK:
		break;
	case INT_NOT_A_NUMBER:
		return fail_node(n, what, e,
				 "'%s' is not an integer (expected decimal digits, or 0x and hex digits, e.g. 28 or 0x1c)",
				 shown);
	case INT_NEGATIVE:
		return fail_node(n, what, e, "'%s' is negative (expected %s)", shown, range);
	case INT_SIGNED:
		return fail_node(n, what, e, "'%s' has a sign (expected digits only, %s)", shown, range);
	case INT_LEADING_ZERO:
		return fail_node(n, what, e,
				 "'%s' has a leading zero, which YAML 1.1 reads as octal (expected a decimal without leading zeros, or 0x for hex)",
				 shown);
	case INT_FRACTION:
		return fail_node(n, what, e, "'%s' is not a whole number (expected an integer, %s)", shown,
				 range);
	case INT_TOO_LARGE:
		return fail_node(n, what, e, "'%s' is out of range (expected at most %" PRIu64 ")", shown,
				 max);
	}
	if (v < min || v > max)
		return fail_node(n, what, e, "'%s' is out of range (expected %s)", shown, range);
	*out = v;
	return 0;
}

int cfg_parse_bool(const struct yt_node *n, const char *what, bool *out, struct fs_error *e)
{
	static const struct {
		const char *word;
		bool value;
	} words[] = {
		{ "true", true }, { "false", false }, { "yes", true },
		{ "no", false },  { "on", true },     { "off", false },
	};
	const char *s = unquoted_text(n, what, "a boolean", e);
	char shown[SHOWN_BYTES];

	if (!s)
		return -1;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		size_t k = 0;

		while (words[i].word[k] && ascii_lower(s[k]) == words[i].word[k])
			k++;
		if (!words[i].word[k] && !s[k]) {
			*out = words[i].value;
			return 0;
		}
	}
	return fail_node(n, what, e,
			 "'%s' is not a boolean (expected true or false; yes/no and on/off also work)",
			 yt_excerpt(shown, sizeof(shown), s));
}

/* ---- decimals and quantities ---------------------------------------------- */

/* A non-negative decimal as written: whole part and fractional digits. */
struct decimal {
	uint64_t whole;
	bool whole_too_large;
	const char *frac;     /* first fractional digit, or NULL */
	const char *frac_end;
};

/* Digits, with '_' allowed between two of them; returns the end (== p: none). */
static const char *scan_digit_run(const char *p)
{
	const char *start = p;

	while (is_digit(*p) || (*p == '_' && p > start && is_digit(p[-1]) && is_digit(p[1])))
		p++;
	return p;
}

/* Scans "123", "1_000" or "1.25"; returns the end, or NULL without a digit. */
static const char *scan_decimal(const char *s, struct decimal *d)
{
	const char *end = scan_digit_run(s);

	*d = (struct decimal){ 0, false, NULL, NULL };
	if (end == s)
		return NULL;
	for (const char *p = s; p < end; p++) {
		if (*p == '_')
			continue;
		if (!mul_u64(d->whole, 10, &d->whole) || !add_u64(d->whole, (uint64_t)(*p - '0'), &d->whole))
			d->whole_too_large = true;
	}
	if (*end == '.' && is_digit(end[1])) {
		d->frac = end + 1;
		d->frac_end = scan_digit_run(d->frac);
		end = d->frac_end;
	}
	return end;
}

static bool decimal_is_zero(const struct decimal *d)
{
	if (d->whole != 0 || d->whole_too_large)
		return false;
	for (const char *p = d->frac; p && p < d->frac_end; p++)
		if (*p != '0' && *p != '_')
			return false;
	return true;
}

enum scale_result { SCALED, INEXACT, TOO_LARGE };

static const uint64_t powers_of_ten[] = {
	1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull, 100000000ull,
	1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
};
#define MAX_EXPONENT 12u

/* d * 10^exp exactly: "1.5" at exp 3 -> 1500; "0.0005" at exp 3 is INEXACT. */
static enum scale_result scale_decimal(const struct decimal *d, unsigned exp, uint64_t *out)
{
	size_t significant = 0, position = 0;
	uint64_t frac = 0, v;

	/* Trailing zeros do not count: "1.500" is as exact as "1.5". */
	for (const char *p = d->frac; p && p < d->frac_end; p++) {
		if (*p == '_')
			continue;
		position++;
		if (*p != '0')
			significant = position;
	}
	if (significant > exp)
		return INEXACT;
	position = 0;
	for (const char *p = d->frac; p && position < significant; p++) {
		if (*p == '_')
			continue;
		frac = frac * 10 + (uint64_t)(*p - '0');
		position++;
	}
	frac *= powers_of_ten[exp - significant]; /* < 10^exp: no overflow */
	if (d->whole_too_large || !mul_u64(d->whole, powers_of_ten[exp], &v) || !add_u64(v, frac, &v))
		return TOO_LARGE;
	*out = v;
	return SCALED;
}

/* What a quantity's value counts. */
enum unit_base { BASE_PS, BASE_MILLICYCLES, BASE_KHZ };

struct unit {
	const char *name;
	unsigned exp; /* value = number * 10^exp in the base */
	enum unit_base base;
};

#define DURATION_UNITS                                                                     \
	{ "ps", 0, BASE_PS }, { "ns", 3, BASE_PS }, { "us", 6, BASE_PS },                  \
		{ "\xc2\xb5s", 6, BASE_PS }, /* U+00B5 MICRO SIGN */                       \
		{ "\xce\xbcs", 6, BASE_PS }, /* U+03BC GREEK SMALL LETTER MU */            \
		{ "ms", 9, BASE_PS }, { "s", 12, BASE_PS }

static const struct unit duration_units[] = { DURATION_UNITS, { NULL, 0, BASE_PS } };
static const struct unit cost_units[] = {
	DURATION_UNITS,
	{ "cycles", 3, BASE_MILLICYCLES },
	{ "cycle", 3, BASE_MILLICYCLES },
	{ NULL, 0, BASE_PS },
};
static const struct unit frequency_units[] = {
	{ "GHz", 6, BASE_KHZ }, { "MHz", 3, BASE_KHZ }, { "kHz", 0, BASE_KHZ }, { NULL, 0, BASE_KHZ },
};

/* A family of "NUMBER UNIT" values and how to talk about it. */
struct quantity_kind {
	const char *noun;        /* "a duration" */
	const char *name;        /* "duration" */
	const struct unit *units;
	bool unit_ignores_case;
	bool bare_zero;          /* "0" needs no unit */
	const char *unit_list;   /* for messages */
	const char *example;     /* a valid value */
	const char *suggested_unit;
};

static const struct quantity_kind duration_kind = {
	"a duration", "duration", duration_units, false, true, "ps, ns, us, ms or s", "1.5us", "ns",
};
static const struct quantity_kind cost_kind = {
	"a cost", "cost", cost_units, false, true, "ps, ns, us, ms, s or cycles", "20 cycles", "ns",
};
static const struct quantity_kind frequency_kind = {
	"a frequency", "frequency", frequency_units, true, false, "GHz, MHz or kHz", "2.5GHz", "GHz",
};

static bool same_unit(const char *a, const char *b, bool ignore_case)
{
	for (; *a && *b; a++, b++)
		if (ignore_case ? ascii_lower(*a) != ascii_lower(*b) : *a != *b)
			return false;
	return *a == *b;
}

static const struct unit *find_unit(const struct quantity_kind *k, const char *name)
{
	for (const struct unit *u = k->units; u->name; u++)
		if (same_unit(u->name, name, k->unit_ignores_case))
			return u;
	return NULL;
}

static bool is_exponent(const char *p)
{
	return (p[0] == 'e' || p[0] == 'E') &&
	       (is_digit(p[1]) || ((p[1] == '+' || p[1] == '-') && is_digit(p[2])));
}

static int quantity_too_large(const struct yt_node *n, const char *what, const char *shown,
			      enum unit_base base, struct fs_error *e)
{
	switch (base) {
	case BASE_PS:
		return fail_node(n, what, e,
				 "'%s' is too large (expected at most %" PRIu64 "ps, about 213 days)",
				 shown, UINT64_MAX);
	case BASE_MILLICYCLES:
		return fail_node(n, what, e, "'%s' is too large (expected at most %" PRIu64 ".%03" PRIu64
				 " cycles)", shown, UINT64_MAX / 1000, UINT64_MAX % 1000);
	case BASE_KHZ:
		break;
	}
	return fail_node(n, what, e, "'%s' is too large (expected at most %" PRIu64 "kHz)", shown,
			 UINT64_MAX);
}

static int quantity_inexact(const struct yt_node *n, const char *what, const char *shown,
			    enum unit_base base, struct fs_error *e)
{
	switch (base) {
	case BASE_PS:
		return fail_node(n, what, e,
				 "'%s' is not a whole number of picoseconds (expected a multiple of 1ps)",
				 shown);
	case BASE_MILLICYCLES:
		return fail_node(n, what, e,
				 "'%s' has more than 3 fractional digits (expected a multiple of 0.001 cycles)",
				 shown);
	case BASE_KHZ:
		break;
	}
	return fail_node(n, what, e, "'%s' is not a whole number of kHz (expected a multiple of 1kHz)",
			 shown);
}

/* Reads "NUMBER[ ]UNIT" into the unit's base; *base tells which base it is. */
static int read_quantity(const struct yt_node *n, const char *what, const struct quantity_kind *k,
			 uint64_t *out, enum unit_base *base, struct fs_error *e)
{
	const char *s = unquoted_text(n, what, k->noun, e);
	char shown[SHOWN_BYTES], unit_shown[SHOWN_BYTES];
	const struct unit *u;
	struct decimal d;
	const char *p;

	if (!s)
		return -1;
	yt_excerpt(shown, sizeof(shown), s);
	if (s[0] == '-' && (is_digit(s[1]) || s[1] == '.'))
		return fail_node(n, what, e, "'%s' is negative (expected %s of 0 or more, e.g. %s)", shown,
				 k->noun, k->example);
	if (s[0] == '+' && is_digit(s[1]))
		return fail_node(n, what, e, "'%s' has a sign (expected digits and a unit, e.g. %s)", shown,
				 k->example);
	p = scan_decimal(s, &d);
	if (!p || *p == '.' || *p == '_')
		return fail_node(n, what, e, "'%s' is not %s (expected a number and a unit: %s, e.g. %s)",
				 shown, k->noun, k->unit_list, k->example);
	if (is_exponent(p))
		return fail_node(n, what, e, "'%s' has an exponent (expected plain digits and a unit, e.g. %s)",
				 shown, k->example);
	while (*p == ' ')
		p++;
	if (*p == '\0') {
		if (k->bare_zero && decimal_is_zero(&d)) {
			*out = 0;
			*base = BASE_PS;
			return 0;
		}
		return fail_node(n, what, e, "%s needs a unit: %s (got '%s'; expected e.g. '%s%s')", k->name,
				 k->unit_list, shown, shown, k->suggested_unit);
	}
	u = find_unit(k, p);
	if (!u)
		return fail_node(n, what, e, "unknown unit '%s' in '%s' (expected %s)",
				 yt_excerpt(unit_shown, sizeof(unit_shown), p), shown, k->unit_list);
	*base = u->base;
	switch (scale_decimal(&d, u->exp, out)) {
	case SCALED:
		return 0;
	case INEXACT:
		return quantity_inexact(n, what, shown, u->base, e);
	case TOO_LARGE:
		break;
	}
	return quantity_too_large(n, what, shown, u->base, e);
}

int cfg_parse_duration(const struct yt_node *n, const char *what, uint64_t min_ps, uint64_t max_ps,
		       uint64_t *out_ps, struct fs_error *e)
{
	char shown[SHOWN_BYTES], range[128];
	enum unit_base base;
	uint64_t ps;

	if (read_quantity(n, what, &duration_kind, &ps, &base, e))
		return -1;
	if (ps < min_ps || ps > max_ps)
		return fail_node(n, what, e, "'%s' is out of range (expected %s)",
				 yt_excerpt(shown, sizeof(shown), n->scalar),
				 format_duration_range(range, sizeof(range), min_ps, max_ps));
	*out_ps = ps;
	return 0;
}

/* Memory sizes: whole numbers only, so a limit is exactly what it says. */
static const struct size_unit {
	const char *name;
	uint64_t bytes;
} size_units[] = {
	{ "B", 1 },
	{ "kB", 1000 }, { "MB", 1000000 }, { "GB", 1000000000 }, { "TB", 1000000000000 },
	{ "KiB", 1ull << 10 }, { "MiB", 1ull << 20 }, { "GiB", 1ull << 30 }, { "TiB", 1ull << 40 },
	{ NULL, 0 },
};
#define SIZE_UNIT_LIST "B, kB, MB, GB, TB, KiB, MiB, GiB or TiB"

int cfg_parse_size(const struct yt_node *n, const char *what, uint64_t min, uint64_t max, uint64_t *out,
		   struct fs_error *e)
{
	const char *s = unquoted_text(n, what, "a memory size", e), *p;
	char shown[SHOWN_BYTES], digits[32], range[96];
	const struct size_unit *u;
	uint64_t v;
	size_t len;

	if (!s)
		return -1;
	yt_excerpt(shown, sizeof(shown), s);
	/* decimal digits only: the B of a unit would read as a hex digit */
	len = strspn(s, "0123456789_.+-");
	if (len == 0 || len >= sizeof(digits))
		return fail_node(n, what, e, "'%s' is not a memory size (expected an integer and a unit: %s, e.g. 4GiB)",
				 shown, SIZE_UNIT_LIST);
	memcpy(digits, s, len);
	digits[len] = '\0';
	switch (parse_integer(digits, &v)) {
	case INT_OK:
		break;
	case INT_FRACTION:
		return fail_node(n, what, e, "'%s' is not a whole number (expected an integer and a unit, e.g. 1536MiB)",
				 shown);
	case INT_TOO_LARGE:
		return fail_node(n, what, e, "'%s' is out of range (expected %s bytes)", shown,
				 format_range(range, sizeof(range), min, max));
	default:
		return fail_node(n, what, e, "'%s' is not a memory size (expected an integer and a unit: %s, e.g. 4GiB)",
				 shown, SIZE_UNIT_LIST);
	}
	for (p = s + len; *p == ' '; p++)
		;
	for (u = size_units; u->name && strcmp(u->name, p) != 0; u++)
		;
	if (!*p)
		return fail_node(n, what, e, "a memory size needs a unit: %s (got '%s'; expected e.g. '%sMiB')",
				 SIZE_UNIT_LIST, shown, shown);
	if (!u->name)
		return fail_node(n, what, e, "unknown unit '%s' in '%s' (expected %s)",
				 yt_excerpt(digits, sizeof(digits), p), shown, SIZE_UNIT_LIST);
	if (!mul_u64(v, u->bytes, &v) || v < min || v > max)
		return fail_node(n, what, e, "'%s' is out of range (expected %s bytes)", shown,
				 format_range(range, sizeof(range), min, max));
	*out = v;
	return 0;
}

int cfg_parse_cost(const struct yt_node *n, const char *what, struct fs_cost *out, struct fs_error *e)
{
	enum unit_base base;
	uint64_t amount;

	if (read_quantity(n, what, &cost_kind, &amount, &base, e))
		return -1;
	out->amount = amount;
	out->unit = base == BASE_MILLICYCLES ? FS_COST_MILLICYCLES : FS_COST_PS;
	return 0;
}

int cfg_parse_frequency(const struct yt_node *n, const char *what, uint64_t *out_khz,
			struct fs_error *e)
{
	char shown[SHOWN_BYTES];
	enum unit_base base;
	uint64_t khz;

	if (read_quantity(n, what, &frequency_kind, &khz, &base, e))
		return -1;
	if (khz == 0)
		return fail_node(n, what, e, "'%s' is zero (expected a frequency above 0, e.g. %s)",
				 yt_excerpt(shown, sizeof(shown), n->scalar), frequency_kind.example);
	*out_khz = khz;
	return 0;
}

int cfg_parse_fixed3(const struct yt_node *n, const char *what, uint64_t min_milli,
		     uint64_t max_milli, uint64_t *out_milli, struct fs_error *e)
{
	const char *s = unquoted_text(n, what, "a decimal number", e);
	char shown[SHOWN_BYTES], lo[32], hi[32];
	struct decimal d;
	const char *end;
	uint64_t milli = 0;
	enum scale_result r;

	if (!s)
		return -1;
	yt_excerpt(shown, sizeof(shown), s);
	format_fixed3(lo, sizeof(lo), min_milli);
	format_fixed3(hi, sizeof(hi), max_milli);
	if (s[0] == '-' && (is_digit(s[1]) || s[1] == '.'))
		return fail_node(n, what, e, "'%s' is negative (expected between %s and %s)", shown, lo,
				 hi);
	end = scan_decimal(s, &d);
	if (!end || *end)
		return fail_node(n, what, e,
				 "'%s' is not a decimal number (expected digits with at most 3 fractional digits, e.g. 1.25)",
				 shown);
	r = scale_decimal(&d, 3, &milli);
	if (r == INEXACT)
		return fail_node(n, what, e,
				 "'%s' has more than 3 fractional digits (expected a multiple of 0.001)", shown);
	if (r == TOO_LARGE || milli < min_milli || milli > max_milli)
		return fail_node(n, what, e, "'%s' is out of range (expected between %s and %s)", shown, lo,
				 hi);
	*out_milli = milli;
	return 0;
}

uint64_t fs_cost_ps(struct fs_cost c, uint64_t freq_khz)
{
	unsigned __int128 ps;

	if (c.unit == FS_COST_PS)
		return c.amount;
	if (freq_khz == 0)
		return UINT64_MAX;
	/* ps per cycle = 1e12 / (freq_khz * 1e3) = 1e9 / freq_khz, and a
	 * millicycle is 1e-3 cycles: ps = millicycles * 1e6 / freq_khz. */
	ps = ((unsigned __int128)c.amount * 1000000u + freq_khz / 2) / freq_khz;
	return ps > UINT64_MAX ? UINT64_MAX : (uint64_t)ps;
}

int cfg_parse_enum(const struct yt_node *n, const char *what, const char *const names[], int *out,
		   struct fs_error *e)
{
	char shown[SHOWN_BYTES], list[600];
	const char *near;

	what = what_or_default(what);
	cfg_list_names(list, sizeof(list), names);
	if (!n)
		return fs_fail(e, FS_ERR_INPUT, "%s: missing (expected one of: %s)", what, list);
	if (n->kind != YT_SCALAR)
		return fail_node(n, what, e, "expected one of: %s, got a %s", list, yt_kind_name(n->kind));
	for (int i = 0; names && names[i]; i++) {
		if (strcmp(n->scalar, names[i]) == 0) {
			*out = i;
			return 0;
		}
	}
	yt_excerpt(shown, sizeof(shown), n->scalar);
	near = cfg_nearest(n->scalar, names);
	if (near)
		return fs_fail_at(e, &n->mark, "unknown %s '%s' (did you mean '%s'?; one of: %s)", what,
				  shown, near, list);
	return fs_fail_at(e, &n->mark, "unknown %s '%s' (one of: %s)", what, shown, list);
}

int cfg_parse_string(const struct yt_node *n, const char *what, const char **out, struct fs_error *e)
{
	if (!n)
		return fs_fail(e, FS_ERR_INPUT, "%s: missing (expected a string)", what_or_default(what));
	if (n->kind != YT_SCALAR)
		return fail_node(n, what, e, "expected a string, got a %s", yt_kind_name(n->kind));
	*out = n->scalar;
	return 0;
}

/* ---- optional members ------------------------------------------------------ */

/* The member `key` of `map` in *out (NULL when absent or `map` is NULL). */
static int member(const struct yt_node *map, const char *key, const struct yt_node **out,
		  struct fs_error *e)
{
	*out = NULL;
	if (!map)
		return 0;
	if (map->kind != YT_MAP)
		return fs_fail_at(e, &map->mark, "expected a map with key '%s', got a %s", key,
				  yt_kind_name(map->kind));
	*out = yt_get(map, key);
	return 0;
}

/* Records the default a reader used for an absent `key` (sim/core/yamltree.h,
 * yt_note_default: only while the doc records defaults). */
static int used_default(const struct yt_node *map, const char *key, const char *text, bool quoted,
			struct fs_error *e)
{
	if (yt_note_default(map, key, text, quoted) < 0)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	return 0;
}

int cfg_get_u64(const struct yt_node *map, const char *key, uint64_t dflt, uint64_t min,
		uint64_t max, uint64_t *out, struct fs_error *e)
{
	const struct yt_node *n;

	if (member(map, key, &n, e))
		return -1;
	if (!n) {
		char text[32];

		*out = dflt;
		snprintf(text, sizeof(text), "%" PRIu64, dflt);
		return used_default(map, key, text, false, e);
	}
	return cfg_parse_u64(n, key, min, max, out, e);
}

int cfg_get_u32(const struct yt_node *map, const char *key, uint32_t dflt, uint32_t min,
		uint32_t max, uint32_t *out, struct fs_error *e)
{
	uint64_t v;

	if (cfg_get_u64(map, key, dflt, min, max, &v, e))
		return -1;
	*out = (uint32_t)v; /* within [min, max] */
	return 0;
}

int cfg_get_bool(const struct yt_node *map, const char *key, bool dflt, bool *out, struct fs_error *e)
{
	const struct yt_node *n;

	if (member(map, key, &n, e))
		return -1;
	if (!n) {
		*out = dflt;
		return used_default(map, key, dflt ? "true" : "false", false, e);
	}
	return cfg_parse_bool(n, key, out, e);
}

int cfg_get_fixed3(const struct yt_node *map, const char *key, uint64_t dflt_milli, uint64_t min_milli,
		   uint64_t max_milli, uint64_t *out_milli, struct fs_error *e)
{
	const struct yt_node *n;

	if (member(map, key, &n, e))
		return -1;
	if (!n) {
		char text[48];

		*out_milli = dflt_milli;
		return used_default(map, key, format_fixed3(text, sizeof(text), dflt_milli), false, e);
	}
	return cfg_parse_fixed3(n, key, min_milli, max_milli, out_milli, e);
}

int cfg_get_duration(const struct yt_node *map, const char *key, uint64_t dflt_ps, uint64_t min_ps,
		     uint64_t max_ps, uint64_t *out_ps, struct fs_error *e)
{
	const struct yt_node *n;

	if (member(map, key, &n, e))
		return -1;
	if (!n) {
		char text[48];

		*out_ps = dflt_ps;
		return used_default(map, key, format_duration(text, sizeof(text), dflt_ps), false, e);
	}
	return cfg_parse_duration(n, key, min_ps, max_ps, out_ps, e);
}

int cfg_get_size(const struct yt_node *map, const char *key, uint64_t dflt, uint64_t min, uint64_t max,
		 uint64_t *out, struct fs_error *e)
{
	const struct yt_node *n;

	if (member(map, key, &n, e))
		return -1;
	if (!n) {
		char text[48];

		*out = dflt;
		if (dflt % (1ull << 20) == 0)
			snprintf(text, sizeof(text), "%" PRIu64 "MiB", dflt >> 20);
		else
			snprintf(text, sizeof(text), "%" PRIu64 "B", dflt);
		return used_default(map, key, text, false, e);
	}
	return cfg_parse_size(n, key, min, max, out, e);
}

int cfg_get_cost(const struct yt_node *map, const char *key, struct fs_cost dflt, struct fs_cost *out,
		 struct fs_error *e)
{
	const struct yt_node *n;

	if (member(map, key, &n, e))
		return -1;
	if (!n) {
		char text[64], number[48];

		*out = dflt;
		if (dflt.unit == FS_COST_MILLICYCLES)
			snprintf(text, sizeof(text), "%s cycles", format_fixed3(number, sizeof(number), dflt.amount));
		else
			format_duration(text, sizeof(text), dflt.amount);
		return used_default(map, key, text, false, e);
	}
	return cfg_parse_cost(n, key, out, e);
}

int cfg_get_string(const struct yt_node *map, const char *key, const char *dflt, const char **out,
		   struct fs_error *e)
{
	const struct yt_node *n;

	if (member(map, key, &n, e))
		return -1;
	if (!n) {
		*out = dflt;
		/* a NULL default means "no value": nothing to record */
		return dflt ? used_default(map, key, dflt, true, e) : 0;
	}
	return cfg_parse_string(n, key, out, e);
}

int cfg_get_enum(const struct yt_node *map, const char *key, const char *const names[], int dflt,
		 int *out, struct fs_error *e)
{
	const struct yt_node *n;

	if (member(map, key, &n, e))
		return -1;
	if (!n) {
		*out = dflt;
		/* a negative default means "none of the names" (the caller decides) */
		return dflt >= 0 ? used_default(map, key, names[dflt], false, e) : 0;
	}
	return cfg_parse_enum(n, key, names, out, e);
}
