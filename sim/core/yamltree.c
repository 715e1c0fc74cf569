/* SPDX-License-Identifier: MIT */
/* YAML documents as trees with marks (see sim/core/yamltree.h).
 *
 * libyaml's event parser does the YAML; this file builds the tree as events
 * arrive, so the depth and node limits stop a hostile input before libyaml
 * spends superlinear time on it, and adds the checks libyaml lacks: duplicate
 * keys, anchors/aliases, tags, NUL bytes.
 */
#include "sim/core/yamltree.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

/* ---- arena ---------------------------------------------------------------- */

/* Trees are built once and edited a little, and die with their document: a
 * bump allocator over a list of chunks is all they need. */
#define ARENA_CHUNK_BYTES 16384u

struct arena_chunk {
	struct arena_chunk *next;
	size_t used;
	size_t size;
	max_align_t data[]; /* aligned for anything */
};

/* File names marks point at; kept so copies and overrides share one string. */
struct interned_name {
	struct interned_name *next;
	const char *name;
};

struct yt_doc {
	struct yt_limits limits;
	bool record_defaults;       /* see yt_note_default */
	struct arena_chunk *chunks; /* the first one is being filled */
	struct interned_name *names;
};

static void *arena_alloc(struct yt_doc *d, size_t size)
{
	const size_t align = _Alignof(max_align_t);
	struct arena_chunk *c = d->chunks;
	size_t need;
	void *p;

	if (size > SIZE_MAX - sizeof(*c) - align)
		return NULL;
	need = size ? (size + align - 1) / align * align : align;
	if (!c || c->size - c->used < need) {
		/* A big block gets a chunk of its own, behind the current one, so
		 * the free space left in the current chunk is not wasted. */
		const bool own = need > ARENA_CHUNK_BYTES / 4;
		const size_t cap = own ? need : ARENA_CHUNK_BYTES;
		struct arena_chunk *fresh = malloc(sizeof(*fresh) + cap);

		if (!fresh)
			return NULL;
		fresh->used = 0;
		fresh->size = cap;
		if (own && c) {
			fresh->next = c->next;
			c->next = fresh;
		} else {
			fresh->next = c;
			d->chunks = fresh;
		}
		c = fresh;
	}
	p = (unsigned char *)c->data + c->used;
	c->used += need;
	return p;
}

static char *arena_strndup(struct yt_doc *d, const char *s, size_t len)
{
	char *copy;

	if (len == SIZE_MAX)
		return NULL;
	copy = arena_alloc(d, len + 1);
	if (!copy)
		return NULL;
	if (len)
		memcpy(copy, s, len);
	copy[len] = '\0';
	return copy;
}

static const char *intern_name(struct yt_doc *d, const char *name)
{
	struct interned_name *in;

	for (in = d->names; in; in = in->next)
		if (strcmp(in->name, name) == 0)
			return in->name;
	in = arena_alloc(d, sizeof(*in));
	if (!in)
		return NULL;
	in->name = arena_strndup(d, name, strlen(name));
	if (!in->name)
		return NULL;
	in->next = d->names;
	d->names = in;
	return in->name;
}

struct yt_doc *yt_doc_new(void)
{
	struct yt_doc *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->limits.max_bytes = YT_DEFAULT_MAX_BYTES;
	d->limits.max_depth = YT_DEFAULT_MAX_DEPTH;
	d->limits.max_nodes = YT_DEFAULT_MAX_NODES;
	return d;
}

void yt_doc_free(struct yt_doc *d)
{
	struct arena_chunk *c, *next;

	if (!d)
		return;
	for (c = d->chunks; c; c = next) {
		next = c->next;
		free(c);
	}
	free(d);
}

void yt_doc_set_limits(struct yt_doc *d, const struct yt_limits *limits)
{
	if (d && limits)
		d->limits = *limits;
}

/* ---- nodes ---------------------------------------------------------------- */

static struct yt_node *new_node(struct yt_doc *d, enum yt_kind kind, struct fs_mark at)
{
	struct yt_node *n = arena_alloc(d, sizeof(*n));

	if (!n)
		return NULL;
	memset(n, 0, sizeof(*n));
	n->kind = kind;
	n->mark = at;
	n->doc = d;
	return n;
}

struct yt_node *yt_new_scalar(struct yt_doc *d, const char *value, bool quoted, struct fs_mark at)
{
	struct yt_node *n;

	if (!d)
		return NULL;
	if (!value)
		value = "";
	n = new_node(d, YT_SCALAR, at);
	if (!n)
		return NULL;
	n->scalar = arena_strndup(d, value, strlen(value));
	n->quoted = quoted;
	return n->scalar ? n : NULL;
}

struct yt_node *yt_new_map(struct yt_doc *d, struct fs_mark at)
{
	return d ? new_node(d, YT_MAP, at) : NULL;
}

struct yt_node *yt_new_seq(struct yt_doc *d, struct fs_mark at)
{
	return d ? new_node(d, YT_SEQ, at) : NULL;
}

/* Makes room for one more entry; the arrays double, and the old ones stay in
 * the arena (at most as much again as the live ones). */
