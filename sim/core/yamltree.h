/* SPDX-License-Identifier: MIT */
/* YAML documents as plain trees that remember where every node came from.
 *
 * libyaml parses; this module turns a document into maps, sequences and scalars
 * with FILE:LINE:COL marks, and enforces what libyaml does not: duplicate keys,
 * anchors/aliases and tags are rejected, input size and nesting depth are capped.
 * Trees are edited only by the functions below (--set overrides, preset merges);
 * every node lives in the `struct yt_doc` arena and is freed with it.
 */
#ifndef FUTEXSIM_YAMLTREE_H
#define FUTEXSIM_YAMLTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "sim/core/error.h"

enum yt_kind { YT_SCALAR, YT_MAP, YT_SEQ };

struct yt_doc;

struct yt_node {
	enum yt_kind kind;
	struct fs_mark mark;       /* where the node starts */
	struct yt_doc *doc;        /* the doc that owns it; NULL for a node built on the stack */
	/* YT_SCALAR */
	const char *scalar;        /* NUL-terminated, never NULL for a scalar */
	bool quoted;               /* quoted or block scalar: a string, never a number */
	/* YT_MAP and YT_SEQ */
	size_t len;
	const char **keys;         /* YT_MAP: len keys, in document order */
	struct fs_mark *key_marks; /* YT_MAP: where each key is */
	struct yt_node **items;    /* YT_MAP: the values; YT_SEQ: the items */
	size_t cap;                /* slots allocated in the arrays above (managed by yt_*) */
};

struct yt_limits {
	size_t max_bytes;   /* larger inputs are refused before parsing */
	unsigned max_depth; /* nesting of maps/sequences; the root is depth 1 */
	size_t max_nodes;   /* nodes per loaded input */
};
#define YT_DEFAULT_MAX_BYTES (1u << 20)
#define YT_DEFAULT_MAX_DEPTH 32u
#define YT_DEFAULT_MAX_NODES 200000u

struct yt_doc *yt_doc_new(void); /* default limits; NULL only when out of memory */
void yt_doc_free(struct yt_doc *d);
void yt_doc_set_limits(struct yt_doc *d, const struct yt_limits *limits);

/* Loads one YAML document. An empty document (nothing, only comments, or a bare
 * `---`) loads as an empty map; otherwise the root may be of any kind. Errors
 * (FS_ERR_INPUT, message "FILE:LINE:COL: what is wrong (what was expected)"):
 * syntax error, more than one document, duplicate key, anchor/alias, tag,
 * non-scalar key, NUL byte (in the input or as "\0" in a scalar), too deep, too
 * many nodes. Problems of the whole input have no LINE:COL: "cannot read FILE:
 * <strerror>", "FILE: input is larger than the limit (expected at most N bytes)".
 * Out of memory fails with FS_ERR_RUNTIME. `name` (NULL: "<string>") and `path`
 * are copied into the doc, so marks stay valid as long as the doc. */
struct yt_node *yt_load_file(struct yt_doc *d, const char *path, struct fs_error *e);
struct yt_node *yt_load_string(struct yt_doc *d, const char *name, const char *text, size_t len,
			       struct fs_error *e);
/* yt_load_file that also keeps the file's bytes exactly as read (NUL-terminated,
 * owned by the doc) in *text and their count in *len: provenance for result files. */
struct yt_node *yt_load_file_text(struct yt_doc *d, const char *path, const char **text, size_t *len,
				  struct fs_error *e);

/* The value of `key` in `map`, or NULL when absent or `map` is not a map. */
struct yt_node *yt_get(const struct yt_node *map, const char *key);
/* Index of `key` in `map`, or -1. */
long yt_find(const struct yt_node *map, const char *key);

