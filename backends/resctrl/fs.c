/* A resctrl mount opened and probed once, shared by the control and the monitor. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backends/resctrl/resctrl.h"
#include "core/base/log.h"
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

int resctrl_fs_new(const char *root, bool ask_kernel, struct resctrl_fs **ret, struct err *err)
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
	if (r == 0 && ask_kernel)
		resctrl_mb_ask_kernel(fs->rootfd, &fs->info);
	if (r < 0) {
		resctrl_fs_free(fs);
		return r;
	}
	*ret = fs;
	return 0;
}

/* Whether rootfd is still the directory the root's path names (it is not once resctrl was unmounted,
 * or unmounted and mounted again: a new mount is a new file system). */
static bool root_is_current(const struct resctrl_fs *fs)
{
	struct stat open_st, path_st;

	return fstat(fs->rootfd, &open_st) == 0 && stat(fs->root, &path_st) == 0 && open_st.st_dev == path_st.st_dev &&
	       open_st.st_ino == path_st.st_ino;
}

/* A mount that came back must measure the same domains: the monitors' rows are laid out by them. */
static int check_same_domains(const struct resctrl_info *was, const struct resctrl_info *now, const char *root,
			      struct err *err)
{
	if (was->mon_domain_count == now->mon_domain_count &&
	    !memcmp(was->mon_domain_ids, now->mon_domain_ids, was->mon_domain_count * sizeof(was->mon_domain_ids[0])))
		return 0;
	return err_set(err, -EXDEV,
		       "%s is mounted again with other monitoring domains (%u, was %u): restart mpamd to use them",
		       root, now->mon_domain_count, was->mon_domain_count);
}

/* The old tree is let go of as soon as it is seen to be gone: the kernel keeps an unmounted resctrl
 * (its superblock, CLOSIDs and groups) while any file of it is open, and refuses a new mount until
 * then (rdt_get_tree: EBUSY while resctrl_mounted). The groups' and counters' files are the
 * control's and the monitor's to close (the engine closes every partition when this fails). */
static void let_go(struct resctrl_fs *fs)
{
	close(fs->rootfd);
	fs->rootfd = -1;
	log_warning("resctrl at %s was unmounted while mpamd ran: its files are let go of, and every "
		    "partition waits for resctrl to be mounted there again",
		    fs->root);
}

/* A mount that is not back yet: the bare mount point, or another file system, has no info/. Said
 * without probing, so that an explicit root (which probe would accept with a warning) is quiet. */
static int open_back(struct resctrl_fs *fs, struct resctrl_info *info, struct err *err)
{
	struct err why = { "" };
	int fd = open_root(fs->root, &why);
	int r = fd;

	if (fd >= 0 && !resctrl_exists_at(fd, "info"))
		r = err_set(&why, -ENODEV, "%s has no info/ directory (resctrl is not mounted there)", fs->root);
	else if (fd >= 0)
		/* The default root must be a resctrl mount again; an explicit one may be an emulator. */
		r = resctrl_probe(fd, fs->root, strcmp(fs->root, DEFAULT_RESCTRL_ROOT) != 0, info, &why);
	if (r == 0)
		r = check_same_domains(&fs->info, info, fs->root, &why);
	if (r < 0 && fd >= 0)
		close(fd);
	if (r < 0)
		return err_set(err, r, "waiting for resctrl to be mounted at %s again: %s", fs->root, why.text);
	return fd;
}

int resctrl_fs_reopen(struct resctrl_fs *fs, struct err *err)
{
	struct resctrl_info info;

	if (fs->rootfd >= 0 && root_is_current(fs))
		return 0;
	if (fs->rootfd >= 0)
		let_go(fs);
	int fd = open_back(fs, &info, err);
	if (fd < 0)
		return fd;
	resctrl_mb_ask_kernel(fd, &info); /* only the daemon reopens */
	fs->rootfd = fd;
	fs->info = info;
	fs->mounts++;
	log_info("resctrl is mounted at %s again", fs->root);
	return 1;
}

int resctrl_claim_root(const struct config *config, const struct claim_sink *sink, struct err *err)
{
	char real[PATH_MAX], id[PATH_MAX + 16];
	const char *root = realpath(config->global.resctrl_root, real) ? real : config->global.resctrl_root;

	snprintf(id, sizeof(id), "resctrl%s", root);
	return claim(sink, id, root, err);
}
