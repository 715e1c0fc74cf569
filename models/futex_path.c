#include "models/futex_path.h"

#include <string.h>

#include "models/memmap.h"
#include "models/rwsem.h"

const char *const futex_step_names[] = {
	"syscall", "get_key", "hash_lookup", "wait_setup", "waiters_inc",
	"lock", "read_uval", "waiters_dec", "unlock", "hash_put",
	"mmap_read_lock", "mmap_read_unlock", "find_vma", "key_ref_get", "key_ref_put", NULL,
};

int futex_step_find(const char *name)
{
	for (int i = 0; futex_step_names[i]; i++)
		if (strcmp(futex_step_names[i], name) == 0)
			return i;
	return -1;
}

void path_emit(struct path_builder *b, struct uop u)
{
	if (b->n == b->cap) {
		b->overflow = true;
		return;
	}
	b->uops[b->n++] = u;
}

void path_emit_work(struct path_builder *b, simtime_t ps)
{
	/* consecutive local work is one micro-op: fewer steps on the hot path */
	if (b->n && b->uops[b->n - 1].kind == UOP_WORK) {
		b->uops[b->n - 1].work_ps += ps;
		return;
	}
	if (ps)
		path_emit(b, (struct uop){ .kind = UOP_WORK, .operand = OPND_NONE, .work_ps = ps });
}

void path_emit_access(struct path_builder *b, enum access_kind kind, enum uop_operand operand, uint32_t arg)
{
	if (operand == OPND_LINE && arg == COH_NONE) {
		b->missing_line = true;
		return;
	}
	path_emit(b, (struct uop){ .kind = UOP_ACCESS, .access = (uint8_t)kind, .operand = (uint8_t)operand,
				   .arg = arg });
}

/* --- steps --- */

static void step_syscall(struct path_builder *b)
{
	path_emit_work(b, b->m->syscall_ps);
}

static void step_get_key(struct path_builder *b)
{
	if (!b->shared) {
		path_emit_work(b, b->costs_ps[KC_KEY_PRIVATE]);
		return;
	}
	/* get_user_pages_fast takes a page reference, get_futex_key drops it */
	path_emit_work(b, b->costs_ps[KC_KEY_SHARED]);
	path_emit_access(b, ACCESS_RMW, OPND_PAGE_LINE, 0);
	path_emit_access(b, ACCESS_RMW, OPND_PAGE_LINE, 0);
}

static bool uses_private_hash(const struct path_builder *b)
{
	return b->private_hash && !b->shared;
}

static void step_hash_lookup(struct path_builder *b)
{
	if (!uses_private_hash(b)) {
		path_emit_work(b, b->costs_ps[KC_HASH_GLOBAL]);
		return;
	}
	path_emit_access(b, ACCESS_READ, OPND_LINE, b->mm_lines[MMF_FUTEX_PHASH]);
	b->k->private_hash.refcount->emit_get(b);
	path_emit_work(b, b->costs_ps[KC_HASH_PRIVATE]);
	path_emit_access(b, ACCESS_READ, OPND_LINE, b->phash_lines[PHF_HASH_MASK]);
}

static void step_wait_setup(struct path_builder *b)
{
	path_emit_work(b, b->costs_ps[KC_WAIT_SETUP]);
}

static void step_waiters(struct path_builder *b)
{
	path_emit_access(b, ACCESS_RMW, OPND_BUCKET_FIELD, BF_WAITERS);
}

static void step_lock(struct path_builder *b)
{
	/* work_ps: local work of the MCS slow path, spent only when the lock is contended */
	path_emit(b, (struct uop){ .kind = UOP_LOCK, .operand = OPND_BUCKET_LOCK,
				   .work_ps = b->costs_ps[KC_LOCK_SLOWPATH] });
}

static void step_read_uval(struct path_builder *b)
{
	path_emit_work(b, b->costs_ps[KC_UVAL_READ]);
	path_emit_access(b, ACCESS_READ, OPND_WORD_LINE, 0);
}

static void step_unlock(struct path_builder *b)
{
	path_emit(b, (struct uop){ .kind = UOP_UNLOCK, .operand = OPND_BUCKET_LOCK });
}

static void step_hash_put(struct path_builder *b)
{
	if (b->k->bucket.off[BF_PRIV] != LAYOUT_ABSENT)
		path_emit_access(b, ACCESS_READ, OPND_BUCKET_FIELD, BF_PRIV);
	if (uses_private_hash(b))
		b->k->private_hash.refcount->emit_put(b);
}

/* Before 2.6.22 every futex op looked the futex up through the mm; afterwards only
 * ops without FUTEX_PRIVATE_FLAG do. */
