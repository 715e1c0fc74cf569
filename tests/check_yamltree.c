/* SPDX-License-Identifier: MIT */
/* Tests of sim/core/yamltree.c: loading with marks, every rejection, limits, --set,
 * merge, copy, builders and emit round trips. Expected lines and columns were
 * counted by hand in the inputs below (1-based, as editors show them). */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/core/yamltree.h"
#include "tests/testutil.h"

#define ck_assert_contains(haystack, needle)                                                  \
	ck_assert_msg(strstr((haystack), (needle)) != NULL, "'%s' does not contain '%s'", (haystack), \
		      (needle))

static struct yt_node *load(struct yt_doc *d, const char *text, struct fs_error *e)
{
	return yt_load_string(d, "t.yaml", text, strlen(text), e);
}

static struct yt_node *load_ok(struct yt_doc *d, const char *text)
{
	struct fs_error e = { 0 };
	struct yt_node *root = load(d, text, &e);

	ck_assert_msg(root != NULL, "load failed: %s", e.msg);
	ck_assert_int_eq(e.status, 0);
	return root;
}

static void assert_mark(struct fs_mark m, const char *file, unsigned line, unsigned col)
{
	ck_assert_str_eq(m.file, file);
	ck_assert_uint_eq(m.line, line);
	ck_assert_uint_eq(m.col, col);
}

static void assert_scalar(const struct yt_node *n, const char *value, bool quoted)
{
	ck_assert_ptr_nonnull(n);
	ck_assert_int_eq(n->kind, YT_SCALAR);
	ck_assert_str_eq(n->scalar, value);
	ck_assert_int_eq(n->quoted, quoted);
}

/* Same kinds, keys, scalars and quoted flags. */
static bool same_tree(const struct yt_node *a, const struct yt_node *b)
{
	if (a->kind != b->kind)
		return false;
	if (a->kind == YT_SCALAR)
		return strcmp(a->scalar, b->scalar) == 0 && a->quoted == b->quoted;
	if (a->len != b->len)
		return false;
	for (size_t i = 0; i < a->len; i++) {
		if (a->kind == YT_MAP && strcmp(a->keys[i], b->keys[i]) != 0)
			return false;
		if (!same_tree(a->items[i], b->items[i]))
			return false;
	}
	return true;
}

/* ---- loading --------------------------------------------------------------- */

START_TEST(test_load_marks)
{
	struct yt_doc *d = yt_doc_new();
	const struct yt_node *root, *list, *nested, *seq, *map_b;

	root = load_ok(d, "name: demo\n"
			  "list:\n"
			  "  - 1\n"
			  "  - \"two\"\n"
			  "nested: {a: [x, y], b: 'q'}\n");
	ck_assert_int_eq(root->kind, YT_MAP);
	assert_mark(root->mark, "t.yaml", 1, 1);
	ck_assert_uint_eq(root->len, 3);
	ck_assert_str_eq(root->keys[0], "name");
	ck_assert_str_eq(root->keys[1], "list");
	ck_assert_str_eq(root->keys[2], "nested");
	assert_mark(root->key_marks[0], "t.yaml", 1, 1);
	assert_mark(root->key_marks[1], "t.yaml", 2, 1);
	assert_mark(root->key_marks[2], "t.yaml", 5, 1);
	assert_scalar(root->items[0], "demo", false);
	assert_mark(root->items[0]->mark, "t.yaml", 1, 7);

	list = yt_get(root, "list");
	ck_assert_int_eq(list->kind, YT_SEQ);
	assert_mark(list->mark, "t.yaml", 3, 3);
	ck_assert_uint_eq(list->len, 2);
	assert_scalar(list->items[0], "1", false);
	assert_mark(list->items[0]->mark, "t.yaml", 3, 5);
	assert_scalar(list->items[1], "two", true);
	assert_mark(list->items[1]->mark, "t.yaml", 4, 5);

	nested = yt_get(root, "nested");
	ck_assert_int_eq(nested->kind, YT_MAP);
	assert_mark(nested->mark, "t.yaml", 5, 9);
	assert_mark(nested->key_marks[0], "t.yaml", 5, 10);
	seq = yt_get(nested, "a");
	assert_mark(seq->mark, "t.yaml", 5, 13);
	assert_scalar(seq->items[0], "x", false);
	assert_mark(seq->items[0]->mark, "t.yaml", 5, 14);
	assert_mark(seq->items[1]->mark, "t.yaml", 5, 17);
	assert_mark(nested->key_marks[1], "t.yaml", 5, 21);
	map_b = yt_get(nested, "b");
	assert_scalar(map_b, "q", true);
	assert_mark(map_b->mark, "t.yaml", 5, 24);
	yt_doc_free(d);
}
END_TEST

START_TEST(test_load_block_scalars_are_quoted)
{
	struct yt_doc *d = yt_doc_new();
	const struct yt_node *root = load_ok(d, "text: |\n  line1\n  line2\nfolded: >\n  a\n  b\nplain: a b\n");

	assert_scalar(yt_get(root, "text"), "line1\nline2\n", true);
	assert_mark(yt_get(root, "text")->mark, "t.yaml", 1, 7);
	assert_scalar(yt_get(root, "folded"), "a b\n", true);
	assert_scalar(yt_get(root, "plain"), "a b", false);
	yt_doc_free(d);
}
END_TEST

static const struct {
	const char *text;
	unsigned line, col;
} empty_inputs[] = {
	{ "", 1, 1 },
	{ "\n\n", 1, 1 },
	{ "# only a comment\n# and another\n", 1, 1 },
	{ "---\n", 2, 1 },
	{ "--- # comment\n...\n", 2, 1 },
};

START_TEST(test_load_empty_is_empty_map)
{
	struct yt_doc *d = yt_doc_new();
	const struct yt_node *root = load_ok(d, empty_inputs[_i].text);

	ck_assert_int_eq(root->kind, YT_MAP);
	ck_assert_uint_eq(root->len, 0);
	assert_mark(root->mark, "t.yaml", empty_inputs[_i].line, empty_inputs[_i].col);
	yt_doc_free(d);
}
END_TEST

