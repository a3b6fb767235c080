/* A set of names with a number each (a hash table with open addressing): finding a section's or a
 * partition's earlier twin in O(1), so that loading n sections costs O(n), not O(n^2); placement's
 * cgroup paths, which come and go with partitions and VMs. */
#ifndef MPAMD_CORE_BASE_NAME_INDEX_H
#define MPAMD_CORE_BASE_NAME_INDEX_H

#include <stddef.h>

struct name_index_slot {
	char *name; /* a copy; NULL: empty */
	size_t value;
};

struct name_index {
	struct name_index_slot *slots;
	size_t cap, count; /* cap is 0 or a power of two, kept at least twice count */
};

void name_index_init(struct name_index *idx);
void name_index_fini(struct name_index *idx);
/* The value `name` was added with: 0 and *ret_value, or -ENOENT. */
int name_index_find(const struct name_index *idx, const char *name, size_t *ret_value);
/* Adds `name` (copied) with `value`; -EEXIST when it is there already, -ENOMEM. */
int name_index_add(struct name_index *idx, const char *name, size_t value);
/* Removes `name` when it is there with `value` (another's entry of that name stays): 0 or -ENOENT. */
int name_index_remove(struct name_index *idx, const char *name, size_t value);

#endif