static int reserve_entry(struct yt_doc *d, struct yt_node *n)
{
	const size_t cap = n->cap ? n->cap * 2 : 4;
	struct yt_node **items;

	if (n->len < n->cap)
		return 0;
	if (cap > SIZE_MAX / sizeof(struct fs_mark) / 2)
		return -1;
	items = arena_alloc(d, cap * sizeof(*items));
	if (!items)
		return -1;
	if (n->len)
		memcpy(items, n->items, n->len * sizeof(*items));
	if (n->kind == YT_MAP) {
		const char **keys = arena_alloc(d, cap * sizeof(*keys));
		struct fs_mark *marks = arena_alloc(d, cap * sizeof(*marks));

		if (!keys || !marks)
			return -1;
		if (n->len) {
			memcpy(keys, n->keys, n->len * sizeof(*keys));
			memcpy(marks, n->key_marks, n->len * sizeof(*marks));
		}
		n->keys = keys;
		n->key_marks = marks;
	}
	n->items = items;
	n->cap = cap;
	return 0;
}

/* Appends without looking for `key` (callers know it is new); `key` must
 * already live at least as long as the map. */
static int map_append(struct yt_doc *d, struct yt_node *map, const char *key, struct fs_mark key_at,
		      struct yt_node *value)
{
	if (reserve_entry(d, map))
		return -1;
	map->keys[map->len] = key;
	map->key_marks[map->len] = key_at;
	map->items[map->len] = value;
	map->len++;
	return 0;
}

int yt_map_put(struct yt_doc *d, struct yt_node *map, const char *key, struct fs_mark key_at,
	       struct yt_node *value)
{
	const char *copy;
	long i;

	if (!d || !map || map->kind != YT_MAP || !key || !value)
		return -1;
	i = yt_find(map, key);
	if (i >= 0) {
		map->items[i] = value;
		map->key_marks[i] = key_at;
		return 0;
	}
	copy = arena_strndup(d, key, strlen(key));
	return copy ? map_append(d, map, copy, key_at, value) : -1;
}

int yt_seq_append(struct yt_doc *d, struct yt_node *seq, struct yt_node *item)
{
	if (!d || !seq || seq->kind != YT_SEQ || !item || reserve_entry(d, seq))
		return -1;
	seq->items[seq->len++] = item;
	return 0;
}

long yt_find(const struct yt_node *map, const char *key)
{
	if (!map || map->kind != YT_MAP || !key)
		return -1;
	for (size_t i = 0; i < map->len; i++)
		if (strcmp(map->keys[i], key) == 0)
			return (long)i;
	return -1;
}

struct yt_node *yt_get(const struct yt_node *map, const char *key)
{
	const long i = yt_find(map, key);

	return i < 0 ? NULL : map->items[i];
}

const char *yt_kind_name(enum yt_kind k)
{
	switch (k) {
	case YT_SCALAR:
		return "scalar";
	case YT_MAP:
		return "map";
	case YT_SEQ:
		return "sequence";
	}
	return "node";
}

/* How `c` appears in a message; returns its length (at most 4). */
static size_t escape_byte(unsigned char c, char piece[5])
{
	if (c == '\n')
		return (size_t)snprintf(piece, 5, "\\n");
	if (c == '\t')
		return (size_t)snprintf(piece, 5, "\\t");
	if (c < 0x20 || c == 0x7f)
		return (size_t)snprintf(piece, 5, "\\x%02x", c);
	piece[0] = (char)c;
	piece[1] = '\0';
	return 1;
}

const char *yt_excerpt(char *buf, size_t size, const char *s)
{
	static const char ellipsis[] = "...";
	size_t total = 0, out = 0, room, char_start = 0;
	const char *p;
	char piece[5];

	if (!buf || size == 0)
		return buf;
	buf[0] = '\0';
	if (!s)
		return buf;
	for (p = s; *p && total < size; p++)
		total += escape_byte((unsigned char)*p, piece);
	if (total < size)
		room = size - 1;
	else if (size > sizeof(ellipsis))
		room = size - sizeof(ellipsis);
	else
		return buf;
	for (p = s; *p; p++) {
		const size_t n = escape_byte((unsigned char)*p, piece);

		if (out + n > room)
			break;
		if (((unsigned char)*p & 0xc0) != 0x80)
			char_start = out;
		memcpy(buf + out, piece, n);
		out += n;
	}
	if (*p) {
		/* Cut: drop a UTF-8 character that lost its last bytes. */
		if (((unsigned char)*p & 0xc0) == 0x80)
			out = char_start;
		memcpy(buf + out, ellipsis, sizeof(ellipsis));
		return buf;
	}
	buf[out] = '\0';
	return buf;
}

/* ---- loading: the event-driven builder ------------------------------------ */

struct load_opts {
	const char *file;       /* interned; what marks point at */
	const char *assignment; /* --set: the override, for messages; NULL for files */
	unsigned col_offset;    /* --set: characters before VALUE in the assignment */
	unsigned depth_base;    /* --set: maps that will hold the loaded root */
	bool empty_is_map;      /* an empty document is {} (files) or "" (--set values) */
};

/* A map or sequence whose end event has not arrived yet. */
struct open_container {
	struct yt_node *node;
	const char *key;         /* YT_MAP: a key waiting for its value, or NULL */
	struct fs_mark key_mark;
};

/* Every key loaded so far, by (map, key), to find duplicates in constant time:
 * a linear search per key would make a 1 MiB map of short keys take minutes. */
struct key_ref {
	const struct yt_node *map; /* NULL: free slot */
	size_t index;
};

struct key_set {
	struct key_ref *slots;
	size_t cap; /* a power of two, or 0 */
	size_t count;
};

struct builder {
	struct yt_doc *doc;
	const struct load_opts *opts;
	struct fs_error *err;
	struct open_container *stack;
	size_t depth;
	size_t stack_cap;
	size_t nodes;
	unsigned documents;
	struct key_set keys;
	struct yt_node *root;
};