START_TEST(test_load_root_kinds)
{
	struct yt_doc *d = yt_doc_new();
	const struct yt_node *seq = load_ok(d, "- a\n- b\n");
	const struct yt_node *scalar = load_ok(d, "hello\n");
	const struct yt_node *quoted = load_ok(d, "\"\"\n");

	ck_assert_int_eq(seq->kind, YT_SEQ);
	ck_assert_uint_eq(seq->len, 2);
	assert_scalar(seq->items[1], "b", false);
	assert_mark(seq->items[1]->mark, "t.yaml", 2, 3);
	assert_scalar(scalar, "hello", false);
	assert_scalar(quoted, "", true); /* only the null document is {} */
	yt_doc_free(d);
}
END_TEST

START_TEST(test_get_and_find)
{
	struct yt_doc *d = yt_doc_new();
	const struct yt_node *root = load_ok(d, "a: 1\nb: [2]\nsame: {a: 3}\n");

	ck_assert_int_eq(yt_find(root, "a"), 0);
	ck_assert_int_eq(yt_find(root, "b"), 1);
	ck_assert_int_eq(yt_find(root, "c"), -1);
	ck_assert_int_eq(yt_find(NULL, "a"), -1);
	ck_assert_int_eq(yt_find(yt_get(root, "b"), "a"), -1); /* not a map */
	ck_assert_ptr_null(yt_get(root, "zzz"));
	ck_assert_ptr_null(yt_get(NULL, "a"));
	assert_scalar(yt_get(yt_get(root, "same"), "a"), "3", false); /* same key, other map */
	ck_assert_str_eq(yt_kind_name(YT_SCALAR), "scalar");
	ck_assert_str_eq(yt_kind_name(YT_MAP), "map");
	ck_assert_str_eq(yt_kind_name(YT_SEQ), "sequence");
	yt_doc_free(d);
}
END_TEST

START_TEST(test_load_file)
{
	static const char text[] = "threads: 4\nname: x\n";
	char *path = tu_write_temp(text);
	char copy[64];
	struct yt_doc *d = yt_doc_new();
	struct fs_error e = { 0 };
	const struct yt_node *root;

	snprintf(copy, sizeof(copy), "%s", path);
	root = yt_load_file(d, copy, &e);
	ck_assert_msg(root != NULL, "%s", e.msg);
	/* The doc keeps its own copy of the file name. */
	memset(copy, 'x', sizeof(copy) - 1);
	assert_mark(yt_get(root, "name")->mark, path, 2, 7);
	ck_assert_ptr_ne(yt_get(root, "name")->mark.file, copy);
	unlink(path);
	free(path);
	yt_doc_free(d);
}
END_TEST

START_TEST(test_load_file_errors)
{
	struct yt_doc *d = yt_doc_new();
	struct fs_error e = { 0 };

	ck_assert_ptr_null(yt_load_file(d, "/nonexistent/dir/x.yaml", &e));
	ck_assert_int_eq(e.status, FS_ERR_INPUT);
	ck_assert_str_eq(e.msg, "cannot read /nonexistent/dir/x.yaml: No such file or directory");

	e = (struct fs_error){ 0 };
	ck_assert_ptr_null(yt_load_file(d, "/tmp", &e));
	ck_assert_int_eq(e.status, FS_ERR_INPUT);
	ck_assert_str_eq(e.msg, "cannot read /tmp: it is a directory, not a YAML file");

	/* a FIFO is refused without waiting for a writer (issue 38), a device too, but
	 * /dev/null is the empty input */
	{
		char fifo[64];

		snprintf(fifo, sizeof(fifo), "/tmp/futexsim-yt-%ld.fifo", (long)getpid());
		unlink(fifo);
		ck_assert_int_eq(mkfifo(fifo, 0600), 0);
		e = (struct fs_error){ 0 };
		ck_assert_ptr_null(yt_load_file(d, fifo, &e));
		ck_assert_msg(strstr(e.msg, ": it is a FIFO, not a YAML file"), "%s", e.msg);
		unlink(fifo);
	}
	e = (struct fs_error){ 0 };
	ck_assert_ptr_null(yt_load_file(d, "/dev/zero", &e));
	ck_assert_str_eq(e.msg, "cannot read /dev/zero: it is a device, not a YAML file");
	e = (struct fs_error){ 0 };
	ck_assert_ptr_nonnull(yt_load_file(d, "/dev/null", &e));
	yt_doc_free(d);
}
END_TEST

/* ---- rejections ---------------------------------------------------------------- */

