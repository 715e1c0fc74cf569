/* SPDX-License-Identifier: MIT */
/* Tests of sim/core/config.c: every scalar reader over tables of accepted and
 * refused spellings, with values and messages worked out by hand. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/core/config.h"
#include "tests/testutil.h"

#define MAX UINT64_MAX
/* Every test scalar sits here, so messages start with this prefix. */
#define AT "cfg.yaml:3:7: "

static struct yt_node *scalar(struct yt_doc *d, const char *text, bool quoted)
{
	struct yt_node *n = yt_new_scalar(d, text, quoted, (struct fs_mark){ "cfg.yaml", 3, 7 });

	ck_assert_ptr_nonnull(n);
	return n;
}

static struct yt_node *load(struct yt_doc *d, const char *text)
{
	struct fs_error e = { 0 };
	struct yt_node *root = yt_load_string(d, "t.yaml", text, strlen(text), &e);

	ck_assert_msg(root != NULL, "%s", e.msg);
	return root;
}

/* Fails unless the call failed with FS_ERR_INPUT and exactly `message`, or,
 * when `message` ends in '*', a message starting with it. */
static void assert_error(int rc, const struct fs_error *e, const char *message)
{
	const size_t len = strlen(message);

	ck_assert_int_eq(rc, -1);
	ck_assert_int_eq(e->status, FS_ERR_INPUT);
	if (len && message[len - 1] == '*')
		ck_assert_msg(strncmp(e->msg, message, len - 1) == 0, "got '%s', expected '%s'", e->msg,
			      message);
	else
		ck_assert_str_eq(e->msg, message);
}

/* ---- memory sizes ------------------------------------------------------------ */

static const struct {
	const char *text;
	uint64_t value;      /* when message is NULL */
	const char *message; /* NULL: accepted */
} size_cases[] = {
	{ "4GiB", 4294967296ull, NULL },
	{ "512MiB", 536870912ull, NULL },
	{ "1536 MiB", 1610612736ull, NULL },
	{ "100MB", 100000000ull, NULL },
	{ "64 kB", 64000ull, NULL },
	{ "2KiB", 2048ull, NULL },
	{ "1TiB", 1099511627776ull, NULL },
	{ "3TB", 3000000000000ull, NULL },
	{ "1_000B", 1000ull, NULL },
	{ "1.5GiB", 0, AT "m: '1.5GiB' is not a whole number (expected an integer and a unit, e.g. 1536MiB)" },
	{ "4096", 0, AT "m: a memory size needs a unit: B, kB, MB, GB, TB, KiB, MiB, GiB or TiB (got '4096'; "
		     "expected e.g. '4096MiB')" },
	{ "4 gigs", 0, AT "m: unknown unit 'gigs' in '4 gigs' (expected B, kB, MB, GB, TB, KiB, MiB, GiB or TiB)" },
	{ "4gib", 0, AT "m: unknown unit 'gib' in '4gib'*" },
	{ "lots", 0, AT "m: 'lots' is not a memory size*" },
	{ "-1GiB", 0, AT "m: '-1GiB' is not a memory size*" },
	{ "1e3MB", 0, AT "m: unknown unit 'e3MB' in '1e3MB'*" },
	{ "99999999999999999999B", 0, AT "m: '99999999999999999999B' is out of range*" },
	/* 2^64 bytes: the multiplication must not wrap */
	{ "16777216TiB", 0, AT "m: '16777216TiB' is out of range (expected at least 1000 bytes)" },
	{ "999B", 0, AT "m: '999B' is out of range (expected at least 1000 bytes)" },
};

START_TEST(test_size)
{
	struct yt_doc *d = yt_doc_new();
	struct fs_error e = { 0 };
	uint64_t v = 7;
	int rc = cfg_parse_size(scalar(d, size_cases[_i].text, false), "m", 1000, MAX, &v, &e);

	if (size_cases[_i].message) {
		assert_error(rc, &e, size_cases[_i].message);
		ck_assert_uint_eq(v, 7);
	} else {
		ck_assert_msg(rc == 0, "'%s': %s", size_cases[_i].text, e.msg);
		ck_assert_uint_eq(v, size_cases[_i].value);
	}
	yt_doc_free(d);
}
END_TEST

START_TEST(test_size_quoted_and_get)
{
	struct yt_doc *d = yt_doc_new();
	struct fs_error e = { 0 };
	struct yt_node *run = load(d, "max_memory: 2GiB\n");
	uint64_t v = 0;

	assert_error(cfg_parse_size(scalar(d, "4GiB", true), "m", 0, MAX, &v, &e),
		     &e, AT "m: expected a memory size, got a string ('4GiB' is quoted; remove the quotes)");
	ck_assert_int_eq(cfg_get_size(run, "max_memory", 5, 0, MAX, &v, &e), 0);
	ck_assert_uint_eq(v, 2ull << 30);
	/* an absent key takes the default, recorded in a form that reads back the same */
	yt_doc_record_defaults(d, true);
	ck_assert_int_eq(cfg_get_size(run, "other", 3ull << 30, 0, MAX, &v, &e), 0);
	ck_assert_uint_eq(v, 3ull << 30);
	ck_assert_str_eq(yt_get(run, "other")->scalar, "3072MiB");
	ck_assert_int_eq(cfg_get_size(run, "odd", 1000, 0, MAX, &v, &e), 0);
	ck_assert_str_eq(yt_get(run, "odd")->scalar, "1000B");
	ck_assert_int_eq(cfg_parse_size(yt_get(run, "odd"), "odd", 0, MAX, &v, &e), 0);
	ck_assert_uint_eq(v, 1000);
	yt_doc_free(d);
}
END_TEST

/* ---- integers --------------------------------------------------------------- */