static unsigned clamp_unsigned(size_t v)
{
	return v > UINT_MAX ? UINT_MAX : (unsigned)v;
}

static struct fs_mark mark_at(const struct builder *b, size_t line0, size_t col0)
{
	struct fs_mark at = { b->opts->file, clamp_unsigned(line0 + 1), clamp_unsigned(col0 + 1) };

	/* An override is one line; libyaml puts the end of the input on the line
	 * after it. */
	if (b->opts->assignment && line0 > 0)
		return (struct fs_mark){ b->opts->file, 1,
					 clamp_unsigned(strlen(b->opts->assignment) + 1) };
	if (line0 == 0)
		at.col = clamp_unsigned((size_t)at.col + b->opts->col_offset);
	return at;
}

static struct fs_mark mark_of(const struct builder *b, yaml_mark_t m)
{
	return mark_at(b, m.line, m.column);
}

/* Line and column (in characters, as libyaml counts them) of a byte offset. */
static struct fs_mark mark_of_offset(const struct builder *b, const unsigned char *text, size_t len,
				     size_t offset)
{
	size_t line = 0, col = 0;

	for (size_t i = 0; i < offset && i < len; i++) {
		if (text[i] == '\n' || (text[i] == '\r' && (i + 1 >= len || text[i + 1] != '\n'))) {
			line++;
			col = 0;
		} else if ((text[i] & 0xc0) != 0x80 && text[i] != '\r') {
			col++;
		}
	}
	return mark_at(b, line, col);
}

static int fail(struct builder *b, struct fs_mark at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct builder *b, struct fs_mark at, const char *fmt, ...)
{
	char what[800];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (b->opts->assignment)
		return fs_fail(b->err, FS_ERR_INPUT, "--set '%s': column %u: %s", b->opts->assignment,
			       at.col, what);
	return fs_fail_at(b->err, &at, "%s", what);
}

static int out_of_memory(struct fs_error *e, const char *file)
{
	return fs_fail(e, FS_ERR_RUNTIME, "%s: out of memory", file ? file : "YAML");
}

static uint64_t hash_key(const struct yt_node *map, const char *key)
{
	uint64_t h = 14695981039346656037ull ^ ((uint64_t)(uintptr_t)map * 0x9e3779b97f4a7c15ull);

	for (; *key; key++)
		h = (h ^ (unsigned char)*key) * 1099511628211ull;
	return h ^ (h >> 29);
}

static struct key_ref *key_slot(struct key_set *s, const struct yt_node *map, const char *key)
{
	size_t i = (size_t)hash_key(map, key) & (s->cap - 1);

	while (s->slots[i].map &&
	       (s->slots[i].map != map || strcmp(map->keys[s->slots[i].index], key) != 0))
		i = (i + 1) & (s->cap - 1);
	return &s->slots[i];
}

static int key_set_grow(struct key_set *s)
{
	struct key_set bigger = { NULL, s->cap ? s->cap * 2 : 64, s->count };

	if (bigger.cap > SIZE_MAX / sizeof(*bigger.slots))
		return -1;
	bigger.slots = calloc(bigger.cap, sizeof(*bigger.slots));
	if (!bigger.slots)
		return -1;
	for (size_t i = 0; i < s->cap; i++) {
		const struct key_ref *old = &s->slots[i];

		if (old->map)
			*key_slot(&bigger, old->map, old->map->keys[old->index]) = *old;
	}
	free(s->slots);
	*s = bigger;
	return 0;
}

/* The earlier entry of `key` in `map`, or NULL. */
static const struct key_ref *key_set_find(struct key_set *s, const struct yt_node *map,
					  const char *key)
{
	const struct key_ref *slot;

	if (s->cap == 0)
		return NULL;
	slot = key_slot(s, map, key);
	return slot->map ? slot : NULL;
}

static int key_set_add(struct key_set *s, const struct yt_node *map, size_t index)
{
	if ((s->count + 1) * 2 > s->cap && key_set_grow(s))
		return -1;
	*key_slot(s, map, map->keys[index]) = (struct key_ref){ map, index };
	s->count++;
	return 0;
}

static struct open_container *top_of(struct builder *b)
{
	return b->depth ? &b->stack[b->depth - 1] : NULL;
}

/* Checks that every node event shares: no anchor, no tag, not too many nodes. */
static int check_node_event(struct builder *b, const yaml_event_t *ev, const yaml_char_t *anchor,
			    const yaml_char_t *tag)
{
	const struct fs_mark at = mark_of(b, ev->start_mark);
	char shown[64];

	if (anchor)
		return fail(b, at, "anchor '&%s': anchors and aliases are not supported "
			    "(expected plain values; repeat the value instead)",
			    yt_excerpt(shown, sizeof(shown), (const char *)anchor));
	if (tag)
		return fail(b, at, "tag '%s': explicit tags are not supported (expected an untagged value)",
			    yt_excerpt(shown, sizeof(shown), (const char *)tag));
	if (++b->nodes > b->doc->limits.max_nodes)
		return fail(b, at, "more than %zu nodes (expected at most %zu)",
			    b->doc->limits.max_nodes, b->doc->limits.max_nodes);
	return 0;
}

/* Puts a finished or just opened node where the parser is: root, sequence
 * item, or the value of the pending key. */
static int attach(struct builder *b, struct yt_node *n)
{
	struct open_container *top = top_of(b);
	struct yt_node *map;

	if (!top) {
		b->root = n;
		return 0;
	}
	if (top->node->kind == YT_SEQ)
		return yt_seq_append(b->doc, top->node, n) ? out_of_memory(b->err, b->opts->file) : 0;
	map = top->node;
	if (map_append(b->doc, map, top->key, top->key_mark, n) ||
	    key_set_add(&b->keys, map, map->len - 1))
		return out_of_memory(b->err, b->opts->file);
	top->key = NULL;
	return 0;
}

