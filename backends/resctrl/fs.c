/* A resctrl mount opened and probed once, shared by the control and the monitor. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/resctrl/resctrl.h"
#include "backends/resctrl/resctrl_ops.h"
#include "core/config/config.h"

void resctrl_fs_free(struct resctrl_fs *fs)
{
	if (!fs)
		return;
	if (fs->rootfd >= 0)
		close(fs->rootfd);
	free(fs->root);
	free(fs);
}

static int open_root(const char *root, struct err *err)
{
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int code = errno;

	if (fd < 0)
		return err_set(err, -code, "cannot open %s (the resctrl root): %s%s", root, strerror(code),
			       code == ENOENT ? " (is resctrl mounted? mount -t resctrl resctrl /sys/fs/resctrl)" : "");
	return fd;
}

int resctrl_fs_new(const char *root, struct resctrl_fs **ret, struct err *err)
{
	struct resctrl_fs *fs = calloc(1, sizeof(*fs));

	if (!fs || !(fs->root = strdup(root))) {
		free(fs);
		return err_set(err, -ENOMEM, "out of memory");
	}
	fs->rootfd = open_root(root, err);
	int r = fs->rootfd < 0 ? fs->rootfd : 0;
	/* Only the default root must be a resctrl mount: an explicit one may be an emulator or a copy. */
	if (r == 0)
		r = resctrl_probe(fs->rootfd, root, strcmp(root, DEFAULT_RESCTRL_ROOT) != 0, &fs->info, err);
	if (r < 0) {
		resctrl_fs_free(fs);
		return r;
	}
	*ret = fs;
	return 0;
}

json_t *resctrl_describe_root(const char *root, struct err *err)
{
	struct resctrl_fs *fs;

	if (resctrl_fs_new(root, &fs, err) < 0)
		return NULL;
	json_t *d = resctrl_info_to_json(&fs->info, root);
	resctrl_fs_free(fs);
	return d;
}