static const struct {
	const char *text;
	size_t len; /* 0: strlen(text) */
	const char *message;
} bad_inputs[] = {
	{ "a: 1\nb: 2\na: 3\n", 0, "t.yaml:3:1: duplicate key 'a' (first at line 1)" },
	{ "outer:\n  x: 1\n  y: 2\n  x: 3\n", 0, "t.yaml:4:3: duplicate key 'x' (first at line 2)" },
	{ "{a: 1, a: 2}", 0, "t.yaml:1:8: duplicate key 'a' (first at line 1)" },
	{ "a: &anchor 1\n", 0,
	  "t.yaml:1:4: anchor '&anchor': anchors and aliases are not supported (expected plain values; "
	  "repeat the value instead)" },
	{ "a: 1\nb: *x\n", 0,
	  "t.yaml:2:4: alias '*x': anchors and aliases are not supported (expected plain values; "
	  "repeat the value instead)" },
	{ "- &s [1]\n", 0, "t.yaml:1:3: anchor '&s': anchors and aliases are not supported" },
	{ "a: !!int 1\n", 0,
	  "t.yaml:1:4: tag 'tag:yaml.org,2002:int': explicit tags are not supported (expected an "
	  "untagged value)" },
	{ "a: !custom {b: 1}\n", 0, "t.yaml:1:4: tag '!custom': explicit tags are not supported" },
	{ "? [a, b]\n: c\n", 0, "t.yaml:1:3: a sequence cannot be a key (expected a scalar key)" },
	{ "{{a: 1}: 2}", 0, "t.yaml:1:2: a map cannot be a key (expected a scalar key)" },
	{ "a: 1\n---\nb: 2\n", 0, "t.yaml:2:1: more than one document (expected a single YAML document)" },
	{ "- a\n...\n--- b\n", 0, "t.yaml:3:1: more than one document" },
	{ "a: [1, 2\n", 0,
	  "t.yaml:2:1: YAML syntax error: did not find expected ',' or ']' (while parsing a flow "
	  "sequence at line 1, column 4)" },
	{ "a: b: c\n", 0, "t.yaml:1:5: YAML syntax error: mapping values are not allowed in this context" },
	{ "a:\n\tb: 1\n", 0,
	  "t.yaml:2:1: YAML syntax error: found character that cannot start any token (while "
	  "scanning for the next token at line 2, column 1)" },
	{ "a: 'open\n", 0, "t.yaml:2:1: YAML syntax error: found unexpected end of stream (while "
			   "scanning a quoted scalar at line 1, column 4)" },
	{ "a: 1\nb: x\0y\n", 12, "t.yaml:2:5: NUL byte in the input (expected UTF-8 text)" },
	{ "a: \"x\\0y\"\n", 0, "t.yaml:1:4: NUL character in a scalar (expected text without \\0)" },
	{ "a: b\n\xff\n", 0, "t.yaml:2:1: invalid leading UTF-8 octet (#FF) (expected UTF-8 text)" },
	{ "a: \x01\n", 0, "t.yaml:1:4: control characters are not allowed (#1) (expected UTF-8 text)" },
};

START_TEST(test_load_rejects)
{
	struct yt_doc *d = yt_doc_new();
	struct fs_error e = { 0 };
	const size_t len = bad_inputs[_i].len ? bad_inputs[_i].len : strlen(bad_inputs[_i].text);

	ck_assert_ptr_null(yt_load_string(d, "t.yaml", bad_inputs[_i].text, len, &e));
	ck_assert_int_eq(e.status, FS_ERR_INPUT);
	ck_assert_msg(strncmp(e.msg, bad_inputs[_i].message, strlen(bad_inputs[_i].message)) == 0,
		      "got '%s', expected '%s'", e.msg, bad_inputs[_i].message);
	yt_doc_free(d);
}
END_TEST

START_TEST(test_duplicate_keys_in_large_map)
{
	/* Many keys: duplicate detection must not be quadratic, and still exact. */
	const size_t nkeys = 60000;
	size_t cap = nkeys * 16 + 64, used = 0;
	char *text = malloc(cap);
	struct yt_doc *d = yt_doc_new();
	struct fs_error e = { 0 };
	const struct yt_node *root;

	ck_assert_ptr_nonnull(text);
	for (size_t i = 0; i < nkeys; i++)
		used += (size_t)snprintf(text + used, cap - used, "k%zu: %zu\n", i, i);
	root = yt_load_string(d, "big.yaml", text, used, &e);
	ck_assert_msg(root != NULL, "%s", e.msg);
	ck_assert_uint_eq(root->len, nkeys);
	assert_scalar(yt_get(root, "k59999"), "59999", false);
	snprintf(text + used, cap - used, "k12345: again\n");
	ck_assert_ptr_null(yt_load_string(d, "big.yaml", text, strlen(text), &e));
	ck_assert_str_eq(e.msg, "big.yaml:60001:1: duplicate key 'k12345' (first at line 12346)");
	free(text);
	yt_doc_free(d);
}
END_TEST

/* ---- limits -------------------------------------------------------------------- */

/* Small limits {bytes, depth, nodes}: what loads, and where the rest is refused. */
static const struct {
	struct yt_limits limits;
	const char *text;
	const char *message; /* NULL: loads */
} limit_cases[] = {
	{ { 1024, 2, 1000 }, "a: {b: 1}\n", NULL },
	{ { 1024, 2, 1000 }, "- [1, 2]\n", NULL },
	{ { 1024, 2, 1000 }, "a: {b: {c: 1}}\n", "t.yaml:1:8: nesting deeper than 2 levels (expected at most 2)" },
	{ { 1024, 2, 1000 }, "[[[]]]", "t.yaml:1:3: nesting deeper than 2 levels (expected at most 2)" },
	/* map, key a, 1, key b, 2: five nodes */
	{ { 1024, 8, 5 }, "a: 1\nb: 2\n", NULL },
	{ { 1024, 8, 5 }, "a: 1\nb: 2\nc: 3\n", "t.yaml:3:1: more than 5 nodes (expected at most 5)" },
	{ { 1024, 8, 5 }, "[1, 2, 3, 4, 5]", "t.yaml:1:14: more than 5 nodes (expected at most 5)" },
	{ { 10, 8, 100 }, "a: 123456\n", NULL }, /* exactly 10 bytes */
	{ { 10, 8, 100 }, "a: 1234567\n", "t.yaml: input is larger than the limit (expected at most 10 bytes)" },
};

START_TEST(test_limits)
{
	struct yt_doc *d = yt_doc_new();
	struct fs_error e = { 0 };

	yt_doc_set_limits(d, &limit_cases[_i].limits);
	if (limit_cases[_i].message) {
		ck_assert_ptr_null(load(d, limit_cases[_i].text, &e));
		ck_assert_int_eq(e.status, FS_ERR_INPUT);
		ck_assert_str_eq(e.msg, limit_cases[_i].message);
	} else {
		load_ok(d, limit_cases[_i].text);
	}
	yt_doc_free(d);
}
END_TEST

static char *nested_seqs(size_t depth)
{
	char *text = malloc(2 * depth + 1);

	ck_assert_ptr_nonnull(text);
	memset(text, '[', depth);
	memset(text + depth, ']', depth);
	text[2 * depth] = '\0';
	return text;
}