/* Builders (nodes belong to the doc; strings are copied). */
struct yt_node *yt_new_scalar(struct yt_doc *d, const char *value, bool quoted, struct fs_mark at);
struct yt_node *yt_new_map(struct yt_doc *d, struct fs_mark at);
struct yt_node *yt_new_seq(struct yt_doc *d, struct fs_mark at);
/* Sets map[key] = value (replaces an existing value, else appends); -1 only when out of memory. */
int yt_map_put(struct yt_doc *d, struct yt_node *map, const char *key, struct fs_mark key_at,
	       struct yt_node *value);
int yt_seq_append(struct yt_doc *d, struct yt_node *seq, struct yt_node *item);

/* Applies one override "dotted.path=VALUE" to *root (a map). The assignment is
 * split at the first '='; path keys are non-empty and made of [A-Za-z0-9_-].
 * VALUE is parsed as a one-line YAML document (`28`, `linux-6.17`, `[0, 1]`,
 * `{a: 1}`, `"quoted"`), with the same checks and limits as a file; an empty
 * VALUE (or one that is only a comment) is the empty plain scalar "".
 * Missing intermediate maps are created. An intermediate key that holds a scalar
 * S is first replaced by the map {preset: S}: this is how `kernel: linux-6.18`
 * becomes overridable field by field (`--set kernel.private_hash.buckets=128`).
 * An intermediate sequence is an error. Nodes created here (keys and values)
 * are marked with file "--set PATH=VALUE", line 1 and the column in that
 * string, so later type errors point at the override. A NULL *root becomes a
 * new map. The tree is edited in place (yt_copy a shared tree first) and is left
 * unchanged when the override fails.
 * Errors (FS_ERR_INPUT) name the override: "--set 'a.b=1': <why>", with
 * "column C: " before problems inside VALUE. */
int yt_apply_set(struct yt_doc *d, struct yt_node **root, const char *assignment, struct fs_error *e);

/* Deep merge: maps are merged key by key (recursively, `over` wins and keeps its
 * marks; keys of `base` first, in its order, then the new keys of `over`); any
 * other pair is replaced by `over`. A NULL `base` or `over` yields the other.
 * Inputs are not modified; the result may share subtrees (and strings) with
 * them, so their docs must outlive it (yt_copy it to detach it). NULL only when
 * out of memory (or both are NULL). */
struct yt_node *yt_merge(struct yt_doc *d, const struct yt_node *base, const struct yt_node *over);

/* Deep copy, e.g. before editing a tree that other trees share. Strings and
 * the file names of marks are copied too, so `n`'s doc may be freed afterwards. */
struct yt_node *yt_copy(struct yt_doc *d, const struct yt_node *n);

/* Writes `n` as a block-style YAML document (libyaml's emitter; scalars that
 * would read back differently are quoted). Returns 0, or -1 on write error. */
int yt_emit(FILE *f, const struct yt_node *n);
/* The same into a malloc'd NUL-terminated string (caller frees); NULL on error. */
char *yt_emit_string(const struct yt_node *n);

/* Default recording, so a scenario "as resolved" shows every value a run used.
 * While it is on for a doc, yt_note_default(map, key, text, quoted) adds
 * `key: text` to `map` (a map of that doc) when `key` is absent; the typed
 * readers of sim/core/config.h call it with the default they used. The doc owns its
 * nodes, so it may extend a map that readers hold as const; off (the default),
 * or for a NULL map or a map of another (or no) doc, it does nothing. Recorded
 * nodes are marked "<default>". -1 only when out of memory. */
void yt_doc_record_defaults(struct yt_doc *d, bool on);
int yt_note_default(const struct yt_node *map, const char *key, const char *text, bool quoted);

const char *yt_kind_name(enum yt_kind k); /* "scalar", "map", "sequence" */

/* Copies `s` into `buf` (of `size` bytes) for use inside a one-line message:
 * control characters are escaped (\n, \t, \xHH) and text that does not fit
 * ends with "...". Returns `buf`. */
const char *yt_excerpt(char *buf, size_t size, const char *s);

#endif
