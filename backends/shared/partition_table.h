/* The partitions a backend has been given, by slot: what both CPU-quota actuators (the cgroup one and
 * the simulator's) and the MMIO control need to find a partition's configuration again when asked to
 * act on it. It grows with the slots it is given, so a partition added after the start (a reload) is
 * held like the others, and a slot closed and given to another partition holds the new one. */
#ifndef MPAMD_BACKENDS_SHARED_PARTITION_TABLE_H
#define MPAMD_BACKENDS_SHARED_PARTITION_TABLE_H

#include <stddef.h>

#include "core/base/error.h"
#include "core/config/model.h"

struct partition_table {
	const struct partition_config **items; /* NULL until opened */
	size_t count;			       /* slots the table has room for */
};

/* Room for `count` slots to begin with (more are added as they are opened). */
int partition_table_init(struct partition_table *t, size_t count, struct err *err);
void partition_table_fini(struct partition_table *t);

/* Partition `index` is managed from now on (the table grows to hold it; -ENOMEM). */
int partition_table_open(struct partition_table *t, size_t index, const struct partition_config *p, struct err *err);
/* Partition `index` is no longer managed (nothing when it was not). */
void partition_table_close(struct partition_table *t, size_t index);
/* The open partition `index`, or NULL. */
const struct partition_config *partition_table_get(const struct partition_table *t, size_t index);

/* The open partition `index` that has a cgroup: -ENOENT when it is not open, -EINVAL without a cgroup. */
int partition_table_with_cgroup(const struct partition_table *t, size_t index, const struct partition_config **ret,
				struct err *err);

#endif