START_TEST(test_limit_depth_default)
{
	struct yt_doc *d = yt_doc_new();
	struct fs_error e = { 0 };
	char *ok = nested_seqs(YT_DEFAULT_MAX_DEPTH);
	char *deep = nested_seqs(YT_DEFAULT_MAX_DEPTH + 1);
	/* Refused at level 33, long before libyaml walks 200000 levels. */
	char *hostile = nested_seqs(200000);

	load_ok(d, ok);
	ck_assert_ptr_null(load(d, deep, &e));
	ck_assert_str_eq(e.msg, "t.yaml:1:33: nesting deeper than 32 levels (expected at most 32)");
	ck_assert_ptr_null(load(d, hostile, &e));
	ck_assert_str_eq(e.msg, "t.yaml:1:33: nesting deeper than 32 levels (expected at most 32)");
	free(ok);
	free(deep);
	free(hostile);
	yt_doc_free(d);
}
END_TEST

START_TEST(test_limit_bytes_file)
{
	const struct yt_limits limits = { 10, 8, 100 };
	static const char eleven[] = "a: 1234567\n";
	struct yt_doc *d = yt_doc_new();
	struct fs_error e = { 0 };
	char *path = tu_write_temp(eleven);
	char expected[128];

	yt_doc_set_limits(d, &limits);
	ck_assert_ptr_null(yt_load_file(d, path, &e));
	ck_assert_int_eq(e.status, FS_ERR_INPUT);
	snprintf(expected, sizeof(expected), "%s: input is larger than the limit (expected at most 10 bytes)",
		 path);
	ck_assert_str_eq(e.msg, expected);
	unlink(path);
	free(path);
	yt_doc_free(d);
}
END_TEST

START_TEST(test_limit_bytes_default_file)
{
	/* One byte over 1 MiB, from a file: refused without parsing. */
	const size_t len = YT_DEFAULT_MAX_BYTES + 1;
	char *text = malloc(len + 1);
	char *path;
	struct yt_doc *d = yt_doc_new();
	struct fs_error e = { 0 };

	ck_assert_ptr_nonnull(text);
	memset(text, '#', len);
	text[len] = '\0';
	path = tu_write_temp(text);
	ck_assert_ptr_null(yt_load_file(d, path, &e));
	ck_assert_contains(e.msg, ": input is larger than the limit (expected at most 1048576 bytes)");
	/* Exactly at the limit loads (a comment: an empty map). */
	ck_assert_int_eq(truncate(path, (off_t)YT_DEFAULT_MAX_BYTES), 0);
	ck_assert_ptr_nonnull(yt_load_file(d, path, &e));
	unlink(path);
	free(path);
	free(text);
	yt_doc_free(d);
}
END_TEST

/* ---- --set --------------------------------------------------------------------- */

static const char set_base[] = "workload:\n"
			       "  threads: 4\n"
			       "  ops: [1, 2]\n"
			       "kernel: linux-6.18\n";

static struct yt_node *set_ok(struct yt_doc *d, struct yt_node *root, const char *assignment)
{
	struct fs_error e = { 0 };

	ck_assert_msg(yt_apply_set(d, &root, assignment, &e) == 0, "%s failed: %s", assignment, e.msg);
	return root;
}

START_TEST(test_set_replaces_value)
{
	struct yt_doc *d = yt_doc_new();
	struct yt_node *root = set_ok(d, load_ok(d, set_base), "workload.threads=28");
	const struct yt_node *w = yt_get(root, "workload");
	const char *file = "--set workload.threads=28";

	ck_assert_uint_eq(w->len, 2);
	ck_assert_str_eq(w->keys[0], "threads");
	assert_scalar(w->items[0], "28", false);
	assert_mark(w->items[0]->mark, file, 1, 18);
	assert_mark(w->key_marks[0], file, 1, 10);
	/* Untouched parts keep their marks. */
	assert_mark(w->mark, "t.yaml", 2, 3);
	yt_doc_free(d);
}
END_TEST

START_TEST(test_set_creates_maps)
{
	struct yt_doc *d = yt_doc_new();
	struct yt_node *root = set_ok(d, load_ok(d, set_base), "new.deep.key=x");
	const struct yt_node *n = yt_get(root, "new"), *deep;
	const char *file = "--set new.deep.key=x";

	ck_assert_uint_eq(root->len, 3);
	ck_assert_str_eq(root->keys[2], "new");
	assert_mark(root->key_marks[2], file, 1, 1);
	ck_assert_int_eq(n->kind, YT_MAP);
	deep = yt_get(n, "deep");
	assert_mark(n->key_marks[0], file, 1, 5);
	ck_assert_int_eq(deep->kind, YT_MAP);
	assert_mark(deep->key_marks[0], file, 1, 10);
	assert_scalar(yt_get(deep, "key"), "x", false);
	assert_mark(yt_get(deep, "key")->mark, file, 1, 14);

	root = set_ok(d, root, "workload.think_time=1.5us");
	ck_assert_uint_eq(yt_get(root, "workload")->len, 3);
	assert_scalar(yt_get(yt_get(root, "workload"), "think_time"), "1.5us", false);
	yt_doc_free(d);
}
END_TEST

START_TEST(test_set_scalar_becomes_preset)
{
	struct yt_doc *d = yt_doc_new();
	struct yt_node *root = set_ok(d, load_ok(d, set_base), "kernel.private_hash.buckets=128");
	const struct yt_node *k = yt_get(root, "kernel"), *ph;

	ck_assert_int_eq(k->kind, YT_MAP);
	ck_assert_uint_eq(k->len, 2);
	ck_assert_str_eq(k->keys[0], "preset");
	assert_scalar(k->items[0], "linux-6.18", false);
	/* The preset key points where the scalar was written; the map, which the
	 * --set made, at its key in the --set. */
	assert_mark(k->key_marks[0], "t.yaml", 4, 9);
	assert_mark(k->mark, "--set kernel.private_hash.buckets=128", 1, 1);
	ph = yt_get(k, "private_hash");
	assert_scalar(yt_get(ph, "buckets"), "128", false);
	assert_mark(yt_get(ph, "buckets")->mark, "--set kernel.private_hash.buckets=128", 1, 29);

	/* A second override goes into the same map. */
	root = set_ok(d, root, "kernel.private_hash.enabled=false");
	ck_assert_uint_eq(yt_get(yt_get(root, "kernel"), "private_hash")->len, 2);
	yt_doc_free(d);
}
END_TEST

