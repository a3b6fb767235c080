/* The name index; see name_index.h. */
#include <errno.h>
#include <stdbool.h>
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

/* Whether slot `home` lies cyclically in (hole, at]: an entry at `at` whose probe began there must not
 * move back into the hole, or a lookup from its home would stop at the hole before reaching it. */
static bool stays(size_t home, size_t hole, size_t at)
{
	return hole <= at ? home > hole && home <= at : home > hole || home <= at;
}

int name_index_remove(struct name_index *idx, const char *name, size_t value)
{
	if (!idx->cap)
		return -ENOENT;
	struct name_index_slot *s = slot_of(idx, name);
	if (!s->name || s->value != value)
		return -ENOENT;
	size_t mask = idx->cap - 1, hole = (size_t)(s - idx->slots);
	free(s->name);
	s->name = NULL;
	idx->count--;
	/* Linear probing has no tombstones here: the entries after the hole move back into it when
	 * their probe passed through it (backward-shift deletion). */
	for (size_t at = (hole + 1) & mask; idx->slots[at].name; at = (at + 1) & mask) {
		if (stays((size_t)hash(idx->slots[at].name) & mask, hole, at))
			continue;
		idx->slots[hole] = idx->slots[at];
		idx->slots[at].name = NULL;
		hole = at;
	}
	return 0;
}