static const struct {
	const char *text;
	bool quoted;
	uint64_t min, max;
	uint64_t value;      /* when message is NULL */
	const char *message; /* NULL: accepted */
} u64_cases[] = {
	{ "0", false, 0, MAX, 0, NULL },
	{ "28", false, 0, MAX, 28, NULL },
	{ "1_000_000", false, 0, MAX, 1000000, NULL },
	{ "0x1c", false, 0, MAX, 28, NULL },
	{ "0X1C", false, 0, MAX, 28, NULL },
	{ "0xff_ff", false, 0, MAX, 65535, NULL },
	{ "18446744073709551615", false, 0, MAX, MAX, NULL },
	{ "0xffffffffffffffff", false, 0, MAX, MAX, NULL },
	{ "1", false, 1, 256, 1, NULL },
	{ "256", false, 1, 256, 256, NULL },
	{ "0x100", false, 1, 256, 256, NULL },
	{ "18446744073709551616", false, 0, MAX, 0,
	  AT "threads: '18446744073709551616' is out of range (expected at most 18446744073709551615)" },
	{ "0x10000000000000000", false, 0, MAX, 0,
	  AT "threads: '0x10000000000000000' is out of range (expected at most 18446744073709551615)" },
	{ "99999999999999999999999", false, 1, 256, 0,
	  AT "threads: '99999999999999999999999' is out of range (expected at most 256)" },
	{ "0", false, 1, 256, 0, AT "threads: '0' is out of range (expected between 1 and 256)" },
	{ "257", false, 1, 256, 0, AT "threads: '257' is out of range (expected between 1 and 256)" },
	{ "5", false, 0, 4, 0, AT "threads: '5' is out of range (expected at most 4)" },
	{ "0", false, 1, MAX, 0, AT "threads: '0' is out of range (expected at least 1)" },
	{ "-5", false, 1, 256, 0, AT "threads: '-5' is negative (expected between 1 and 256)" },
	{ "-0", false, 0, MAX, 0, AT "threads: '-0' is negative (expected at least 0)" },
	{ "+5", false, 0, MAX, 0, AT "threads: '+5' has a sign (expected digits only, at least 0)" },
	{ "--5", false, 0, MAX, 0,
	  AT "threads: '--5' is not an integer (expected decimal digits, or 0x and hex digits, e.g. 28 or 0x1c)" },
	{ "1.5", false, 0, MAX, 0,
	  AT "threads: '1.5' is not a whole number (expected an integer, at least 0)" },
	{ "1.0", false, 0, MAX, 0, AT "threads: '1.0' is not a whole number*" },
	{ "1e3", false, 0, MAX, 0, AT "threads: '1e3' is not an integer*" },
	{ "010", false, 0, MAX, 0,
	  AT "threads: '010' has a leading zero, which YAML 1.1 reads as octal (expected a decimal "
	     "without leading zeros, or 0x for hex)" },
	{ "00", false, 0, MAX, 0, AT "threads: '00' has a leading zero*" },
	{ "0_1", false, 0, MAX, 0, AT "threads: '0_1' has a leading zero*" },
	{ "1__0", false, 0, MAX, 0, AT "threads: '1__0' is not an integer*" },
	{ "_1", false, 0, MAX, 0, AT "threads: '_1' is not an integer*" },
	{ "1_", false, 0, MAX, 0, AT "threads: '1_' is not an integer*" },
	{ "0x", false, 0, MAX, 0, AT "threads: '0x' is not an integer*" },
	{ "0x_1", false, 0, MAX, 0, AT "threads: '0x_1' is not an integer*" },
	{ "0xg", false, 0, MAX, 0, AT "threads: '0xg' is not an integer*" },
	{ "abc", false, 0, MAX, 0, AT "threads: 'abc' is not an integer*" },
	{ "NaN", false, 0, MAX, 0, AT "threads: 'NaN' is not an integer*" },
	{ "1,000", false, 0, MAX, 0, AT "threads: '1,000' is not an integer*" },
	{ " 1", false, 0, MAX, 0, AT "threads: ' 1' is not an integer*" },
	{ "1 ", false, 0, MAX, 0, AT "threads: '1 ' is not an integer*" },
	{ "1\n", false, 0, MAX, 0, AT "threads: '1\\n' is not an integer*" },
	{ "", false, 0, MAX, 0, AT "threads: no value (expected an integer)" },
	{ "28", true, 0, MAX, 0,
	  AT "threads: expected an integer, got a string ('28' is quoted; remove the quotes)" },
};

START_TEST(test_u64)
{
	struct yt_doc *d = yt_doc_new();
	struct fs_error e = { 0 };
	uint64_t v = 12345;
	const int rc = cfg_parse_u64(scalar(d, u64_cases[_i].text, u64_cases[_i].quoted), "threads",
				     u64_cases[_i].min, u64_cases[_i].max, &v, &e);

	if (u64_cases[_i].message) {
		assert_error(rc, &e, u64_cases[_i].message);
		ck_assert_uint_eq(v, 12345); /* untouched on error */
	} else {
		ck_assert_msg(rc == 0, "'%s': %s", u64_cases[_i].text, e.msg);
		ck_assert_uint_eq(v, u64_cases[_i].value);
	}
	yt_doc_free(d);
}
END_TEST

START_TEST(test_u64_wrong_kind)
{
	struct yt_doc *d = yt_doc_new();
	struct yt_node *root = load(d, "threads: {a: 1}\nlist: [1]\n");
	struct fs_error e = { 0 };
	uint64_t v;

	assert_error(cfg_parse_u64(yt_get(root, "threads"), "threads", 0, MAX, &v, &e), &e,
		     "t.yaml:1:10: threads: expected an integer, got a map");
	assert_error(cfg_parse_u64(yt_get(root, "list"), "list", 0, MAX, &v, &e), &e,
		     "t.yaml:2:7: list: expected an integer, got a sequence");
	assert_error(cfg_parse_u64(NULL, "threads", 0, MAX, &v, &e), &e,
		     "threads: missing (expected an integer)");
	yt_doc_free(d);
}
END_TEST

START_TEST(test_get_u64_u32)
{
	struct yt_doc *d = yt_doc_new();
	struct yt_node *root = load(d, "threads: 28\nbig: 4294967296\nbad: lots\n");
	struct fs_error e = { 0 };
	uint64_t v64;
	uint32_t v32;

	ck_assert_int_eq(cfg_get_u64(root, "threads", 7, 1, 100, &v64, &e), 0);
	ck_assert_uint_eq(v64, 28);
	ck_assert_int_eq(cfg_get_u64(root, "absent", 7, 1, 100, &v64, &e), 0);
	ck_assert_uint_eq(v64, 7);
	ck_assert_int_eq(cfg_get_u64(NULL, "threads", 9, 1, 100, &v64, &e), 0);
	ck_assert_uint_eq(v64, 9);
	ck_assert_int_eq(cfg_get_u32(root, "threads", 7, 1, 100, &v32, &e), 0);
	ck_assert_uint_eq(v32, 28);
	ck_assert_int_eq(cfg_get_u32(root, "absent", 7, 1, 100, &v32, &e), 0);
	ck_assert_uint_eq(v32, 7);
	assert_error(cfg_get_u32(root, "big", 7, 0, UINT32_MAX, &v32, &e), &e,
		     "t.yaml:2:6: big: '4294967296' is out of range (expected at most 4294967295)");
	assert_error(cfg_get_u64(root, "bad", 7, 0, MAX, &v64, &e), &e,
		     "t.yaml:3:6: bad: 'lots' is not an integer*");
	assert_error(cfg_get_u64(yt_get(root, "threads"), "x", 7, 0, MAX, &v64, &e), &e,
		     "t.yaml:1:10: expected a map with key 'x', got a scalar");
	yt_doc_free(d);
}
END_TEST