static bool expects_key(struct builder *b)
{
	const struct open_container *top = top_of(b);

	return top && top->node->kind == YT_MAP && !top->key;
}

static int take_key(struct builder *b, const char *value, size_t len, struct fs_mark at)
{
	struct open_container *top = top_of(b);
	const char *key = arena_strndup(b->doc, value, len);
	const struct key_ref *first;
	char shown[80];

	if (!key)
		return out_of_memory(b->err, b->opts->file);
	first = key_set_find(&b->keys, top->node, key);
	if (first)
		return fail(b, at, "duplicate key '%s' (first at line %u)",
			    yt_excerpt(shown, sizeof(shown), key), first->map->key_marks[first->index].line);
	top->key = key;
	top->key_mark = at;
	return 0;
}

static int on_scalar(struct builder *b, const yaml_event_t *ev)
{
	const char *value = (const char *)ev->data.scalar.value;
	const size_t len = ev->data.scalar.length;
	const struct fs_mark at = mark_of(b, ev->start_mark);
	struct yt_node *n;

	if (check_node_event(b, ev, ev->data.scalar.anchor, ev->data.scalar.tag))
		return -1;
	/* A double-quoted "\0" would silently cut a C string short. */
	if (memchr(value, '\0', len))
		return fail(b, at, "NUL character in a scalar (expected text without \\0)");
	if (expects_key(b))
		return take_key(b, value, len, at);
	n = new_node(b->doc, YT_SCALAR, at);
	if (!n || !(n->scalar = arena_strndup(b->doc, value, len)))
		return out_of_memory(b->err, b->opts->file);
	n->quoted = ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
	return attach(b, n);
}

static int push(struct builder *b, struct yt_node *n)
{
	if (b->depth == b->stack_cap) {
		const size_t cap = b->stack_cap ? b->stack_cap * 2 : 16;
		struct open_container *stack = realloc(b->stack, cap * sizeof(*stack));

		if (!stack)
			return out_of_memory(b->err, b->opts->file);
		b->stack = stack;
		b->stack_cap = cap;
	}
	b->stack[b->depth++] = (struct open_container){ .node = n };
	return 0;
}

static int on_container_start(struct builder *b, const yaml_event_t *ev, enum yt_kind kind)
{
	const struct fs_mark at = mark_of(b, ev->start_mark);
	const unsigned max_depth = b->doc->limits.max_depth;
	const yaml_char_t *anchor, *tag;
	struct yt_node *n;

	if (kind == YT_MAP) {
		anchor = ev->data.mapping_start.anchor;
		tag = ev->data.mapping_start.tag;
	} else {
		anchor = ev->data.sequence_start.anchor;
		tag = ev->data.sequence_start.tag;
	}
	if (check_node_event(b, ev, anchor, tag))
		return -1;
	if (expects_key(b))
		return fail(b, at, "a %s cannot be a key (expected a scalar key)", yt_kind_name(kind));
	if (b->depth + 1 + b->opts->depth_base > max_depth)
		return fail(b, at, "nesting deeper than %u levels (expected at most %u)", max_depth,
			    max_depth);
	n = new_node(b->doc, kind, at);
	if (!n)
		return out_of_memory(b->err, b->opts->file);
	return attach(b, n) || push(b, n) ? -1 : 0;
}

static int on_event(struct builder *b, const yaml_event_t *ev)
{
	switch (ev->type) {
	case YAML_DOCUMENT_START_EVENT:
		if (++b->documents > 1)
			return fail(b, mark_of(b, ev->start_mark),
				    "more than one document (expected a single YAML document)");
		return 0;
	case YAML_ALIAS_EVENT:
		return fail(b, mark_of(b, ev->start_mark),
			    "alias '*%s': anchors and aliases are not supported "
			    "(expected plain values; repeat the value instead)",
			    (const char *)ev->data.alias.anchor);
	case YAML_SCALAR_EVENT:
		return on_scalar(b, ev);
	case YAML_SEQUENCE_START_EVENT:
		return on_container_start(b, ev, YT_SEQ);
	case YAML_MAPPING_START_EVENT:
		return on_container_start(b, ev, YT_MAP);
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		b->depth--;
		return 0;
	default: /* stream start/end, document end, no event */
		return 0;
	}
}

static int syntax_error(struct builder *b, const yaml_parser_t *p, const unsigned char *text,
			size_t len)
{
	const char *problem = p->problem ? p->problem : "unknown error";
	struct fs_mark at, ctx;

	switch (p->error) {
	case YAML_MEMORY_ERROR:
		return out_of_memory(b->err, b->opts->file);
	case YAML_READER_ERROR:
		/* Reader errors carry a byte offset, not a mark. */
		at = mark_of_offset(b, text, len, p->problem_offset);
		if (p->problem_value != -1)
			return fail(b, at, "%s (#%X) (expected UTF-8 text)", problem,
				    (unsigned)p->problem_value);
		return fail(b, at, "%s (expected UTF-8 text)", problem);
	default:
		at = mark_of(b, p->problem_mark);
		if (!p->context)
			return fail(b, at, "YAML syntax error: %s", problem);
		ctx = mark_of(b, p->context_mark);
		if (b->opts->assignment)
			return fail(b, at, "YAML syntax error: %s (%s at column %u)", problem,
				    p->context, ctx.col);
		return fail(b, at, "YAML syntax error: %s (%s at line %u, column %u)", problem,
			    p->context, ctx.line, ctx.col);
	}
}