START_TEST(test_set_flow_values)
{
	struct yt_doc *d = yt_doc_new();
	struct yt_node *root = set_ok(d, load_ok(d, set_base), "workload.cpus=[0, 2, {node: 1}]");
	const char *file = "--set workload.cpus=[0, 2, {node: 1}]";
	const struct yt_node *cpus = yt_get(yt_get(root, "workload"), "cpus"), *m;

	ck_assert_int_eq(cpus->kind, YT_SEQ);
	ck_assert_uint_eq(cpus->len, 3);
	assert_mark(cpus->mark, file, 1, 15);
	assert_scalar(cpus->items[0], "0", false);
	assert_mark(cpus->items[0]->mark, file, 1, 16);
	assert_mark(cpus->items[1]->mark, file, 1, 19);
	m = cpus->items[2];
	ck_assert_int_eq(m->kind, YT_MAP);
	assert_mark(m->mark, file, 1, 22);
	assert_mark(m->key_marks[0], file, 1, 23);
	assert_mark(m->items[0]->mark, file, 1, 29);

	/* A sequence may replace a sequence; quoted and empty values are strings. */
	root = set_ok(d, root, "workload.ops=[3]");
	ck_assert_uint_eq(yt_get(yt_get(root, "workload"), "ops")->len, 1);
	root = set_ok(d, root, "name=\"1\"");
	assert_scalar(yt_get(root, "name"), "1", true);
	root = set_ok(d, root, "empty=");
	assert_scalar(yt_get(root, "empty"), "", false);
	assert_mark(yt_get(root, "empty")->mark, "--set empty=", 1, 7);
	root = set_ok(d, root, "eq=a=b"); /* split at the first '=' */
	assert_scalar(yt_get(root, "eq"), "a=b", false);
	yt_doc_free(d);
}
END_TEST

START_TEST(test_set_null_root)
{
	struct yt_doc *d = yt_doc_new();
	struct yt_node *root = set_ok(d, NULL, "a.b=1");

	ck_assert_int_eq(root->kind, YT_MAP);
	assert_scalar(yt_get(yt_get(root, "a"), "b"), "1", false);
	yt_doc_free(d);
}
END_TEST

static const struct {
	const char *assignment;
	const char *message;
} bad_sets[] = {
	{ "nothing", "--set 'nothing': no '=' (expected PATH=VALUE, e.g. workload.threads=8)" },
	{ "=1", "--set '=1': empty path (expected PATH=VALUE, e.g. workload.threads=8)" },
	{ "a..b=1", "--set 'a..b=1': column 3: empty key in the path (expected keys separated by single dots)" },
	{ ".a=1", "--set '.a=1': column 1: empty key in the path" },
	{ "a.=1", "--set 'a.=1': column 3: empty key in the path" },
	{ "a b=1", "--set 'a b=1': column 2: character ' ' in the path (expected letters, digits, '_' or '-'" },
	{ "a/b=1", "--set 'a/b=1': column 2: character '/' in the path" },
	{ "workload.ops.x=1",
	  "--set 'workload.ops.x=1': 'workload.ops' is a sequence (at t.yaml:3:8), a key cannot be set "
	  "inside it (expected a path through maps)" },
	{ "a=[1, 2", "--set 'a=[1, 2': column 8: YAML syntax error: did not find expected ',' or ']' "
		     "(while parsing a flow sequence at column 3)" },
	{ "a={b: 1, b: 2}", "--set 'a={b: 1, b: 2}': column 10: duplicate key 'b' (first at line 1)" },
	{ "a=&x 1", "--set 'a=&x 1': column 3: anchor '&x': anchors and aliases are not supported" },
	{ "a=!!str 1", "--set 'a=!!str 1': column 3: tag 'tag:yaml.org,2002:str': explicit tags are not supported" },
	{ "a=x\ny", "--set 'a=x\\ny': control character \\x0a at column 4 (expected a one-line PATH=VALUE)" },
};

START_TEST(test_set_rejects)
{
	struct yt_doc *d = yt_doc_new();
	struct yt_node *root = load_ok(d, set_base), *before = root;
	char *emitted = yt_emit_string(root), *after;
	struct fs_error e = { 0 };

	ck_assert_int_eq(yt_apply_set(d, &root, bad_sets[_i].assignment, &e), -1);
	ck_assert_int_eq(e.status, FS_ERR_INPUT);
	ck_assert_msg(strncmp(e.msg, bad_sets[_i].message, strlen(bad_sets[_i].message)) == 0,
		      "got '%s', expected '%s'", e.msg, bad_sets[_i].message);
	/* A failed override leaves the tree as it was. */
	ck_assert_ptr_eq(root, before);
	after = yt_emit_string(root);
	ck_assert_str_eq(after, emitted);
	free(emitted);
	free(after);
	yt_doc_free(d);
}
END_TEST

START_TEST(test_set_root_not_map)
{
	struct yt_doc *d = yt_doc_new();
	struct yt_node *root = load_ok(d, "- 1\n");
	struct fs_error e = { 0 };

	ck_assert_int_eq(yt_apply_set(d, &root, "a=1", &e), -1);
	ck_assert_str_eq(e.msg, "--set 'a=1': the document is a sequence (expected a map)");
	yt_doc_free(d);
}
END_TEST