/* ---- booleans ---------------------------------------------------------------- */

static const struct {
	const char *text;
	bool quoted;
	bool value;
	const char *message;
} bool_cases[] = {
	{ "true", false, true, NULL },
	{ "True", false, true, NULL },
	{ "TRUE", false, true, NULL },
	{ "yes", false, true, NULL },
	{ "Yes", false, true, NULL },
	{ "on", false, true, NULL },
	{ "ON", false, true, NULL },
	{ "false", false, false, NULL },
	{ "no", false, false, NULL },
	{ "off", false, false, NULL },
	{ "Off", false, false, NULL },
	{ "1", false, false,
	  AT "enabled: '1' is not a boolean (expected true or false; yes/no and on/off also work)" },
	{ "y", false, false, AT "enabled: 'y' is not a boolean*" },
	{ "truee", false, false, AT "enabled: 'truee' is not a boolean*" },
	{ "tru", false, false, AT "enabled: 'tru' is not a boolean*" },
	{ "", false, false, AT "enabled: no value (expected a boolean)" },
	{ "yes", true, false,
	  AT "enabled: expected a boolean, got a string ('yes' is quoted; remove the quotes)" },
};

START_TEST(test_bool)
{
	struct yt_doc *d = yt_doc_new();
	struct fs_error e = { 0 };
	bool v = !bool_cases[_i].value;
	const int rc = cfg_parse_bool(scalar(d, bool_cases[_i].text, bool_cases[_i].quoted), "enabled",
				      &v, &e);

	if (bool_cases[_i].message) {
		assert_error(rc, &e, bool_cases[_i].message);
	} else {
		ck_assert_msg(rc == 0, "'%s': %s", bool_cases[_i].text, e.msg);
		ck_assert_int_eq(v, bool_cases[_i].value);
	}
	yt_doc_free(d);
}
END_TEST

START_TEST(test_get_bool)
{
	struct yt_doc *d = yt_doc_new();
	struct yt_node *root = load(d, "on_flag: on\n");
	struct fs_error e = { 0 };
	bool v = false;

	ck_assert_int_eq(cfg_get_bool(root, "on_flag", false, &v, &e), 0);
	ck_assert(v);
	ck_assert_int_eq(cfg_get_bool(root, "absent", false, &v, &e), 0);
	ck_assert(!v);
	yt_doc_free(d);
}
END_TEST

/* ---- fixed3 ---------------------------------------------------------------------- */

static const struct {
	const char *text;
	uint64_t min, max;
	uint64_t milli;
	const char *message;
} fixed3_cases[] = {
	{ "1.3", 0, MAX, 1300, NULL },
	{ "1", 0, MAX, 1000, NULL },
	{ "0", 0, MAX, 0, NULL },
	{ "0.001", 0, MAX, 1, NULL },
	{ "1.25", 0, MAX, 1250, NULL },
	{ "1.500", 0, MAX, 1500, NULL },
	{ "1.0000", 0, MAX, 1000, NULL },
	{ "10", 1000, 10000, 10000, NULL },
	{ "1_000.5", 0, MAX, 1000500, NULL },
	{ "18446744073709551.615", 0, MAX, MAX, NULL },
	{ "0.0005", 0, MAX, 0,
	  AT "factor: '0.0005' has more than 3 fractional digits (expected a multiple of 0.001)" },
	{ "1.2345", 0, MAX, 0, AT "factor: '1.2345' has more than 3 fractional digits*" },
	{ "10.001", 1000, 10000, 0, AT "factor: '10.001' is out of range (expected between 1 and 10)" },
	{ "0.999", 1000, 10000, 0, AT "factor: '0.999' is out of range (expected between 1 and 10)" },
	{ "0.5", 1300, 2500, 0, AT "factor: '0.5' is out of range (expected between 1.3 and 2.5)" },
	{ "18446744073709551.616", 0, MAX, 0, AT "factor: '18446744073709551.616' is out of range*" },
	{ "18446744073709551616", 0, MAX, 0, AT "factor: '18446744073709551616' is out of range*" },
	{ "-1", 1000, 10000, 0, AT "factor: '-1' is negative (expected between 1 and 10)" },
	{ ".5", 0, MAX, 0,
	  AT "factor: '.5' is not a decimal number (expected digits with at most 3 fractional "
	     "digits, e.g. 1.25)" },
	{ "1.", 0, MAX, 0, AT "factor: '1.' is not a decimal number*" },
	{ "1.5x", 0, MAX, 0, AT "factor: '1.5x' is not a decimal number*" },
	{ "1e3", 0, MAX, 0, AT "factor: '1e3' is not a decimal number*" },
	{ "1,5", 0, MAX, 0, AT "factor: '1,5' is not a decimal number*" },
	{ "NaN", 0, MAX, 0, AT "factor: 'NaN' is not a decimal number*" },
	{ "", 0, MAX, 0, AT "factor: no value (expected a decimal number)" },
};

START_TEST(test_fixed3)
{
	struct yt_doc *d = yt_doc_new();
	struct fs_error e = { 0 };
	uint64_t v = 0;
	const int rc = cfg_parse_fixed3(scalar(d, fixed3_cases[_i].text, false), "factor",
					fixed3_cases[_i].min, fixed3_cases[_i].max, &v, &e);

	if (fixed3_cases[_i].message) {
		assert_error(rc, &e, fixed3_cases[_i].message);
	} else {
		ck_assert_msg(rc == 0, "'%s': %s", fixed3_cases[_i].text, e.msg);
		ck_assert_uint_eq(v, fixed3_cases[_i].milli);
	}
	yt_doc_free(d);
}
END_TEST

