/* The host's cgroup hierarchies as placement reads them: where a partition's cgroup is, which threads
 * it holds (with every cgroup below it), and which cgroup a thread is in.
 *
 * A cgroup v1 host has one hierarchy per controller (or group of controllers) plus systemd's
 * name=systemd, a v2 host one unified hierarchy, a hybrid host both. Every hierarchy holds every task,
 * each in one cgroup, but not every hierarchy has every cgroup: systemd makes its units' cgroups in
 * name=systemd (and v2), libvirt without systemd its own in the controllers' hierarchies. So a path is
 * looked for in the hierarchies in an order, and the first that has it is used. */
#ifndef MPAMD_BACKENDS_CGROUP_CGROUP_TREE_H
#define MPAMD_BACKENDS_CGROUP_CGROUP_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "core/base/error.h"

#define CGROUP_MOUNTINFO   "/proc/self/mountinfo"
#define CGROUP_PATH_MAX	   4096
#define CGROUP_HIERARCHIES 16

struct cgroup_hierarchy {
	char dir[CGROUP_PATH_MAX]; /* the directory paths start from: a mount point, or cgroup_root */
	/* That directory as /proc/PID/cgroup names it: the mount's root within the hierarchy, then
	 * cgroup_root's place below the mount point ("" for the hierarchy's root). */
	char prefix[CGROUP_PATH_MAX];
	bool v2;
	/* v1: the mount's options (rw,cpu,cpuacct or rw,name=systemd), to match /proc/PID/cgroup's lines */
	char options[256];
};

struct cgroup_tree {
	struct cgroup_hierarchy hierarchies[CGROUP_HIERARCHIES]; /* in the order paths are looked for */
	size_t count;
};

/* Every cgroup hierarchy mounted, from mountinfo text (proc_pid_mountinfo(5)), in the order paths are
 * looked for: v2, name=systemd, then the v1 controllers libvirt uses (cpu, cpuacct, memory, cpuset,
 * pids, blkio, devices, freezer), then any other. 0, or -ENOENT when there is none. */
int cgroup_tree_parse(FILE *mountinfo, struct cgroup_tree *ret, struct err *err);

/* The hierarchies partitions' paths start in: the host's (from `mountinfo`, NULL: CGROUP_MOUNTINFO),
 * or with `root` the one hierarchy whose mount holds that directory, starting there. -ENOENT and why
 * when there is none, or `root` is not a directory of one. */
int cgroup_tree_open(const char *root, const char *mountinfo, struct cgroup_tree *ret, struct err *err);

/* Whether hierarchy `h` has cgroup `path` (relative, "" for the start directory). */
bool cgroup_tree_has(const struct cgroup_tree *t, size_t h, const char *path);
/* The first hierarchy that has cgroup `path` (relative, "" for the start directory): its index, or
 * -ENOENT. */
int cgroup_tree_find(const struct cgroup_tree *t, const char *path);

/* Whether the cgroup below `path` that a walk reaches should be left out (it is another partition's). */
typedef bool (*cgroup_skip_fn)(void *ctx, size_t hierarchy, const char *path);

/* Every thread id of cgroup `path` of hierarchy `h` and of the cgroups below it, except those below a
 * cgroup `skip` says no to: appended to *ids (malloc'ed, grown; *count and *cap kept). -ENOENT when
 * `path` is gone, -ENOMEM; a cgroup below it that goes meanwhile is skipped. */
int cgroup_tree_threads(const struct cgroup_tree *t, size_t h, const char *path, cgroup_skip_fn skip, void *ctx,
			pid_t **ids, size_t *count, size_t *cap, struct err *err);

/* The cgroup of hierarchy `h` that /proc/PID/cgroup's text says a task is in, relative to the
 * hierarchy's start directory, into buf: 0, or -ENOENT when the task is outside it. Pure. */
int cgroup_path_in(const struct cgroup_hierarchy *h, const char *proc_cgroup, char *buf, size_t len);

/* Reads /proc/TID/cgroup (under `proc_root`, NULL: /proc) into buf: 0, -ESRCH when the thread is gone. */
int cgroup_read_task(const char *proc_root, pid_t tid, char *buf, size_t len);

#endif
