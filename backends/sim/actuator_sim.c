/* The simulator's CPU-quota actuator: what the escalation policy asks of a partition's cgroup is
 * recorded (and logged) instead of written, and the simulated demand follows it: a quota of q% of one
 * CPU on a host of n CPUs leaves q / (100 n) of the partition's demand, the same plant the policy's
 * unit tests use. It refuses a partition without a cgroup, as the real one does. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "backends/shared/partition_table.h"
#include "backends/sim/sim_host.h"
#include "backends/sim/sim_ops.h"
#include "core/base/log.h"

struct sim_quota {
	struct actuator base;
	struct sim_host *host;
	struct partition_table partitions;
	unsigned cpus;
};

static struct sim_quota *sq_of(struct actuator *a)
{
	return (struct sim_quota *)a;
}

static void sq_free(struct actuator *a)
{
	struct sim_quota *q = sq_of(a);

	if (!q)
		return;
	partition_table_fini(&q->partitions);
	free(q);
}

static int sq_open(const struct config *config, const struct control_shared *shared, struct actuator **ret,
		   struct err *err)
{
	struct sim_quota *q;

	if (!shared->sim)
		return err_set(err, -EINVAL, "the simulator's CPU-quota actuator needs the simulated host");
	q = calloc(1, sizeof(*q));
	int r = q ? partition_table_init(&q->partitions, config->partition_count, err)
		  : err_set(err, -ENOMEM, "out of memory");
	if (r < 0) {
		free(q);
		return r;
	}
	long cpus = sysconf(_SC_NPROCESSORS_ONLN); /* the engine's count of CPUs, for the same full quota */
	q->base.ops = &actuator_sim_cpu_quota_ops;
	q->host = shared->sim;
	q->cpus = cpus > 0 ? (unsigned)cpus : 1;
	*ret = &q->base;
	return 0;
}

static int sq_partition_open(struct actuator *a, size_t index, const struct partition_ref *ref, struct err *err)
{
	return partition_table_open(&sq_of(a)->partitions, index, ref->config, err);
}

static void sq_partition_close(struct actuator *a, size_t index)
{
	partition_table_close(&sq_of(a)->partitions, index);
}

static int sq_apply(struct actuator *a, size_t index, const struct actuation *want, struct err *err)
{
	struct sim_quota *q = sq_of(a);
	const struct partition_config *p;
	int r = partition_table_with_cgroup(&q->partitions, index, &p, err);

	if (r < 0)
		return r;
	double share = want->cpu_quota_pct ? want->cpu_quota_pct / (100.0 * q->cpus) : 1.0;
	sim_host_set_cpu_share(q->host, index, share);
	log_debug("simulated cgroup %s: CPU quota %u%%", p->cgroup, want->cpu_quota_pct);
	return 0;
}

const struct actuator_ops actuator_sim_cpu_quota_ops = {
	.name = "cpu-quota",
	.simulated = true,
	.open = sq_open,
	.free = sq_free,
	.partition_open = sq_partition_open,
	.partition_close = sq_partition_close,
	.apply = sq_apply,
};