START_TEST(test_fixed3_quoted_and_get)
{
	struct yt_doc *d = yt_doc_new();
	struct yt_node *root = load(d, "smt_slowdown: 1.3\nq: \"1.3\"\n");
	struct fs_error e = { 0 };
	uint64_t v;

	ck_assert_int_eq(cfg_get_fixed3(root, "smt_slowdown", 1000, 1000, 10000, &v, &e), 0);
	ck_assert_uint_eq(v, 1300);
	ck_assert_int_eq(cfg_get_fixed3(root, "absent", 1000, 1000, 10000, &v, &e), 0);
	ck_assert_uint_eq(v, 1000);
	assert_error(cfg_get_fixed3(root, "q", 1000, 1000, 10000, &v, &e), &e,
		     "t.yaml:2:4: q: expected a decimal number, got a string ('1.3' is quoted; remove the quotes)");
	yt_doc_free(d);
}
END_TEST

/* ---- durations --------------------------------------------------------------------- */

static const struct {
	const char *text;
	uint64_t min, max;
	uint64_t ps;
	const char *message;
} duration_cases[] = {
	{ "0", 0, MAX, 0, NULL },
	{ "0.0", 0, MAX, 0, NULL },
	{ "0ps", 0, MAX, 0, NULL },
	{ "0s", 0, MAX, 0, NULL },
	{ "1ps", 0, MAX, 1, NULL },
	{ "1ns", 0, MAX, 1000, NULL },
	{ "1us", 0, MAX, 1000000, NULL },
	{ "1\xc2\xb5s", 0, MAX, 1000000, NULL }, /* micro sign */
	{ "1\xce\xbcs", 0, MAX, 1000000, NULL }, /* Greek mu */
	{ "1ms", 0, MAX, 1000000000, NULL },
	{ "1s", 0, MAX, 1000000000000, NULL },
	{ "1.5ns", 0, MAX, 1500, NULL },
	{ "0.25us", 0, MAX, 250000, NULL },
	{ "2.5ms", 0, MAX, 2500000000, NULL },
	{ "0.000000000001s", 0, MAX, 1, NULL },
	{ "0.001ns", 0, MAX, 1, NULL },
	{ "1.000ps", 0, MAX, 1, NULL },
	{ "10 ns", 0, MAX, 10000, NULL },
	{ "10   ns", 0, MAX, 10000, NULL },
	{ "1_000ns", 0, MAX, 1000000, NULL },
	{ "18446744073709551615ps", 0, MAX, MAX, NULL },
	{ "18446744073709551.615ns", 0, MAX, MAX, NULL },
	{ "18446744.073709551615s", 0, MAX, MAX, NULL },
	{ "10ns", 10000, 1000000000, 10000, NULL },
	{ "1ms", 10000, 1000000000, 1000000000, NULL },
	{ "18446744073709551616ps", 0, MAX, 0,
	  AT "delay: '18446744073709551616ps' is too large (expected at most 18446744073709551615ps, "
	     "about 213 days)" },
	{ "18446744.073709551616s", 0, MAX, 0, AT "delay: '18446744.073709551616s' is too large*" },
	{ "18446745s", 0, MAX, 0, AT "delay: '18446745s' is too large*" },
	{ "99999999999999999999999s", 0, MAX, 0, AT "delay: '99999999999999999999999s' is too large*" },
	{ "0.5ps", 0, MAX, 0,
	  AT "delay: '0.5ps' is not a whole number of picoseconds (expected a multiple of 1ps)" },
	{ "0.0015ns", 0, MAX, 0, AT "delay: '0.0015ns' is not a whole number of picoseconds*" },
	{ "1.0000000000001s", 0, MAX, 0, AT "delay: '1.0000000000001s' is not a whole number*" },
	{ "10", 0, MAX, 0,
	  AT "delay: duration needs a unit: ps, ns, us, ms or s (got '10'; expected e.g. '10ns')" },
	{ "1.5", 0, MAX, 0, AT "delay: duration needs a unit: ps, ns, us, ms or s (got '1.5'*" },
	{ "5 ", 0, MAX, 0, AT "delay: duration needs a unit*" },
	{ "10 msec", 0, MAX, 0,
	  AT "delay: unknown unit 'msec' in '10 msec' (expected ps, ns, us, ms or s)" },
	{ "10NS", 0, MAX, 0, AT "delay: unknown unit 'NS' in '10NS'*" },
	{ "10 cycles", 0, MAX, 0, AT "delay: unknown unit 'cycles' in '10 cycles'*" },
	{ "10ns ", 0, MAX, 0, AT "delay: unknown unit 'ns ' in '10ns '*" },
	{ "1e3ns", 0, MAX, 0,
	  AT "delay: '1e3ns' has an exponent (expected plain digits and a unit, e.g. 1.5us)" },
	{ "1E-3s", 0, MAX, 0, AT "delay: '1E-3s' has an exponent*" },
	{ "--5", 0, MAX, 0,
	  AT "delay: '--5' is not a duration (expected a number and a unit: ps, ns, us, ms or s, "
	     "e.g. 1.5us)" },
	{ "-5ns", 0, MAX, 0,
	  AT "delay: '-5ns' is negative (expected a duration of 0 or more, e.g. 1.5us)" },
	{ "-.5ns", 0, MAX, 0, AT "delay: '-.5ns' is negative*" },
	{ "+5ns", 0, MAX, 0, AT "delay: '+5ns' has a sign (expected digits and a unit, e.g. 1.5us)" },
	{ "NaN", 0, MAX, 0, AT "delay: 'NaN' is not a duration*" },
	{ "inf", 0, MAX, 0, AT "delay: 'inf' is not a duration*" },
	{ "ns", 0, MAX, 0, AT "delay: 'ns' is not a duration*" },
	{ ".5ns", 0, MAX, 0, AT "delay: '.5ns' is not a duration*" },
	{ "5.ns", 0, MAX, 0, AT "delay: '5.ns' is not a duration*" },
	{ "5_ns", 0, MAX, 0, AT "delay: '5_ns' is not a duration*" },
	{ "0x10ns", 0, MAX, 0, AT "delay: unknown unit 'x10ns' in '0x10ns'*" },
	{ "", 0, MAX, 0, AT "delay: no value (expected a duration)" },
	{ "5ns", 10000, 1000000000, 0,
	  AT "delay: '5ns' is out of range (expected between 10ns and 1ms)" },
	{ "1.000001ms", 10000, 1000000000, 0, AT "delay: '1.000001ms' is out of range*" },
	{ "0", 1, MAX, 0, AT "delay: '0' is out of range (expected at least 1ps)" },
	{ "2us", 0, 1500000, 0, AT "delay: '2us' is out of range (expected at most 1.5us)" },
};

