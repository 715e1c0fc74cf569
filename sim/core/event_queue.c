/* SPDX-License-Identifier: MIT */
#include "sim/core/event_queue.h"

#include <stdlib.h>

#include "sim/core/registry.h"

static const struct event_queue_type *const types[EVENT_QUEUE_NTYPES] = { &event_queue_heap4, &event_queue_heap2 };
static const struct registry registry =
	REGISTRY_OF_POINTERS(types, EVENT_QUEUE_NTYPES, struct event_queue_type, name);

const struct event_queue_type *event_queue_find(const char *name)
{
	return registry_find(&registry, name);
}

const struct event_queue_type *event_queue_at(size_t i)
{
	return registry_at(&registry, i);
}

const char *const *event_queue_names(const char **out)
{
	return registry_names(&registry, out);
}

int event_queue_init(struct event_queue *q)
{
	q->len = 0;
	q->cap = 256;
	q->ev = malloc(q->cap * sizeof(*q->ev));
	return q->ev ? 0 : -1;
}

void event_queue_free(struct event_queue *q)
{
	free(q->ev);
	q->ev = NULL;
	q->len = q->cap = 0;
}

int event_queue_reserve(struct event_queue *q)
{
	size_t cap;
	struct event *ev;

	if (q->len < q->cap)
		return 0;
	cap = q->cap * 2;
	ev = realloc(q->ev, cap * sizeof(*ev));
	if (!ev)
		return -1;
	q->ev = ev;
	q->cap = cap;
	return 0;
}