/* The tree of an input without a document, or with only an empty one. */
static struct yt_node *empty_root(struct builder *b, struct fs_mark at)
{
	struct yt_node *n = b->opts->empty_is_map ? yt_new_map(b->doc, at)
						  : yt_new_scalar(b->doc, "", false, at);

	if (!n)
		out_of_memory(b->err, b->opts->file);
	return n;
}

static struct yt_node *finish_root(struct builder *b)
{
	struct yt_node *r = b->root;

	if (!r)
		return empty_root(b, mark_at(b, 0, 0));
	/* `---` alone is a document holding an empty plain scalar (null). */
	if (b->opts->empty_is_map && r->kind == YT_SCALAR && !r->quoted && r->scalar[0] == '\0')
		return empty_root(b, r->mark);
	return r;
}

static int check_no_nul(struct builder *b, const unsigned char *text, size_t len)
{
	const unsigned char *nul = memchr(text, '\0', len);

	if (!nul)
		return 0;
	return fail(b, mark_of_offset(b, text, len, (size_t)(nul - text)),
		    "NUL byte in the input (expected UTF-8 text)");
}

static struct yt_node *load_text(struct yt_doc *d, const struct load_opts *opts,
				 const unsigned char *text, size_t len, struct fs_error *e)
{
	struct builder b = { .doc = d, .opts = opts, .err = e };
	struct yt_node *root = NULL;
	yaml_parser_t parser;
	bool done = false;
	int rc = 0;

	if (check_no_nul(&b, text, len))
		return NULL;
	if (!yaml_parser_initialize(&parser)) {
		out_of_memory(e, opts->file);
		return NULL;
	}
	yaml_parser_set_input_string(&parser, text, len);
	while (!done && rc == 0) {
		yaml_event_t ev;

		if (!yaml_parser_parse(&parser, &ev)) {
			rc = syntax_error(&b, &parser, text, len);
			break;
		}
		done = ev.type == YAML_STREAM_END_EVENT;
		rc = on_event(&b, &ev);
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	if (rc == 0)
		root = finish_root(&b);
	free(b.stack);
	free(b.keys.slots);
	return root;
}

struct yt_node *yt_load_string(struct yt_doc *d, const char *name, const char *text, size_t len,
			       struct fs_error *e)
{
	struct load_opts opts = { .empty_is_map = true };

	if (!d) {
		fs_fail(e, FS_ERR_RUNTIME, "yt_load_string: no document");
		return NULL;
	}
	opts.file = intern_name(d, name ? name : "<string>");
	if (!opts.file) {
		out_of_memory(e, name);
		return NULL;
	}
	if (!text)
		text = "";
	if (len > d->limits.max_bytes) {
		fs_fail(e, FS_ERR_INPUT, "%s: input is larger than the limit (expected at most %zu bytes)",
			opts.file, d->limits.max_bytes);
		return NULL;
	}
	return load_text(d, &opts, (const unsigned char *)text, len, e);
}

/* Reads at most `max + 1` bytes, so an oversized (or endless) input is
 * refused without reading it all. */
static char *read_file(FILE *f, size_t max, size_t *len)
{
	const size_t limit = max == SIZE_MAX ? SIZE_MAX - 1 : max + 1;
	size_t cap = 0, n = 0;
	char *buf = NULL;

	for (;;) {
		size_t want, got;

		if (n == cap) {
			size_t bigger = cap ? cap * 2 : 65536;
			char *grown;

			if (bigger > limit)
				bigger = limit;
			if (bigger <= cap)
				break;
			grown = realloc(buf, bigger);
			if (!grown) {
				free(buf);
				errno = ENOMEM;
				return NULL;
			}
			buf = grown;
			cap = bigger;
		}
		want = cap - n;
		got = fread(buf + n, 1, want, f);
		n += got;
		if (got < want)
			break;
	}
	if (ferror(f)) {
		free(buf);
		return NULL;
	}
	*len = n;
	return buf ? buf : calloc(1, 1);
}

/* Whether st is /dev/null's: the empty input (a scenario made of --set overrides alone). */
static bool is_dev_null(const struct stat *st)
{
	struct stat null;

	return S_ISCHR(st->st_mode) && stat("/dev/null", &null) == 0 && S_ISCHR(null.st_mode) &&
	       null.st_rdev == st->st_rdev;
}

/* `path` opened for reading if it is a regular file (or /dev/null): a FIFO's open
 * would wait for a writer (so it is opened without blocking, then looked at), a
 * device or a FIFO may never end, a directory has no text. NULL (e filled) otherwise. */
static FILE *open_regular(const char *path, struct fs_error *e)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC), flags;
	struct stat st;
	FILE *f;

	if (fd < 0 || fstat(fd, &st) < 0) {
		fs_fail(e, FS_ERR_INPUT, "cannot read %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode) && !is_dev_null(&st)) {
		fs_fail(e, FS_ERR_INPUT, "cannot read %s: it is %s, not a YAML file", path,
			S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO"
			: S_ISSOCK(st.st_mode) ? "a socket" : "a device");
		close(fd);
		return NULL;
	}
	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0 || !(f = fdopen(fd, "rb"))) {
		fs_fail(e, FS_ERR_INPUT, "cannot read %s: %s", path, strerror(errno));
		close(fd);
		return NULL;
	}
	return f;
}