START_TEST(test_set_depth_limit)
{
	const struct yt_limits limits = { 1024, 2, 100 };
	struct yt_doc *d = yt_doc_new();
	struct yt_node *root = NULL;
	struct fs_error e = { 0 };

	yt_doc_set_limits(d, &limits);
	root = set_ok(d, root, "a.b=1");  /* root (1), a (2) */
	root = set_ok(d, root, "c=[1]"); /* root (1), [1] (2) */
	ck_assert_int_eq(yt_apply_set(d, &root, "a.b.c=1", &e), -1);
	ck_assert_str_eq(e.msg, "--set 'a.b.c=1': path of 3 keys nests deeper than 2 levels (expected at most 2)");
	ck_assert_int_eq(yt_apply_set(d, &root, "x=[[1]]", &e), -1);
	ck_assert_str_eq(e.msg, "--set 'x=[[1]]': column 4: nesting deeper than 2 levels (expected at most 2)");
	yt_doc_free(d);
}
END_TEST

/* ---- merge, copy, builders -------------------------------------------------------- */

START_TEST(test_merge)
{
	struct yt_doc *d = yt_doc_new();
	struct fs_error e = { 0 };
	static const char base_text[] = "a: 1\nm:\n  x: 1\n  y: 2\nlist: [1, 2]\n";
	static const char over_text[] = "m:\n  y: 20\n  z: 30\nlist: [3]\nb: 2\n";
	const struct yt_node *base = yt_load_string(d, "base.yaml", base_text, strlen(base_text), &e);
	const struct yt_node *over = yt_load_string(d, "over.yaml", over_text, strlen(over_text), &e);
	const struct yt_node *m, *mm;

	ck_assert_ptr_nonnull(base);
	ck_assert_ptr_nonnull(over);
	m = yt_merge(d, base, over);
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(m->len, 4);
	ck_assert_str_eq(m->keys[0], "a");
	ck_assert_str_eq(m->keys[1], "m");
	ck_assert_str_eq(m->keys[2], "list");
	ck_assert_str_eq(m->keys[3], "b");
	assert_mark(m->key_marks[0], "base.yaml", 1, 1);
	assert_mark(m->key_marks[1], "over.yaml", 1, 1);
	assert_mark(m->key_marks[3], "over.yaml", 5, 1);
	mm = yt_get(m, "m");
	ck_assert_uint_eq(mm->len, 3);
	assert_scalar(yt_get(mm, "x"), "1", false);
	assert_scalar(yt_get(mm, "y"), "20", false);
	assert_mark(yt_get(mm, "y")->mark, "over.yaml", 2, 6);
	assert_mark(mm->key_marks[1], "over.yaml", 2, 3);
	assert_scalar(yt_get(mm, "z"), "30", false);
	/* Sequences are replaced, not appended. */
	ck_assert_ptr_eq(yt_get(m, "list"), yt_get(over, "list"));
	/* Inputs are untouched. */
	ck_assert_uint_eq(yt_get(base, "m")->len, 2);
	ck_assert_uint_eq(base->len, 3);
	assert_scalar(yt_get(yt_get(base, "m"), "y"), "2", false);
	/* Anything but two maps: `over` wins; NULL yields the other. */
	ck_assert_ptr_eq(yt_merge(d, base, yt_get(over, "b")), yt_get(over, "b"));
	ck_assert_ptr_eq(yt_merge(d, yt_get(base, "a"), over), over);
	ck_assert_ptr_eq(yt_merge(d, NULL, over), over);
	ck_assert_ptr_eq(yt_merge(d, base, NULL), base);
	yt_doc_free(d);
}
END_TEST

START_TEST(test_copy_outlives_source)
{
	struct yt_doc *src = yt_doc_new(), *dst = yt_doc_new();
	struct fs_error e = { 0 };
	static const char text[] = "a: [1, \"2\"]\nb: {c: d}\n";
	const struct yt_node *orig = yt_load_string(src, "src.yaml", text, strlen(text), &e);
	struct yt_node *copy;
	char *before, *after;

	ck_assert_ptr_nonnull(orig);
	copy = yt_copy(dst, orig);
	ck_assert_ptr_nonnull(copy);
	ck_assert(same_tree(orig, copy));
	before = yt_emit_string(orig);
	yt_doc_free(src); /* the copy owns everything, file names included */
	after = yt_emit_string(copy);
	ck_assert_str_eq(before, after);
	assert_mark(yt_get(copy, "b")->mark, "src.yaml", 2, 4);
	assert_mark(copy->key_marks[1], "src.yaml", 2, 1);
	assert_scalar(yt_get(copy, "a")->items[1], "2", true);
	free(before);
	free(after);
	yt_doc_free(dst);
}
END_TEST

START_TEST(test_builders)
{
	struct yt_doc *d = yt_doc_new();
	const struct fs_mark at = { "built", 7, 9 };
	struct yt_node *map = yt_new_map(d, at), *seq = yt_new_seq(d, at), *s;
	char value[16] = "hello";

	s = yt_new_scalar(d, value, false, at);
	strcpy(value, "changed"); /* strings are copied */
	assert_scalar(s, "hello", false);
	assert_mark(s->mark, "built", 7, 9);
	ck_assert_int_eq(yt_map_put(d, map, "k", at, s), 0);
	ck_assert_int_eq(yt_map_put(d, map, "k", (struct fs_mark){ "other", 1, 2 },
				    yt_new_scalar(d, "v2", true, at)),
			 0);
	ck_assert_uint_eq(map->len, 1);
	assert_scalar(yt_get(map, "k"), "v2", true);
	assert_mark(map->key_marks[0], "other", 1, 2);
	for (int i = 0; i < 1000; i++) {
		char text[16];

		snprintf(text, sizeof(text), "%d", i);
		ck_assert_int_eq(yt_seq_append(d, seq, yt_new_scalar(d, text, false, at)), 0);
		ck_assert_int_eq(yt_map_put(d, map, text, at, seq), 0);
	}
	ck_assert_uint_eq(seq->len, 1000);
	assert_scalar(seq->items[999], "999", false);
	ck_assert_uint_eq(map->len, 1001);
	ck_assert_int_eq(yt_find(map, "500"), 501);
	/* Wrong kinds are refused, not corrupted. */
	ck_assert_int_eq(yt_map_put(d, seq, "x", at, s), -1);
	ck_assert_int_eq(yt_seq_append(d, map, s), -1);
	ck_assert_int_eq(yt_seq_append(d, s, s), -1);
	yt_doc_free(d);
}
END_TEST

