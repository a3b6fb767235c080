#include "backends/pmu/pmu_cgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mntent.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/base/parse.h"

int pmu_cgroup_root(const char *mounts, char *buf, size_t size, struct err *err)
{
	const char *path = mounts ? mounts : PMU_MOUNTS_PATH;
	FILE *f = setmntent(path, "r");
	char v2[PATH_MAX] = "";
	bool v1 = false;

	if (!f)
		return err_set(err, -errno, "%s: %s", path, strerror(errno));
	for (struct mntent *m; !v1 && (m = getmntent(f));) {
		if (!strcmp(m->mnt_type, "cgroup") && word_list_has(m->mnt_opts, "perf_event", strlen("perf_event"))) {
			snprintf(buf, size, "%s", m->mnt_dir);
			v1 = true; /* the controller is bound to v1: v2 directories would not do */
		} else if (!strcmp(m->mnt_type, "cgroup2") && !v2[0]) {
			snprintf(v2, sizeof(v2), "%s", m->mnt_dir);
		}
	}
	endmntent(f);
	if (v1)
		return 0;
	if (!v2[0])
		return err_set(err, -ENOENT, "no cgroup hierarchy with the perf_event controller is mounted (%s)",
			       path);
	snprintf(buf, size, "%s", v2);
	return 0;
}

int pmu_cgroup_open(const char *mounts, const char *cgroup, struct err *err)
{
	char root[PATH_MAX], dir[PATH_MAX + 4096];
	int r = pmu_cgroup_root(mounts, root, sizeof(root), err);

	if (r < 0)
		return r;
	snprintf(dir, sizeof(dir), "%s/%s", root, cgroup);
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return err_set(err, -errno, "cgroup %s: %s", dir, strerror(errno));
	return fd;
}