struct yt_node *yt_load_file(struct yt_doc *d, const char *path, struct fs_error *e)
{
	return yt_load_file_text(d, path, NULL, NULL, e);
}

struct yt_node *yt_load_file_text(struct yt_doc *d, const char *path, const char **keep, size_t *keep_len,
				  struct fs_error *e)
{
	struct yt_node *root;
	size_t len = 0;
	char *text;
	FILE *f;

	if (!d || !path) {
		fs_fail(e, FS_ERR_RUNTIME, "yt_load_file: no document or path");
		return NULL;
	}
	f = open_regular(path, e);
	if (!f)
		return NULL;
	errno = 0;
	text = read_file(f, d->limits.max_bytes, &len);
	if (!text) {
		fs_fail(e, errno == ENOMEM ? FS_ERR_RUNTIME : FS_ERR_INPUT, "cannot read %s: %s", path,
			strerror(errno ? errno : EIO));
		fclose(f);
		return NULL;
	}
	fclose(f);
	root = yt_load_string(d, path, text, len, e);
	if (root && keep) {
		/* the loader refuses NUL bytes, so the copy is the whole text */
		*keep = arena_strndup(d, text, len);
		*keep_len = len;
		if (!*keep) {
			out_of_memory(e, path);
			root = NULL;
		}
	}
	free(text);
	return root;
}

/* ---- recorded defaults ---------------------------------------------------- */

void yt_doc_record_defaults(struct yt_doc *d, bool on)
{
	if (d)
		d->record_defaults = on;
}

int yt_note_default(const struct yt_node *map, const char *key, const char *text, bool quoted)
{
	static const struct fs_mark at = { "<default>", 0, 0 };
	struct yt_doc *d = map ? map->doc : NULL;
	struct yt_node *value;

	if (!d || !d->record_defaults || map->kind != YT_MAP || yt_find(map, key) >= 0)
		return 0;
	value = yt_new_scalar(d, text, quoted, at);
	/* the doc owns `map`: readers see it as const, the doc may still extend it */
	return value ? yt_map_put(d, (struct yt_node *)map, key, at, value) : -1;
}

/* ---- --set overrides ------------------------------------------------------ */

static bool is_path_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
	       c == '-';
}

