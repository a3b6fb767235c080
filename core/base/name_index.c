/* The name index; see name_index.h. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/name_index.h"

void name_index_init(struct name_index *idx)
{
	*idx = (struct name_index){ .slots = NULL, .cap = 0, .count = 0 };
}

void name_index_fini(struct name_index *idx)
{
	for (size_t i = 0; i < idx->cap; i++)
		free(idx->slots[i].name);
	free(idx->slots);
	name_index_init(idx);
}

/* FNV-1a: short names, no adversary worth more (the file is root's). */
static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* The slot holding `name`, or the empty one where it would go. */
static struct name_index_slot *slot_of(const struct name_index *idx, const char *name)
{
	size_t mask = idx->cap - 1;

	for (size_t i = (size_t)hash(name) & mask;; i = (i + 1) & mask)
		if (!idx->slots[i].name || !strcmp(idx->slots[i].name, name))
			return &idx->slots[i];
}

int name_index_find(const struct name_index *idx, const char *name, size_t *ret_value)
{
	if (!idx->cap)
		return -ENOENT;
	const struct name_index_slot *s = slot_of(idx, name);
	if (!s->name)
		return -ENOENT;
	*ret_value = s->value;
	return 0;
}

static int grow(struct name_index *idx)
{
	struct name_index bigger = { .cap = idx->cap ? idx->cap * 2 : 16, .count = idx->count };

	bigger.slots = calloc(bigger.cap, sizeof(*bigger.slots));
	if (!bigger.slots)
		return -ENOMEM;
	for (size_t i = 0; i < idx->cap; i++)
		if (idx->slots[i].name)
			*slot_of(&bigger, idx->slots[i].name) = idx->slots[i];
	free(idx->slots);
	*idx = bigger;
	return 0;
}

int name_index_add(struct name_index *idx, const char *name, size_t value)
{
	if ((idx->count + 1) * 2 > idx->cap && grow(idx) < 0)
		return -ENOMEM;
	struct name_index_slot *s = slot_of(idx, name);
	if (s->name)
		return -EEXIST;
	s->name = strdup(name);
	if (!s->name)
		return -ENOMEM;
	s->value = value;
	idx->count++;
	return 0;
}