START_TEST(test_duration)
{
	struct yt_doc *d = yt_doc_new();
	struct fs_error e = { 0 };
	uint64_t ps = 777;
	const int rc = cfg_parse_duration(scalar(d, duration_cases[_i].text, false), "delay",
					  duration_cases[_i].min, duration_cases[_i].max, &ps, &e);

	if (duration_cases[_i].message) {
		assert_error(rc, &e, duration_cases[_i].message);
		ck_assert_uint_eq(ps, 777);
	} else {
		ck_assert_msg(rc == 0, "'%s': %s", duration_cases[_i].text, e.msg);
		ck_assert_uint_eq(ps, duration_cases[_i].ps);
	}
	yt_doc_free(d);
}
END_TEST

START_TEST(test_duration_quoted_and_get)
{
	struct yt_doc *d = yt_doc_new();
	struct yt_node *root = load(d, "think: 1.5us\nq: '10ns'\nm: {a: 1}\n");
	struct fs_error e = { 0 };
	uint64_t ps;

	ck_assert_int_eq(cfg_get_duration(root, "think", 5, 0, MAX, &ps, &e), 0);
	ck_assert_uint_eq(ps, 1500000);
	ck_assert_int_eq(cfg_get_duration(root, "absent", 5, 0, MAX, &ps, &e), 0);
	ck_assert_uint_eq(ps, 5);
	assert_error(cfg_get_duration(root, "q", 5, 0, MAX, &ps, &e), &e,
		     "t.yaml:2:4: q: expected a duration, got a string ('10ns' is quoted; remove the quotes)");
	assert_error(cfg_get_duration(root, "m", 5, 0, MAX, &ps, &e), &e,
		     "t.yaml:3:4: m: expected a duration, got a map");
	yt_doc_free(d);
}
END_TEST

/* ---- costs ---------------------------------------------------------------------------- */

static const struct {
	const char *text;
	uint64_t amount;
	enum fs_cost_unit unit;
	const char *message;
} cost_cases[] = {
	{ "250 cycles", 250000, FS_COST_MILLICYCLES, NULL },
	{ "250cycles", 250000, FS_COST_MILLICYCLES, NULL },
	{ "1 cycle", 1000, FS_COST_MILLICYCLES, NULL },
	{ "0.5 cycles", 500, FS_COST_MILLICYCLES, NULL },
	{ "2.125 cycles", 2125, FS_COST_MILLICYCLES, NULL },
	{ "0.001 cycles", 1, FS_COST_MILLICYCLES, NULL },
	{ "0 cycles", 0, FS_COST_MILLICYCLES, NULL },
	{ "18446744073709551.615 cycles", MAX, FS_COST_MILLICYCLES, NULL },
	{ "10ns", 10000, FS_COST_PS, NULL },
	{ "8.1ns", 8100, FS_COST_PS, NULL },
	{ "0", 0, FS_COST_PS, NULL },
	{ "1.0005 cycles", 0, FS_COST_PS,
	  AT "cost: '1.0005 cycles' has more than 3 fractional digits (expected a multiple of 0.001 cycles)" },
	{ "18446744073709551.616 cycles", 0, FS_COST_PS,
	  AT "cost: '18446744073709551.616 cycles' is too large (expected at most "
	     "18446744073709551.615 cycles)" },
	{ "10", 0, FS_COST_PS,
	  AT "cost: cost needs a unit: ps, ns, us, ms, s or cycles (got '10'; expected e.g. '10ns')" },
	{ "10 cycl", 0, FS_COST_PS,
	  AT "cost: unknown unit 'cycl' in '10 cycl' (expected ps, ns, us, ms, s or cycles)" },
	{ "10 Cycles", 0, FS_COST_PS, AT "cost: unknown unit 'Cycles'*" },
	{ "0.5ps", 0, FS_COST_PS, AT "cost: '0.5ps' is not a whole number of picoseconds*" },
	{ "-1 cycles", 0, FS_COST_PS, AT "cost: '-1 cycles' is negative*" },
	{ "1e2 cycles", 0, FS_COST_PS, AT "cost: '1e2 cycles' has an exponent*" },
	{ "cycles", 0, FS_COST_PS, AT "cost: 'cycles' is not a cost*" },
};

START_TEST(test_cost)
{
	struct yt_doc *d = yt_doc_new();
	struct fs_error e = { 0 };
	struct fs_cost c = { 42, FS_COST_PS };
	const int rc = cfg_parse_cost(scalar(d, cost_cases[_i].text, false), "cost", &c, &e);

	if (cost_cases[_i].message) {
		assert_error(rc, &e, cost_cases[_i].message);
	} else {
		ck_assert_msg(rc == 0, "'%s': %s", cost_cases[_i].text, e.msg);
		ck_assert_uint_eq(c.amount, cost_cases[_i].amount);
		ck_assert_int_eq(c.unit, cost_cases[_i].unit);
	}
	yt_doc_free(d);
}
END_TEST

static const struct {
	struct fs_cost cost;
	uint64_t freq_khz;
	uint64_t ps;
} cost_ps_cases[] = {
	{ { 123, FS_COST_PS }, 2000000, 123 },
	{ { 123, FS_COST_PS }, 0, 123 },
	{ { 250000, FS_COST_MILLICYCLES }, 2000000, 125000 }, /* 250 cycles at 2.0GHz: 125ns */
	{ { 1000, FS_COST_MILLICYCLES }, 3000000, 333 },      /* 333.33 */
	{ { 2000, FS_COST_MILLICYCLES }, 3000000, 667 },      /* 666.67 */
	{ { 1, FS_COST_MILLICYCLES }, 2000000, 1 },           /* 0.5: half rounds up */
	{ { 1, FS_COST_MILLICYCLES }, 3000000, 0 },           /* 0.33 */
	{ { 0, FS_COST_MILLICYCLES }, 3000000, 0 },
	{ { 1000, FS_COST_MILLICYCLES }, 1, 1000000000 },     /* one cycle at 1kHz: 1ms */
	{ { 20000, FS_COST_MILLICYCLES }, 2500000, 8000 },    /* 20 cycles at 2.5GHz: 8ns */
	{ { MAX, FS_COST_MILLICYCLES }, 1000000, MAX },       /* 1GHz: 1 ps per millicycle */
	{ { MAX, FS_COST_MILLICYCLES }, 1, MAX },             /* saturates */
	{ { MAX - 1, FS_COST_MILLICYCLES }, 999999, MAX },    /* just over: saturates */
	{ { 1000, FS_COST_MILLICYCLES }, 0, MAX },            /* no clock */
};

