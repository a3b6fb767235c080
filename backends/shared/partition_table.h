/* The partitions an actuator has been given, by index: what both CPU-quota actuators (the cgroup one
 * and the simulator's) need to find a partition's configuration again when asked to act on it. */
#ifndef MPAMD_BACKENDS_SHARED_PARTITION_TABLE_H
#define MPAMD_BACKENDS_SHARED_PARTITION_TABLE_H

#include <stddef.h>

#include "core/base/error.h"
#include "core/config/model.h"

struct partition_table {
	const struct partition_config **items; /* NULL until opened */
	size_t count;
};

int partition_table_init(struct partition_table *t, size_t count, struct err *err);
void partition_table_fini(struct partition_table *t);

/* Partition `index` is managed from now on (-EINVAL when out of range). */
int partition_table_open(struct partition_table *t, size_t index, const struct partition_config *p, struct err *err);

/* The open partition `index` that has a cgroup: -ENOENT when it is not open, -EINVAL without a cgroup. */
int partition_table_with_cgroup(const struct partition_table *t, size_t index, const struct partition_config **ret,
				struct err *err);

#endif
