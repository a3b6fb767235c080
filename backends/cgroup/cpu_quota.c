#include "backends/cgroup/cpu_quota.h"

#include <errno.h>
#include <libcgroup.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The CFS period the quota is expressed in: 100 ms, the kernel's default. */
#define CFS_PERIOD_US 100000

static int ensure_init(struct err *err)
{
	static bool done;
	int r;

	if (done)
		return 0;
	if ((r = cgroup_init()) != 0)
		return err_set(err, -ENODEV, "libcgroup cannot find the cgroup mounts: %s", cgroup_strerror(r));
	done = true;
	return 0;
}

/* cgroup v1 names the limit cpu.cfs_quota_us (microseconds per period, -1 = none); v2 cpu.max
 * ("QUOTA PERIOD" or "max PERIOD"). */
static int set_value(struct cgroup_controller *cpu, unsigned pct, bool v2)
{
	char value[48];

	if (v2) {
		if (pct)
			snprintf(value, sizeof(value), "%llu %d", (unsigned long long)pct * CFS_PERIOD_US / 100,
				 CFS_PERIOD_US);
		else
			snprintf(value, sizeof(value), "max %d", CFS_PERIOD_US);
		return cgroup_set_value_string(cpu, "cpu.max", value);
	}
	int64_t quota = pct ? (int64_t)pct * CFS_PERIOD_US / 100 : -1;
	int r = cgroup_set_value_int64(cpu, "cpu.cfs_period_us", CFS_PERIOD_US);
	return r ? r : cgroup_set_value_int64(cpu, "cpu.cfs_quota_us", quota);
}

int cgroup_cpu_set_quota(const char *path, unsigned pct, struct err *err)
{
	int r = ensure_init(err);

	if (r < 0)
		return r;
	struct cgroup *cg = cgroup_new_cgroup(path);
	struct cgroup_controller *cpu = cg ? cgroup_add_controller(cg, "cpu") : NULL;
	if (!cpu) {
		cgroup_free(&cg);
		return err_set(err, -ENOMEM, "out of memory");
	}
	/* A unified hierarchy shows cgroup.controllers at its root (libcgroup 2.0 has no call for it). */
	bool v2 = access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0;
	if ((r = set_value(cpu, pct, v2)) == 0)
		r = cgroup_modify_cgroup(cg);
	cgroup_free(&cg);
	if (r)
		return err_set(err, -EIO, "cgroup %s: cannot set the CPU quota to %u%%: %s", path, pct,
			       cgroup_strerror(r));
	return 0;
}