START_TEST(test_cost_ps)
{
	ck_assert_uint_eq(fs_cost_ps(cost_ps_cases[_i].cost, cost_ps_cases[_i].freq_khz),
			  cost_ps_cases[_i].ps);
}
END_TEST

START_TEST(test_cost_helpers_and_get)
{
	struct yt_doc *d = yt_doc_new();
	struct yt_node *root = load(d, "line_hit: 4 cycles\n");
	struct fs_error e = { 0 };
	struct fs_cost c;

	ck_assert_uint_eq(fs_cost_of_cycles(250).amount, 250000);
	ck_assert_int_eq(fs_cost_of_cycles(250).unit, FS_COST_MILLICYCLES);
	ck_assert_uint_eq(fs_cost_of_cycles(MAX).amount, MAX); /* saturates */
	ck_assert_uint_eq(fs_cost_of_ps(77).amount, 77);
	ck_assert_int_eq(fs_cost_of_ps(77).unit, FS_COST_PS);
	ck_assert_int_eq(cfg_get_cost(root, "line_hit", fs_cost_of_ps(1), &c, &e), 0);
	ck_assert_uint_eq(c.amount, 4000);
	ck_assert_uint_eq(fs_cost_ps(c, 2000000), 2000);
	ck_assert_int_eq(cfg_get_cost(root, "absent", fs_cost_of_ps(1), &c, &e), 0);
	ck_assert_uint_eq(c.amount, 1);
	ck_assert_int_eq(c.unit, FS_COST_PS);
	yt_doc_free(d);
}
END_TEST

/* ---- frequencies ------------------------------------------------------------------------ */

static const struct {
	const char *text;
	uint64_t khz;
	const char *message;
} frequency_cases[] = {
	{ "2.0GHz", 2000000, NULL },
	{ "2GHz", 2000000, NULL },
	{ "2.5 GHz", 2500000, NULL },
	{ "3ghz", 3000000, NULL },
	{ "2000MHz", 2000000, NULL },
	{ "2000 mhz", 2000000, NULL },
	{ "2000000kHz", 2000000, NULL },
	{ "1KHZ", 1, NULL },
	{ "0.001MHz", 1, NULL },
	{ "2.100001GHz", 2100001, NULL },
	{ "18446744073709551615kHz", MAX, NULL },
	{ "1.0000005GHz", 0,
	  AT "frequency: '1.0000005GHz' is not a whole number of kHz (expected a multiple of 1kHz)" },
	{ "0.5kHz", 0, AT "frequency: '0.5kHz' is not a whole number of kHz*" },
	{ "0GHz", 0, AT "frequency: '0GHz' is zero (expected a frequency above 0, e.g. 2.5GHz)" },
	{ "2.0", 0,
	  AT "frequency: frequency needs a unit: GHz, MHz or kHz (got '2.0'; expected e.g. '2.0GHz')" },
	{ "0", 0, AT "frequency: frequency needs a unit*" },
	{ "2 Hz", 0, AT "frequency: unknown unit 'Hz' in '2 Hz' (expected GHz, MHz or kHz)" },
	{ "2 GHz/s", 0, AT "frequency: unknown unit 'GHz/s'*" },
	{ "18446744073709551616kHz", 0,
	  AT "frequency: '18446744073709551616kHz' is too large (expected at most 18446744073709551615kHz)" },
	{ "18446744073710GHz", 0, AT "frequency: '18446744073710GHz' is too large*" },
	{ "-2GHz", 0, AT "frequency: '-2GHz' is negative*" },
	{ "fast", 0, AT "frequency: 'fast' is not a frequency*" },
};

START_TEST(test_frequency)
{
	struct yt_doc *d = yt_doc_new();
	struct fs_error e = { 0 };
	uint64_t khz = 5;
	const int rc = cfg_parse_frequency(scalar(d, frequency_cases[_i].text, false), "frequency",
					   &khz, &e);

	if (frequency_cases[_i].message) {
		assert_error(rc, &e, frequency_cases[_i].message);
	} else {
		ck_assert_msg(rc == 0, "'%s': %s", frequency_cases[_i].text, e.msg);
		ck_assert_uint_eq(khz, frequency_cases[_i].khz);
	}
	yt_doc_free(d);
}
END_TEST

/* ---- enums and strings -------------------------------------------------------------------- */

static const char *const hash_names[] = { "jhash", "murmur3", "xxhash", NULL };

static const struct {
	const char *text;
	bool quoted;
	int index;
	const char *message;
} enum_cases[] = {
	{ "jhash", false, 0, NULL },
	{ "murmur3", true, 1, NULL },
	{ "xxhash", false, 2, NULL },
	{ "jhas", false, 0, AT "unknown hash 'jhas' (did you mean 'jhash'?; one of: jhash, murmur3, xxhash)" },
	{ "JHASH", false, 0, AT "unknown hash 'JHASH' (did you mean 'jhash'?; one of: jhash, murmur3, xxhash)" },
	{ "murmur", false, 0, AT "unknown hash 'murmur' (did you mean 'murmur3'?*" },
	{ "sha256", false, 0, AT "unknown hash 'sha256' (one of: jhash, murmur3, xxhash)" },
	{ "", false, 0, AT "unknown hash '' (one of: jhash, murmur3, xxhash)" },
};

