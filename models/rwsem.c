/* SPDX-License-Identifier: MIT */
#include "models/rwsem.h"

#include <stdlib.h>
#include <string.h>

int rwsems_init(struct rwsems *s, uint32_t nrequesters)
{
	size_t n = nrequesters ? nrequesters : 1;

	memset(s, 0, sizeof(*s));
	s->next = calloc(n, sizeof(*s->next));
	s->wants_write = calloc(n, sizeof(*s->wants_write));
	s->queued_at = calloc(n, sizeof(*s->queued_at));
	if (!s->next || !s->wants_write || !s->queued_at) {
		rwsems_free(s);
		return -1;
	}
	return 0;
}

void rwsems_free(struct rwsems *s)
{
	free(s->v);
	free(s->next);
	free(s->wants_write);
	free(s->queued_at);
	memset(s, 0, sizeof(*s));
}

uint32_t rwsem_add(struct rwsems *s, uint32_t line)
{
	if (s->n == s->cap) {
		uint32_t cap = s->cap ? s->cap * 2 : 16;
		struct rwsem *v = realloc(s->v, (size_t)cap * sizeof(*v));

		if (!v)
			return RWSEM_NONE;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n] = (struct rwsem){ .line = line, .writer = RWSEM_NONE, .qhead = RWSEM_NONE, .qtail = RWSEM_NONE };
	return s->n++;
}

bool rwsem_down(struct rwsems *s, uint32_t sem, uint32_t r, bool write, simtime_t now)
{
	struct rwsem *w = &s->v[sem];
	bool free_for_me = w->writer == RWSEM_NONE && w->qhead == RWSEM_NONE && (!write || w->readers == 0);

	if (free_for_me) {
		if (write) {
			w->writer = r;
			w->writes++;
		} else {
			w->readers++;
			w->reads++;
		}
		return true;
	}
	s->next[r] = RWSEM_NONE;
	s->wants_write[r] = write;
	s->queued_at[r] = now;
	if (w->qtail == RWSEM_NONE)
		w->qhead = r;
	else
		s->next[w->qtail] = r;
	w->qtail = r;
	w->contended++;
	return false;
}

void rwsem_up(struct rwsems *s, uint32_t sem, uint32_t r, bool write)
{
	struct rwsem *w = &s->v[sem];

	/* releasing what one does not hold is a model bug */
	if (write ? w->writer != r : w->readers == 0)
		abort();
	if (write)
		w->writer = RWSEM_NONE;
	else
		w->readers--;
}

uint32_t rwsem_grant_next(struct rwsems *s, uint32_t sem, simtime_t now)
{
	struct rwsem *w = &s->v[sem];
	uint32_t r = w->qhead;

	if (r == RWSEM_NONE || w->writer != RWSEM_NONE)
		return RWSEM_NONE;
	if (s->wants_write[r]) {
		if (w->readers)
			return RWSEM_NONE;
		w->writer = r;
		w->writes++;
	} else {
		w->readers++;
		w->reads++;
	}
	w->qhead = s->next[r];
	if (w->qhead == RWSEM_NONE)
		w->qtail = RWSEM_NONE;
	w->wait_ps += now - s->queued_at[r];
	return r;
}

void rwsems_reset_stats(struct rwsems *s)
{
	for (uint32_t i = 0; i < s->n; i++) {
		s->v[i].reads = s->v[i].writes = s->v[i].contended = 0;
		s->v[i].wait_ps = 0;
	}
}