START_TEST(test_excerpt)
{
	char buf[12];
	char big[200];

	ck_assert_str_eq(yt_excerpt(buf, sizeof(buf), "a\nb\tc"), "a\\nb\\tc");
	ck_assert_str_eq(yt_excerpt(buf, sizeof(buf), "\x01"), "\\x01");
	ck_assert_str_eq(yt_excerpt(buf, sizeof(buf), "exactly 11c"), "exactly 11c");
	ck_assert_str_eq(yt_excerpt(buf, sizeof(buf), "this is too long"), "this is ...");
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	ck_assert_uint_lt(strlen(yt_excerpt(buf, sizeof(buf), big)), sizeof(buf));
	/* A cut never leaves half a UTF-8 character. */
	ck_assert_str_eq(yt_excerpt(buf, sizeof(buf), "abcdefg\xc3\xa9\xc3\xa9"), "abcdefg\xc3\xa9\xc3\xa9");
	ck_assert_str_eq(yt_excerpt(buf, sizeof(buf), "abcdefg\xc3\xa9\xc3\xa9x"), "abcdefg...");
}
END_TEST

/* ---- emit ---------------------------------------------------------------------------- */

static const char *const round_trips[] = {
	"a: 1\nb: [x, \"y\"]\nc:\n  - d: e\n    f: |\n      lit\n",
	"- 1\n- \"1\"\n- yes\n- \"yes\"\n- ''\n- \n- \"true\"\n- ~\n- \"~\"\n- null\n- \"null\"\n",
	"k: \"\"\nk2:\nk3: \"0x10\"\nk4: 0x10\nk5: \"1.5\"\nk6: 1.5ns\n\"\": empty key\n",
	"nested: {a: {b: {c: [[], {}]}}}\nempty_map: {}\nempty_seq: []\n",
	"s: \"a: b\"\nt: \"#not a comment\"\nu: \" lead\"\nv: \"trail \"\nw: \"x\\ny\"\nx: \"tab\\there\"\n",
	"'key: with colon': 1\n'- dash key': 2\n'# hash key': 3\n\"multi\\nline key\": 4\n",
	("unicode: \"\xc3\xbc" "n" "\xc3\xaf" "c" "\xc3\xb6" "d" "\xc3\xa9\"\n"
	 "plain_unicode: \xc3\xa9" "t" "\xc3\xa9\nemoji: \"\xf0\x9f\x98\x80\"\n"),
	"quotes: \"'single'\"\ndq: '\"double\"'\namp: \"&x\"\nstar: \"*x\"\nbang: \"!x\"\npct: \"%x\"\nat: \"@x\"\n",
	"scalar root\n",
	"- - - deep\n",
	/* longer than libyaml's default width of 80 columns: must not be folded */
	("long: \"aaaaaaaaaa bbbbbbbbbb cccccccccc dddddddddd eeeeeeeeee ffffffffff gggggggggg "
	 "hhhhhhhhhh\"\n"),
	"plain_long: aaaaaaaaaa bbbbbbbbbb cccccccccc dddddddddd eeeeeeeeee ffffffffff gggggggggg hhhhhhhhhh\n",
};

START_TEST(test_emit_round_trip)
{
	struct yt_doc *d = yt_doc_new();
	const struct yt_node *first = load_ok(d, round_trips[_i]), *second;
	char *text = yt_emit_string(first);

	ck_assert_ptr_nonnull(text);
	second = load_ok(d, text);
	ck_assert_msg(same_tree(first, second), "round trip changed the tree:\n%s\n--- emitted ---\n%s",
		      round_trips[_i], text);
	free(text);
	yt_doc_free(d);
}
END_TEST

START_TEST(test_emit_quotes_strings_that_need_it)
{
	struct yt_doc *d = yt_doc_new();
	const struct fs_mark at = { "b", 1, 1 };
	struct yt_node *m = yt_new_map(d, at);
	const struct yt_node *back;
	char *text;

	yt_map_put(d, m, "q_yes", at, yt_new_scalar(d, "yes", true, at));
	yt_map_put(d, m, "q_one", at, yt_new_scalar(d, "1", true, at));
	yt_map_put(d, m, "q_empty", at, yt_new_scalar(d, "", true, at));
	yt_map_put(d, m, "p_yes", at, yt_new_scalar(d, "yes", false, at));
	yt_map_put(d, m, "p_one", at, yt_new_scalar(d, "1", false, at));
	yt_map_put(d, m, "p_colon", at, yt_new_scalar(d, "a: b", false, at));
	yt_map_put(d, m, "p_lead", at, yt_new_scalar(d, " x", false, at));
	text = yt_emit_string(m);
	ck_assert_ptr_nonnull(text);
	ck_assert_contains(text, "q_yes: \"yes\"\n");
	ck_assert_contains(text, "q_one: \"1\"\n");
	ck_assert_contains(text, "q_empty: \"\"\n");
	ck_assert_contains(text, "p_yes: yes\n");
	ck_assert_contains(text, "p_one: 1\n");
	back = load_ok(d, text);
	assert_scalar(yt_get(back, "q_yes"), "yes", true);
	assert_scalar(yt_get(back, "q_one"), "1", true);
	assert_scalar(yt_get(back, "q_empty"), "", true);
	assert_scalar(yt_get(back, "p_yes"), "yes", false);
	assert_scalar(yt_get(back, "p_one"), "1", false);
	/* Plain text that cannot stay plain comes back as the same string, quoted. */
	assert_scalar(yt_get(back, "p_colon"), "a: b", true);
	assert_scalar(yt_get(back, "p_lead"), " x", true);
	free(text);
	yt_doc_free(d);
}
END_TEST

START_TEST(test_emit_block_style)
{
	struct yt_doc *d = yt_doc_new();
	char *text = yt_emit_string(load_ok(d, "a: {b: [1, 2]}\n"));

	ck_assert_str_eq(text, "a:\n  b:\n  - 1\n  - 2\n");
	free(text);
	yt_doc_free(d);
}
END_TEST

