#include "backends/shared/partition_table.h"

#include <errno.h>
#include <stdlib.h>

#include "core/base/grow.h"

int partition_table_init(struct partition_table *t, size_t count, struct err *err)
{
	t->items = NULL;
	t->count = 0;
	if (array_grow((void **)&t->items, &t->count, count ? count : 1, sizeof(*t->items), NULL) < 0)
		return err_set(err, -ENOMEM, "out of memory");
	return 0;
}

void partition_table_fini(struct partition_table *t)
{
	free(t->items);
	t->items = NULL;
	t->count = 0;
}

int partition_table_open(struct partition_table *t, size_t index, const struct partition_config *p, struct err *err)
{
	if (index == SIZE_MAX || array_grow((void **)&t->items, &t->count, index + 1, sizeof(*t->items), NULL) < 0)
		return err_set(err, -ENOMEM, "out of memory for partition slot %zu", index);
	t->items[index] = p;
	return 0;
}

void partition_table_close(struct partition_table *t, size_t index)
{
	if (index < t->count)
		t->items[index] = NULL;
}

const struct partition_config *partition_table_get(const struct partition_table *t, size_t index)
{
	return index < t->count ? t->items[index] : NULL;
}

int partition_table_with_cgroup(const struct partition_table *t, size_t index, const struct partition_config **ret,
				struct err *err)
{
	const struct partition_config *p = partition_table_get(t, index);

	if (!p)
		return err_set(err, -ENOENT, "partition %zu is not open", index);
	if (!p->cgroup)
		return err_set(err, -EINVAL, "no cgroup");
	*ret = p;
	return 0;
}