static bool legacy_key(const struct path_builder *b)
{
	return b->shared || !b->k->private_flag;
}

static void step_mmap_rwsem(struct path_builder *b, enum rwsem_op op)
{
	if (legacy_key(b))
		path_emit(b, (struct uop){ .kind = UOP_RWSEM, .access = (uint8_t)op, .operand = OPND_NONE,
					   .arg = b->mmap_sem });
}

static void step_mmap_read_lock(struct path_builder *b)
{
	step_mmap_rwsem(b, RWSEM_DOWN_READ);
}

static void step_mmap_read_unlock(struct path_builder *b)
{
	step_mmap_rwsem(b, RWSEM_UP_READ);
}

static void step_find_vma(struct path_builder *b)
{
	if (!legacy_key(b))
		return;
	path_emit_work(b, b->costs_ps[KC_FIND_VMA]);
	path_emit_access(b, ACCESS_READ, OPND_LINE, b->mm_lines[MMF_MMAP_CACHE]);
}

static void step_key_ref(struct path_builder *b)
{
	if (legacy_key(b))
		path_emit_access(b, ACCESS_RMW, OPND_LINE, b->mm_lines[MMF_MM_COUNT]);
}

struct step_def {
	void (*emit)(struct path_builder *b);
	int needs_field; /* bucket field the step cannot do without, or -1 */
};

static const struct step_def steps[STEP_NSTEPS] = {
	[STEP_SYSCALL] = { step_syscall, -1 },
	[STEP_GET_KEY] = { step_get_key, -1 },
	[STEP_HASH_LOOKUP] = { step_hash_lookup, -1 },
	[STEP_WAIT_SETUP] = { step_wait_setup, -1 },
	[STEP_WAITERS_INC] = { step_waiters, BF_WAITERS },
	[STEP_LOCK] = { step_lock, BF_LOCK },
	[STEP_READ_UVAL] = { step_read_uval, -1 },
	[STEP_WAITERS_DEC] = { step_waiters, BF_WAITERS },
	[STEP_UNLOCK] = { step_unlock, BF_LOCK },
	[STEP_HASH_PUT] = { step_hash_put, -1 },
	[STEP_MMAP_READ_LOCK] = { step_mmap_read_lock, -1 },
	[STEP_MMAP_READ_UNLOCK] = { step_mmap_read_unlock, -1 },
	[STEP_FIND_VMA] = { step_find_vma, -1 },
	[STEP_KEY_REF_GET] = { step_key_ref, -1 },
	[STEP_KEY_REF_PUT] = { step_key_ref, -1 },
};

/* A path must leave the bucket unlocked: every lock is followed by one unlock. */
static int check_locking(const struct kernel_path *p, const char *op, struct fs_error *e)
{
	int held = 0;

	for (uint32_t i = 0; i < p->nsteps; i++) {
		if (p->steps[i] == STEP_LOCK && held++)
			return fs_fail(e, FS_ERR_INPUT, "kernel path %s: 'lock' while the bucket lock is held", op);
		if (p->steps[i] == STEP_UNLOCK && !held--)
			return fs_fail(e, FS_ERR_INPUT, "kernel path %s: 'unlock' without 'lock'", op);
	}
	if (held)
		return fs_fail(e, FS_ERR_INPUT, "kernel path %s: 'lock' without 'unlock'", op);
	return 0;
}

int futex_path_build(struct path_builder *b, enum futex_op_kind op, struct fs_error *e)
{
	const struct kernel_path *p = &b->k->paths[op];
	const char *name = futex_op_kind_names[op];

	if (check_locking(p, name, e) < 0)
		return -1;
	for (uint32_t i = 0; i < p->nsteps; i++) {
		const struct step_def *s = &steps[p->steps[i]];

		if (s->needs_field >= 0 && b->k->bucket.off[s->needs_field] == LAYOUT_ABSENT)
			return fs_fail(e, FS_ERR_INPUT,
				       "kernel path %s: step '%s' needs layout.bucket.fields.%s", name,
				       futex_step_names[p->steps[i]], bucket_field_names[s->needs_field]);
		s->emit(b);
		if (b->missing_line)
			return fs_fail(e, FS_ERR_INPUT,
				       "kernel path %s: step '%s' touches an mm or private-hash field the layout "
				       "does not have (layout.mm / layout.private_hash_header)",
				       name, futex_step_names[p->steps[i]]);
	}
	if (b->overflow)
		return fs_fail(e, FS_ERR_INPUT, "kernel path %s: more than %u micro-operations", name, b->cap);
	return 0;
}