static int set_fail(struct fs_error *e, const char *assignment, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int set_fail(struct fs_error *e, const char *assignment, const char *fmt, ...)
{
	char why[800];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return fs_fail(e, FS_ERR_INPUT, "--set '%s': %s", assignment, why);
}

/* Checks "a.b-c.d_e" (the `len` bytes before '='); returns the number of keys. */
static int check_path(const char *assignment, size_t len, size_t *nkeys, struct fs_error *e)
{
	size_t keys = 1, key_len = 0;

	if (len == 0)
		return set_fail(e, assignment, "empty path (expected PATH=VALUE, e.g. workload.threads=8)");
	for (size_t i = 0; i < len; i++) {
		const char c = assignment[i];

		if (c == '.') {
			if (key_len == 0)
				return set_fail(e, assignment,
						"column %zu: empty key in the path (expected keys separated by single dots)",
						i + 1);
			keys++;
			key_len = 0;
		} else if (!is_path_char(c)) {
			char shown[8];
			const char one[2] = { c, '\0' };

			return set_fail(e, assignment,
					"column %zu: character '%s' in the path (expected letters, digits, '_' or '-' in keys separated by '.')",
					i + 1, (unsigned char)c < 0x80 ? yt_excerpt(shown, sizeof(shown), one)
								       : "non-ASCII");
		} else {
			key_len++;
		}
	}
	if (key_len == 0)
		return set_fail(e, assignment,
				"column %zu: empty key in the path (expected keys separated by single dots)",
				len + 1);
	*nkeys = keys;
	return 0;
}

/* Control characters would end up inside marks and break one-line messages. */
static int check_assignment_chars(const char *assignment, struct fs_error *e)
{
	for (const char *p = assignment; *p; p++) {
		const unsigned char c = (unsigned char)*p;

		if ((c < 0x20 && c != '\t') || c == 0x7f) {
			char shown[600];

			return fs_fail(e, FS_ERR_INPUT,
				       "--set '%s': control character \\x%02x at column %zu (expected a one-line PATH=VALUE)",
				       yt_excerpt(shown, sizeof(shown), assignment), c,
				       (size_t)(p - assignment) + 1);
		}
	}
	return 0;
}

/* Without changing anything, fails if the path runs into a sequence before
 * its last key, so a failing override leaves the tree as it was. */
static int check_path_walk(const struct yt_node *root, const char *assignment, size_t path_len,
			   struct fs_error *e)
{
	const struct yt_node *n = root;
	size_t start = 0;

	for (size_t i = 0; i < path_len; i++) {
		const struct yt_node *next = NULL;

		if (assignment[i] != '.')
			continue;
		for (size_t k = 0; k < n->len; k++)
			if (strlen(n->keys[k]) == i - start &&
			    memcmp(n->keys[k], assignment + start, i - start) == 0)
				next = n->items[k];
		if (!next || next->kind == YT_SCALAR)
			return 0; /* the rest of the path is created */
		if (next->kind == YT_SEQ)
			return set_fail(e, assignment,
					"'%.*s' is a sequence (at %s:%u:%u), a key cannot be set inside it (expected a path through maps)",
					(int)i, assignment, next->mark.file ? next->mark.file : "?",
					next->mark.line, next->mark.col);
		n = next;
		start = i + 1;
	}
	return 0;
}

/* The map under `key` in `parent`, created when missing; a scalar S there
 * becomes {preset: S}, a map the --set made: marked at the key in the --set text,
 * so that an error about it (a duration given a field) names the --set, not the
 * scalar's line. check_path_walk ruled out sequences. */
static struct yt_node *descend(struct yt_doc *d, struct yt_node *parent, const char *key,
			       struct fs_mark key_at)
{
	const long i = yt_find(parent, key);
	struct yt_node *child, *wrapped;

	if (i < 0) {
		child = yt_new_map(d, key_at);
		return child && map_append(d, parent, key, key_at, child) == 0 ? child : NULL;
	}
	child = parent->items[i];
	if (child->kind == YT_MAP)
		return child;
	wrapped = yt_new_map(d, key_at);
	if (!wrapped || map_append(d, wrapped, "preset", child->mark, child))
		return NULL;
	parent->items[i] = wrapped;
	return wrapped;
}

static int set_path(struct yt_doc *d, struct yt_node *root, const char *assignment, size_t path_len,
		    const char *file, struct yt_node *value)
{
	struct yt_node *n = root;
	size_t start = 0;

	for (size_t i = 0; i <= path_len; i++) {
		struct fs_mark key_at = { file, 1, clamp_unsigned(start + 1) };
		const char *key;

		if (i < path_len && assignment[i] != '.')
			continue;
		key = arena_strndup(d, assignment + start, i - start);
		if (!key)
			return -1;
		if (i == path_len)
			return yt_map_put(d, n, key, key_at, value);
		n = descend(d, n, key, key_at);
		if (!n)
			return -1;
		start = i + 1;
	}
	return -1;
}

static char *set_file_name(const char *assignment)
{
	static const char prefix[] = "--set ";
	const size_t len = strlen(assignment);
	char *name = malloc(sizeof(prefix) + len);

	if (name) {
		memcpy(name, prefix, sizeof(prefix) - 1);
		memcpy(name + sizeof(prefix) - 1, assignment, len + 1);
	}
	return name;
}

int yt_apply_set(struct yt_doc *d, struct yt_node **root, const char *assignment, struct fs_error *e)
{
	struct load_opts opts = { .empty_is_map = false };
	const char *eq, *value_text;
	struct yt_node *value;
	size_t nkeys = 0, path_len;
	char *name;

	if (!d || !root || !assignment)
		return fs_fail(e, FS_ERR_RUNTIME, "yt_apply_set: missing argument");
	if (check_assignment_chars(assignment, e))
		return -1;
	eq = strchr(assignment, '=');
	if (!eq)
		return set_fail(e, assignment, "no '=' (expected PATH=VALUE, e.g. workload.threads=8)");
	path_len = (size_t)(eq - assignment);
	if (check_path(assignment, path_len, &nkeys, e))
		return -1;
	if (nkeys > d->limits.max_depth)
		return set_fail(e, assignment, "path of %zu keys nests deeper than %u levels (expected at most %u)",
				nkeys, d->limits.max_depth, d->limits.max_depth);
	if (*root && (*root)->kind != YT_MAP)
		return set_fail(e, assignment, "the document is a %s (expected a map)",
				yt_kind_name((*root)->kind));
	if (*root && check_path_walk(*root, assignment, path_len, e))
		return -1;

	name = set_file_name(assignment);
	opts.file = name ? intern_name(d, name) : NULL;
	free(name);
	if (!opts.file)
		return out_of_memory(e, "--set");
	opts.assignment = assignment;
	opts.col_offset = clamp_unsigned(path_len + 1);
	opts.depth_base = clamp_unsigned(nkeys);
	value_text = eq + 1;
	value = load_text(d, &opts, (const unsigned char *)value_text, strlen(value_text), e);
	if (!value)
		return -1;
	if (!*root) {
		*root = yt_new_map(d, (struct fs_mark){ opts.file, 1, 1 });
		if (!*root)
			return out_of_memory(e, "--set");
	}
	if (set_path(d, *root, assignment, path_len, opts.file, value))
		return out_of_memory(e, "--set");
	return 0;
}

/* ---- merge and copy ------------------------------------------------------- */

struct yt_node *yt_merge(struct yt_doc *d, const struct yt_node *base, const struct yt_node *over)
{
	struct yt_node *m;

	if (!over || !base || base->kind != YT_MAP || over->kind != YT_MAP)
		return (struct yt_node *)(over ? over : base);
	m = yt_new_map(d, over->mark);
	if (!m)
		return NULL;
	for (size_t i = 0; i < base->len; i++) {
		const long j = yt_find(over, base->keys[i]);
		struct yt_node *v = base->items[i];
		struct fs_mark key_at = base->key_marks[i];

		if (j >= 0) {
			v = yt_merge(d, v, over->items[j]);
			key_at = over->key_marks[j];
		}
		if (!v || map_append(d, m, base->keys[i], key_at, v))
			return NULL;
	}
	for (size_t j = 0; j < over->len; j++)
		if (yt_find(base, over->keys[j]) < 0 &&
		    map_append(d, m, over->keys[j], over->key_marks[j], over->items[j]))
			return NULL;
	return m;
}

/* Re-points a mark at `d`'s copy of its file name; `last` caches the previous
 * lookup since neighbouring nodes nearly always come from the same file. */
struct name_cache {
	const char *from;
	const char *to;
};

static int copy_mark(struct yt_doc *d, struct fs_mark *m, struct name_cache *last)
{
	if (!m->file)
		return 0;
	if (m->file != last->from) {
		const char *to = intern_name(d, m->file);

		if (!to)
			return -1;
		last->from = m->file;
		last->to = to;
	}
	m->file = last->to;
	return 0;
}

static struct yt_node *copy_node(struct yt_doc *d, const struct yt_node *n, struct name_cache *names)
{
	struct fs_mark at = n->mark;
	struct yt_node *c;

	if (copy_mark(d, &at, names))
		return NULL;
	if (n->kind == YT_SCALAR)
		return yt_new_scalar(d, n->scalar, n->quoted, at);
	c = new_node(d, n->kind, at);
	if (!c)
		return NULL;
	for (size_t i = 0; i < n->len; i++) {
		struct yt_node *item = copy_node(d, n->items[i], names);

		if (!item)
			return NULL;
		if (n->kind == YT_SEQ) {
			if (yt_seq_append(d, c, item))
				return NULL;
		} else {
			struct fs_mark key_at = n->key_marks[i];
			const char *key = arena_strndup(d, n->keys[i], strlen(n->keys[i]));

			if (!key || copy_mark(d, &key_at, names) || map_append(d, c, key, key_at, item))
				return NULL;
		}
	}
	return c;
}

struct yt_node *yt_copy(struct yt_doc *d, const struct yt_node *n)
{
	struct name_cache names = { NULL, NULL };

	return d && n ? copy_node(d, n, &names) : NULL;
}

/* ---- emitting ------------------------------------------------------------- */

static int emit_event(yaml_emitter_t *em, yaml_event_t *ev, int initialized)
{
	/* The emitter takes ownership of the event, also when it fails. */
	return initialized && yaml_emitter_emit(em, ev) ? 0 : -1;
}

/* Plain when not quoted: libyaml's emitter itself switches to quotes when the
 * text cannot be read back as the same plain scalar. Quoted scalars stay
 * quoted, so "yes" or "1" that were strings remain strings. */
static int emit_scalar(yaml_emitter_t *em, const char *s, bool quoted)
{
	const size_t len = strlen(s);
	yaml_event_t ev;

	if (len > INT_MAX)
		return -1;
	return emit_event(em, &ev,
			  yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, (int)len, 1, 1,
						       quoted ? YAML_DOUBLE_QUOTED_SCALAR_STYLE
							      : YAML_PLAIN_SCALAR_STYLE));
}

