/* The pool: the resctrl groups under group_prefix are mpamd's. One that nothing in use names any more
 * (left by an earlier run or an earlier configuration) holds a CLOSID and an RMID that a partition of
 * this one may need, so it is removed. Groups without the prefix are never looked at twice. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "backends/resctrl/resctrl.h"
#include "core/base/log.h"
#include "core/base/name_index.h"

/* Whether `name` is one of the pool's control groups (a directory with a schemata: info and the
 * monitoring directories have none). */
static bool pool_group(int rootfd, const char *prefix, const char *name)
{
	char rel[NAME_MAX + 16];

	if (name[0] == '.' || strncmp(name, prefix, strlen(prefix)) != 0)
		return false;
	return snprintf(rel, sizeof(rel), "%s/schemata", name) < (int)sizeof(rel) && resctrl_exists_at(rootfd, rel);
}

/* rmdir gives the group's CLOSID and RMID back; its tasks go back to the default group, which the
 * partitions that want them move out again when they open. */
static int remove_group(int rootfd, const char *name, struct err *err)
{
	if (unlinkat(rootfd, name, AT_REMOVEDIR) == 0) {
		log_info("removed resctrl group %s: under the group prefix, and no partition uses it", name);
		return 1;
	}
	if (errno == ENOENT)
		return 0; /* gone meanwhile */
	return err_set(err, -errno, "cannot remove unused resctrl group %s: %s", name, strerror(errno));
}

int resctrl_pool_tidy(int rootfd, const char *prefix, const struct name_index *keep, struct err *err)
{
	int fd = prefix[0] ? openat(rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	int removed = 0, first_error = 0;
	struct dirent *e;

	/* Without a prefix (the configuration refuses one) nothing marks a group as mpamd's. */
	if (!prefix[0])
		return 0;
	if (!dir) {
		int r = -errno;
		if (fd >= 0)
			close(fd);
		return err_set(err, r, "cannot list the resctrl groups: %s", strerror(-r));
	}
	while ((e = readdir(dir))) {
		size_t unused;
		if (!pool_group(rootfd, prefix, e->d_name) || name_index_find(keep, e->d_name, &unused) == 0)
			continue;
		struct err one = { "" };
		int r = remove_group(rootfd, e->d_name, &one);
		removed += r > 0;
		if (r < 0 && !first_error)
			first_error = err_set(err, r, "%s", one.text);
	}
	closedir(dir);
	return removed ? removed : first_error;
}