START_TEST(test_enum)
{
	struct yt_doc *d = yt_doc_new();
	struct fs_error e = { 0 };
	int v = -1;
	const int rc = cfg_parse_enum(scalar(d, enum_cases[_i].text, enum_cases[_i].quoted), "hash",
				      hash_names, &v, &e);

	if (enum_cases[_i].message) {
		assert_error(rc, &e, enum_cases[_i].message);
		ck_assert_int_eq(v, -1);
	} else {
		ck_assert_msg(rc == 0, "'%s': %s", enum_cases[_i].text, e.msg);
		ck_assert_int_eq(v, enum_cases[_i].index);
	}
	yt_doc_free(d);
}
END_TEST

START_TEST(test_enum_get_and_kinds)
{
	struct yt_doc *d = yt_doc_new();
	struct yt_node *root = load(d, "hash: xxhash\nbad: [jhash]\n");
	struct fs_error e = { 0 };
	int v;

	ck_assert_int_eq(cfg_get_enum(root, "hash", hash_names, 0, &v, &e), 0);
	ck_assert_int_eq(v, 2);
	ck_assert_int_eq(cfg_get_enum(root, "absent", hash_names, 1, &v, &e), 0);
	ck_assert_int_eq(v, 1);
	assert_error(cfg_get_enum(root, "bad", hash_names, 1, &v, &e), &e,
		     "t.yaml:2:6: bad: expected one of: jhash, murmur3, xxhash, got a sequence");
	yt_doc_free(d);
}
END_TEST

START_TEST(test_string)
{
	struct yt_doc *d = yt_doc_new();
	struct yt_node *root = load(d, "name: demo\nnum: \"1\"\nplain_num: 1\nm: {}\n");
	struct fs_error e = { 0 };
	const char *s = NULL;

	ck_assert_int_eq(cfg_get_string(root, "name", "dflt", &s, &e), 0);
	ck_assert_str_eq(s, "demo");
	ck_assert_int_eq(cfg_get_string(root, "num", "dflt", &s, &e), 0);
	ck_assert_str_eq(s, "1");
	ck_assert_int_eq(cfg_get_string(root, "plain_num", "dflt", &s, &e), 0);
	ck_assert_str_eq(s, "1");
	ck_assert_int_eq(cfg_get_string(root, "absent", "dflt", &s, &e), 0);
	ck_assert_str_eq(s, "dflt");
	ck_assert_int_eq(cfg_get_string(root, "absent", NULL, &s, &e), 0);
	ck_assert_ptr_null(s);
	assert_error(cfg_get_string(root, "m", "dflt", &s, &e), &e,
		     "t.yaml:4:4: m: expected a string, got a map");
	yt_doc_free(d);
}
END_TEST

/* ---- keys -------------------------------------------------------------------------------- */

static const char *const workload_keys[] = { "threads", "ops", "think_time", "cores_per_node", NULL };

static const struct {
	const char *word;
	const char *nearest; /* NULL: no suggestion */
} nearest_cases[] = {
	{ "treads", "threads" },        /* one deletion */
	{ "thraeds", "threads" },       /* transposition: two substitutions */
	{ "Threads", "threads" },       /* case is ignored */
	{ "threads", "threads" },
	{ "op", "ops" },
	{ "thinktime", "think_time" },
	{ "coresPerNode", "cores_per_node" }, /* distance 2 */
	{ "cores_per_nod", "cores_per_node" },
	{ "xyz", NULL },                 /* 3 from "ops": more than 2 */
	{ "workers", NULL },
	{ "thr", NULL },                 /* 4 from "threads" */
	{ "cores_pr_nodes", "cores_per_node" }, /* 2 <= 14/3 */
	{ "", NULL },                    /* 3 from "ops" */
};

START_TEST(test_nearest)
{
	const char *got = cfg_nearest(nearest_cases[_i].word, workload_keys);

	if (nearest_cases[_i].nearest)
		ck_assert_pstr_eq(got, nearest_cases[_i].nearest);
	else
		ck_assert_msg(got == NULL, "'%s' -> '%s'", nearest_cases[_i].word, got);
}
END_TEST

