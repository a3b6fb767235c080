/* The pool: the resctrl groups under group_prefix are mpamd's. One that nothing in use names any more
 * (left by an earlier run or an earlier configuration) holds a CLOSID and an RMID that a partition of
 * this one may need, so it is removed. Groups without the prefix are never looked at twice. With
 * classes = shared, the monitoring groups under the prefix in mpamd's class groups are its pool too. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "backends/resctrl/resctrl.h"
#include "core/base/log.h"
#include "core/base/name_index.h"

/* Where a pool's groups are: the root's control groups, or one control group's monitoring groups. */
struct pool_dir {
	const char *dir;    /* "." or CTRL/mon_groups */
	const char *marker; /* a file every group there has: schemata (control groups), tasks */
};

/* The path of `name` in the pool's directory, or false when it does not fit. */
static bool pool_path(const struct pool_dir *pd, const char *name, char *buf, size_t len)
{
	int n = strcmp(pd->dir, ".") ? snprintf(buf, len, "%s/%s", pd->dir, name) : snprintf(buf, len, "%s", name);

	return n >= 0 && (size_t)n < len;
}

/* Whether `path` is one of the pool's groups: its name under the prefix, and the directory holds the
 * marker (info and the monitoring directories have no schemata). */
static bool pool_group(int rootfd, const struct pool_dir *pd, const char *prefix, const char *name, const char *path)
{
	char rel[RESCTRL_GROUP_PATH_MAX + 16];

	if (name[0] == '.' || strncmp(name, prefix, strlen(prefix)) != 0)
		return false;
	return snprintf(rel, sizeof(rel), "%s/%s", path, pd->marker) < (int)sizeof(rel) &&
	       resctrl_exists_at(rootfd, rel);
}

/* rmdir gives the group's CLOSID and RMID back; its tasks go back to the default group (or the
 * monitoring group's parent), which the partitions that want them move out again when they open. */
static int remove_group(int rootfd, const char *path, struct err *err)
{
	if (unlinkat(rootfd, path, AT_REMOVEDIR) == 0) {
		log_info("removed resctrl group %s: under the group prefix, and no partition uses it", path);
		return 1;
	}
	if (errno == ENOENT)
		return 0; /* gone meanwhile */
	return err_set(err, -errno, "cannot remove unused resctrl group %s: %s", path, strerror(errno));
}

static int tidy_dir(int rootfd, const struct pool_dir *pd, const char *prefix, const struct name_index *keep,
		    struct err *err)
{
	int fd = prefix[0] ? openat(rootfd, pd->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	int removed = 0, first_error = 0;
	char path[RESCTRL_GROUP_PATH_MAX];
	struct dirent *e;

	/* Without a prefix (the configuration refuses one) nothing marks a group as mpamd's. */
	if (!prefix[0])
		return 0;
	if (!dir) {
		int r = -errno;
		if (fd >= 0)
			close(fd);
		return err_set(err, r, "cannot list the resctrl groups in %s: %s", pd->dir, strerror(-r));
	}
	while ((e = readdir(dir))) {
		size_t unused;
		if (!pool_path(pd, e->d_name, path, sizeof(path)) || !pool_group(rootfd, pd, prefix, e->d_name, path) ||
		    name_index_find(keep, path, &unused) == 0)
			continue;
		struct err one = { "" };
		int r = remove_group(rootfd, path, &one);
		removed += r > 0;
		if (r < 0 && !first_error)
			first_error = err_set(err, r, "%s", one.text);
	}
	closedir(dir);
	return removed ? removed : first_error;
}

int resctrl_pool_tidy(int rootfd, const char *prefix, const struct name_index *keep, struct err *err)
{
	const struct pool_dir root = { .dir = ".", .marker = "schemata" };

	return tidy_dir(rootfd, &root, prefix, keep, err);
}

int resctrl_pool_tidy_mon(int rootfd, const char *ctrl, const char *prefix, const struct name_index *keep,
			  struct err *err)
{
	char dir[RESCTRL_GROUP_PATH_MAX];

	snprintf(dir, sizeof(dir), "%s/mon_groups", ctrl);
	const struct pool_dir mon = { .dir = dir, .marker = "tasks" };
	return tidy_dir(rootfd, &mon, prefix, keep, err);
}