static int emit_node(yaml_emitter_t *em, const struct yt_node *n)
{
	yaml_event_t ev;

	switch (n->kind) {
	case YT_SCALAR:
		return emit_scalar(em, n->scalar, n->quoted);
	case YT_SEQ:
		if (emit_event(em, &ev,
			       yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
								    YAML_BLOCK_SEQUENCE_STYLE)))
			return -1;
		for (size_t i = 0; i < n->len; i++)
			if (emit_node(em, n->items[i]))
				return -1;
		return emit_event(em, &ev, yaml_sequence_end_event_initialize(&ev));
	case YT_MAP:
		if (emit_event(em, &ev,
			       yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
								   YAML_BLOCK_MAPPING_STYLE)))
			return -1;
		for (size_t i = 0; i < n->len; i++)
			if (emit_scalar(em, n->keys[i], false) || emit_node(em, n->items[i]))
				return -1;
		return emit_event(em, &ev, yaml_mapping_end_event_initialize(&ev));
	}
	return -1;
}

static int emit_document(yaml_emitter_t *em, const struct yt_node *n)
{
	yaml_event_t ev;

	yaml_emitter_set_unicode(em, 1);
	yaml_emitter_set_width(em, -1); /* no folding of long scalars */
	if (emit_event(em, &ev, yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING)) ||
	    emit_event(em, &ev, yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1)) ||
	    emit_node(em, n) || emit_event(em, &ev, yaml_document_end_event_initialize(&ev, 1)) ||
	    emit_event(em, &ev, yaml_stream_end_event_initialize(&ev)))
		return -1;
	return yaml_emitter_flush(em) ? 0 : -1;
}

static int write_to_file(void *data, unsigned char *buffer, size_t size)
{
	return fwrite(buffer, 1, size, data) == size;
}

int yt_emit(FILE *f, const struct yt_node *n)
{
	yaml_emitter_t em;
	int rc;

	if (!f || !n || !yaml_emitter_initialize(&em))
		return -1;
	yaml_emitter_set_output(&em, write_to_file, f);
	rc = emit_document(&em, n);
	yaml_emitter_delete(&em);
	if (fflush(f) != 0 || ferror(f))
		rc = -1;
	return rc;
}

struct string_sink {
	char *buf;
	size_t len;
	size_t cap;
};

static int write_to_string(void *data, unsigned char *buffer, size_t size)
{
	struct string_sink *s = data;

	if (size >= s->cap - s->len) {
		size_t cap = s->cap ? s->cap : 256;
		char *grown;

		while (size >= cap - s->len) {
			if (cap > SIZE_MAX / 2)
				return 0;
			cap *= 2;
		}
		grown = realloc(s->buf, cap);
		if (!grown)
			return 0;
		s->buf = grown;
		s->cap = cap;
	}
	memcpy(s->buf + s->len, buffer, size);
	s->len += size;
	s->buf[s->len] = '\0';
	return 1;
}

char *yt_emit_string(const struct yt_node *n)
{
	struct string_sink sink = { NULL, 0, 0 };
	yaml_emitter_t em;
	int rc;

	if (!n || !yaml_emitter_initialize(&em))
		return NULL;
	yaml_emitter_set_output(&em, write_to_string, &sink);
	rc = emit_document(&em, n);
	yaml_emitter_delete(&em);
	if (rc != 0 || !sink.buf) {
		free(sink.buf);
		return NULL;
	}
	return sink.buf;
}