START_TEST(test_nearest_edges)
{
	static const char *const ties[] = { "ac", "ad", NULL };
	static const char *const short_names[] = { "b", NULL };
	static const char *const none[] = { NULL };
	char *long_word = malloc(100001);
	char long_name[200];
	const char *long_names[] = { long_name, NULL };

	ck_assert_str_eq(cfg_nearest("ab", ties), "ac"); /* the first of equals */
	ck_assert_str_eq(cfg_nearest("a", short_names), "b"); /* within 2, as documented */
	ck_assert_ptr_null(cfg_nearest("a", none));
	ck_assert_ptr_null(cfg_nearest(NULL, ties));
	ck_assert_ptr_null(cfg_nearest("a", NULL));
	ck_assert_ptr_nonnull(long_word);
	memset(long_word, 'x', 100000);
	long_word[100000] = '\0';
	ck_assert_ptr_null(cfg_nearest(long_word, workload_keys));
	memset(long_name, 'x', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	ck_assert_ptr_null(cfg_nearest(long_name, long_names)); /* too long to suggest */
	free(long_word);
}
END_TEST

START_TEST(test_check_keys)
{
	struct yt_doc *d = yt_doc_new();
	struct fs_error e = { 0 };
	struct yt_node *typo = load(d, "threads: 4\ntreads: 5\n");
	struct yt_node *unknown = load(d, "ops: 1\nzzz: 1\n");
	struct yt_node *good = load(d, "ops: 1\nthreads: 2\n");
	struct yt_node *seq = load(d, "- 1\n");
	static const char *const no_keys[] = { NULL };

	assert_error(cfg_check_keys(typo, "workload", workload_keys, &e), &e,
		     "t.yaml:2:1: unknown key 'treads' in workload (did you mean 'threads'?)");
	assert_error(cfg_check_keys(unknown, "workload", workload_keys, &e), &e,
		     "t.yaml:2:1: unknown key 'zzz' in workload (expected one of: threads, ops, "
		     "think_time, cores_per_node)");
	assert_error(cfg_check_keys(good, "nothing", no_keys, &e), &e,
		     "t.yaml:1:1: unknown key 'ops' in nothing (expected no keys)");
	ck_assert_int_eq(cfg_check_keys(good, "workload", workload_keys, &e), 0);
	assert_error(cfg_check_keys(seq, "workload", workload_keys, &e), &e,
		     "t.yaml:1:1: workload: expected a map, got a sequence");
	yt_doc_free(d);
}
END_TEST

START_TEST(test_require_and_expect)
{
	struct yt_doc *d = yt_doc_new();
	struct fs_error e = { 0 };
	struct yt_node *root = load(d, "\n  threads: 4\n  topology: x\n");

	ck_assert_int_eq(cfg_require(root, "threads", "workload", &e), 0);
	assert_error(cfg_require(root, "ops", "workload", &e), &e, "t.yaml:2:3: missing key 'ops' in workload");
	assert_error(cfg_require(NULL, "ops", "workload", &e), &e, "missing key 'ops' in workload");
	assert_error(cfg_require(yt_get(root, "threads"), "ops", "workload", &e), &e,
		     "t.yaml:2:12: workload: expected a map, got a scalar");
	ck_assert_int_eq(cfg_expect(root, YT_MAP, "workload", &e), 0);
	assert_error(cfg_expect(yt_get(root, "topology"), YT_MAP, "topology", &e), &e,
		     "t.yaml:3:13: topology: expected a map, got a scalar");
	assert_error(cfg_expect(root, YT_SEQ, "cpus", &e), &e, "t.yaml:2:3: cpus: expected a sequence, got a map");
	assert_error(cfg_expect(NULL, YT_SEQ, "cpus", &e), &e, "cpus: missing (expected a sequence)");
	yt_doc_free(d);
}
END_TEST

/* ---- robustness -------------------------------------------------------------------------- */

/* After a reader's call: when it failed (rc -1), its message is there, of bad
 * input and at the scalar (starts with `prefix`); when it succeeded, no message
 * was left. Clears `e` for the next call. */
static void assert_located(int rc, struct fs_error *e, const char *prefix)
{
	if (rc)
		ck_assert_msg(e->status == FS_ERR_INPUT && strncmp(e->msg, prefix, strlen(prefix)) == 0, "%d %s",
			      e->status, e->msg);
	else
		ck_assert_int_eq(e->status, 0);
	memset(e, 0, sizeof(*e));
}

/* Random strings over the characters numbers and units are made of, through
 * every reader: each either succeeds or fails with a located message (and,
 * under ASan/UBSan, without reading past the string or overflowing). */
START_TEST(test_random_scalars)
{
	static const char alphabet[] = "0123456789._ -+eExXabfGHMkKmnpsuyczlo\xc2\xb5\xce\xbc";
	static const char *const names[] = { "a", "bb", NULL };
	uint64_t state = 0x2545f4914f6cdd1dull;
	struct yt_doc *d = yt_doc_new();
	char text[24];

	for (int iter = 0; iter < 100000; iter++) {
		struct fs_error e = { 0 };
		struct yt_node *n;
		const size_t len = 1 + iter % (sizeof(text) - 1);
		uint64_t v;
		bool b;
		struct fs_cost c;
		int idx, rc;

		for (size_t i = 0; i < len; i++) {
			state ^= state << 13;
			state ^= state >> 7;
			state ^= state << 17;
			text[i] = alphabet[state % (sizeof(alphabet) - 1)];
		}
		text[len] = '\0';
		n = scalar(d, text, false);
		assert_located(cfg_parse_u64(n, "x", 0, MAX, &v, &e), &e, AT "x: ");
		assert_located(cfg_parse_duration(n, "x", 0, MAX, &v, &e), &e, AT "x: ");
		rc = cfg_parse_cost(n, "x", &c, &e);
		if (rc == 0)
			(void)fs_cost_ps(c, 1 + state % 5000000);
		assert_located(rc, &e, AT "x: ");
		assert_located(cfg_parse_frequency(n, "x", &v, &e), &e, AT "x: ");
		assert_located(cfg_parse_fixed3(n, "x", 0, MAX, &v, &e), &e, AT "x: ");
		assert_located(cfg_parse_bool(n, "x", &b, &e), &e, AT "x: ");
		assert_located(cfg_parse_enum(n, "x", names, &idx, &e), &e, AT "unknown x");
	}
	yt_doc_free(d);
}
END_TEST

#define N(table) (int)(sizeof(table) / sizeof((table)[0]))

static Suite *config_suite(void)
{
	Suite *s = suite_create("config");
	TCase *tc;

	tc = tcase_create("integers");
	tcase_add_loop_test(tc, test_u64, 0, N(u64_cases));
	tcase_add_test(tc, test_u64_wrong_kind);
	tcase_add_test(tc, test_get_u64_u32);
	suite_add_tcase(s, tc);

	tc = tcase_create("booleans");
	tcase_add_loop_test(tc, test_bool, 0, N(bool_cases));
	tcase_add_test(tc, test_get_bool);
	suite_add_tcase(s, tc);

	tc = tcase_create("fixed3");
	tcase_add_loop_test(tc, test_fixed3, 0, N(fixed3_cases));
	tcase_add_test(tc, test_fixed3_quoted_and_get);
	suite_add_tcase(s, tc);

	tc = tcase_create("durations");
	tcase_add_loop_test(tc, test_duration, 0, N(duration_cases));
	tcase_add_test(tc, test_duration_quoted_and_get);
	suite_add_tcase(s, tc);

	tc = tcase_create("costs");
	tcase_add_loop_test(tc, test_cost, 0, N(cost_cases));
	tcase_add_loop_test(tc, test_cost_ps, 0, N(cost_ps_cases));
	tcase_add_test(tc, test_cost_helpers_and_get);
	suite_add_tcase(s, tc);

	tc = tcase_create("sizes");
	tcase_add_loop_test(tc, test_size, 0, N(size_cases));
	tcase_add_test(tc, test_size_quoted_and_get);
	suite_add_tcase(s, tc);

	tc = tcase_create("frequencies");
	tcase_add_loop_test(tc, test_frequency, 0, N(frequency_cases));
	suite_add_tcase(s, tc);

	tc = tcase_create("enums_strings");
	tcase_add_loop_test(tc, test_enum, 0, N(enum_cases));
	tcase_add_test(tc, test_enum_get_and_kinds);
	tcase_add_test(tc, test_string);
	suite_add_tcase(s, tc);

	tc = tcase_create("keys");
	tcase_add_loop_test(tc, test_nearest, 0, N(nearest_cases));
	tcase_add_test(tc, test_nearest_edges);
	tcase_add_test(tc, test_check_keys);
	tcase_add_test(tc, test_require_and_expect);
	suite_add_tcase(s, tc);

	tc = tcase_create("robustness");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_random_scalars);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(config_suite());
}
