#include "backends/shared/partition_table.h"

#include <errno.h>
#include <stdlib.h>

int partition_table_init(struct partition_table *t, size_t count, struct err *err)
{
	t->items = calloc(count ? count : 1, sizeof(*t->items));
	t->count = t->items ? count : 0;
	return t->items ? 0 : err_set(err, -ENOMEM, "out of memory");
}

void partition_table_fini(struct partition_table *t)
{
	free(t->items);
	t->items = NULL;
	t->count = 0;
}

int partition_table_open(struct partition_table *t, size_t index, const struct partition_config *p, struct err *err)
{
	if (index >= t->count)
		return err_set(err, -EINVAL, "partition index %zu out of range", index);
	t->items[index] = p;
	return 0;
}

int partition_table_with_cgroup(const struct partition_table *t, size_t index, const struct partition_config **ret,
				struct err *err)
{
	const struct partition_config *p = index < t->count ? t->items[index] : NULL;

	if (!p)
		return err_set(err, -ENOENT, "partition %zu is not open", index);
	if (!p->cgroup)
		return err_set(err, -EINVAL, "no cgroup");
	*ret = p;
	return 0;
}
