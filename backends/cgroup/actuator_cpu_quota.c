/* The CPU-quota actuator: the policies' cpu_quota_pct written to the partition's cgroup. */
#include <errno.h>
#include <stdlib.h>

#include "backends/cgroup/cgroup_ops.h"
#include "backends/cgroup/cpu_quota.h"
#include "backends/shared/partition_table.h"

struct quota_actuator {
	struct actuator base;
	struct partition_table partitions;
};

static struct quota_actuator *quota_of(struct actuator *a)
{
	return (struct quota_actuator *)a;
}

static void quota_free(struct actuator *a)
{
	struct quota_actuator *q = quota_of(a);

	if (!q)
		return;
	partition_table_fini(&q->partitions);
	free(q);
}

static int quota_open(const struct config *config, const struct control_shared *shared, struct actuator **ret,
		      struct err *err)
{
	struct quota_actuator *q = calloc(1, sizeof(*q));
	int r = q ? partition_table_init(&q->partitions, config->partition_count, err)
		  : err_set(err, -ENOMEM, "out of memory");

	(void)shared;
	if (r < 0) {
		free(q);
		return r;
	}
	q->base.ops = &actuator_cpu_quota_ops;
	*ret = &q->base;
	return 0;
}

static int quota_partition_open(struct actuator *a, size_t index, const struct partition_ref *ref, struct err *err)
{
	return partition_table_open(&quota_of(a)->partitions, index, ref->config, err);
}

static void quota_partition_close(struct actuator *a, size_t index)
{
	partition_table_close(&quota_of(a)->partitions, index);
}

static int quota_apply(struct actuator *a, size_t index, const struct actuation *want, struct err *err)
{
	const struct partition_config *p;
	int r = partition_table_with_cgroup(&quota_of(a)->partitions, index, &p, err);

	return r < 0 ? r : cgroup_cpu_set_quota(p->cgroup, want->cpu_quota_pct, err);
}

const struct actuator_ops actuator_cpu_quota_ops = {
	.name = "cpu-quota",
	.open = quota_open,
	.free = quota_free,
	.partition_open = quota_partition_open,
	.partition_close = quota_partition_close,
	.apply = quota_apply,
};