START_TEST(test_emit_file)
{
	struct yt_doc *d = yt_doc_new();
	const struct yt_node *root = load_ok(d, "x: [1, {y: z}]\n");
	char *expected = yt_emit_string(root), got[256] = "";
	FILE *f = tmpfile();
	FILE *full = fopen("/dev/full", "w");
	size_t n;

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(yt_emit(f, root), 0);
	rewind(f);
	n = fread(got, 1, sizeof(got) - 1, f);
	got[n] = '\0';
	ck_assert_str_eq(got, expected);
	fclose(f);
	if (full) { /* a full disk is reported */
		ck_assert_int_eq(yt_emit(full, root), -1);
		fclose(full);
	}
	ck_assert_int_eq(yt_emit(stdout, NULL), -1);
	ck_assert_ptr_null(yt_emit_string(NULL));
	free(expected);
	yt_doc_free(d);
}
END_TEST

START_TEST(test_emit_invalid_utf8_fails)
{
	struct yt_doc *d = yt_doc_new();
	const struct fs_mark at = { "b", 1, 1 };
	const struct yt_node *s = yt_new_scalar(d, "bad \xff byte", false, at);

	ck_assert_ptr_null(yt_emit_string(s));
	yt_doc_free(d);
}
END_TEST

/* ---- robustness ------------------------------------------------------------------------ */

/* Deterministic mutations of a valid document: whatever comes out, loading
 * must fail cleanly or yield a tree that emits and loads again. Run under
 * ASan/UBSan this finds out-of-bounds reads and leaks. */
START_TEST(test_mutated_inputs)
{
	static const char seed[] = "name: demo\nlist:\n  - 1\n  - \"two\"\nmap: {a: [x, y], b: 'q'}\n"
				   "text: |\n  block\n";
	static const char alphabet[] = "{}[]:,-?#&*!|>'\"%@` \n\t\\0aZ9.\xc3\xa9\xff";
	uint64_t state = 0x9e3779b97f4a7c15ull;
	char text[sizeof(seed) + 8];

	for (int iter = 0; iter < 20000; iter++) {
		struct yt_doc *d = yt_doc_new();
		struct fs_error e = { 0 };
		struct yt_node *root;
		size_t len = sizeof(seed) - 1;

		memcpy(text, seed, sizeof(seed));
		for (int k = 0; k < 1 + iter % 4; k++) {
			state ^= state << 13;
			state ^= state >> 7;
			state ^= state << 17;
			text[state % len] = alphabet[(state >> 32) % (sizeof(alphabet) - 1)];
		}
		if (iter % 7 == 0)
			len = (size_t)(state >> 40) % len; /* truncated input */
		root = yt_load_string(d, "m.yaml", text, len, &e);
		if (!root) {
			ck_assert_int_ne(e.status, 0);
			ck_assert_msg(strncmp(e.msg, "m.yaml", 6) == 0, "%s", e.msg);
		} else {
			char *out = yt_emit_string(root);

			if (out) {
				ck_assert_msg(load(d, out, &e) != NULL, "re-load failed: %s\n%s", e.msg, out);
				free(out);
			}
		}
		yt_doc_free(d);
	}
}
END_TEST

static Suite *yamltree_suite(void)
{
	Suite *s = suite_create("yamltree");
	TCase *tc;

	tc = tcase_create("load");
	tcase_add_test(tc, test_load_marks);
	tcase_add_test(tc, test_load_block_scalars_are_quoted);
	tcase_add_loop_test(tc, test_load_empty_is_empty_map, 0,
			    sizeof(empty_inputs) / sizeof(empty_inputs[0]));
	tcase_add_test(tc, test_load_root_kinds);
	tcase_add_test(tc, test_get_and_find);
	tcase_add_test(tc, test_load_file);
	tcase_add_test(tc, test_load_file_errors);
	suite_add_tcase(s, tc);

	tc = tcase_create("reject");
	tcase_add_loop_test(tc, test_load_rejects, 0, sizeof(bad_inputs) / sizeof(bad_inputs[0]));
	tcase_add_test(tc, test_duplicate_keys_in_large_map);
	suite_add_tcase(s, tc);

	tc = tcase_create("limits");
	tcase_add_loop_test(tc, test_limits, 0, sizeof(limit_cases) / sizeof(limit_cases[0]));
	tcase_add_test(tc, test_limit_depth_default);
	tcase_add_test(tc, test_limit_bytes_file);
	tcase_add_test(tc, test_limit_bytes_default_file);
	suite_add_tcase(s, tc);

	tc = tcase_create("set");
	tcase_add_test(tc, test_set_replaces_value);
	tcase_add_test(tc, test_set_creates_maps);
	tcase_add_test(tc, test_set_scalar_becomes_preset);
	tcase_add_test(tc, test_set_flow_values);
	tcase_add_test(tc, test_set_null_root);
	tcase_add_loop_test(tc, test_set_rejects, 0, sizeof(bad_sets) / sizeof(bad_sets[0]));
	tcase_add_test(tc, test_set_root_not_map);
	tcase_add_test(tc, test_set_depth_limit);
	suite_add_tcase(s, tc);

	tc = tcase_create("edit");
	tcase_add_test(tc, test_merge);
	tcase_add_test(tc, test_copy_outlives_source);
	tcase_add_test(tc, test_builders);
	tcase_add_test(tc, test_excerpt);
	suite_add_tcase(s, tc);

	tc = tcase_create("emit");
	tcase_add_loop_test(tc, test_emit_round_trip, 0, sizeof(round_trips) / sizeof(round_trips[0]));
	tcase_add_test(tc, test_emit_quotes_strings_that_need_it);
	tcase_add_test(tc, test_emit_block_style);
	tcase_add_test(tc, test_emit_file);
	tcase_add_test(tc, test_emit_invalid_utf8_fails);
	suite_add_tcase(s, tc);

	tc = tcase_create("robustness");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_mutated_inputs);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(yamltree_suite());
}
