/* See emu_fs.h. Caching is off everywhere (zero timeouts, direct I/O) so each system call reaches
 * the emulator, as with a real kernfs file whose contents change between reads. */
#define FUSE_USE_VERSION 31

#include "emu_fs.h"

#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "emu_counters.h"
#include "emu_ctl.h"
#include "emu_rename.h"
#include "emu_state.h"
#include "emu_tree.h"

#define WRITE_LIMIT 4096 /* kernfs atomic_write_len (PAGE_SIZE): larger writes fail with E2BIG */

/* What one open() of a file holds: its path and group (with nullpath_ok, libfuse does not pass the
 * path to read and write), and the text rendered by the last read from offset 0, so that a file
 * read in several pieces is consistent, like a seq_file. */
struct open_file {
	char *path;
	unsigned long serial; /* of the group the file belongs to, 0 for info files */
	struct emu_buf text;
	bool filled;
	struct open_file *prev, *next; /* all handles, so the ones the kernel never released at
					* unmount can be freed */
};

static struct open_file *open_files;

static struct emu *emu(void)
{
	return fuse_get_context()->private_data;
}

static void fill_stat(const struct emu *e, const struct emu_node *n, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	if (n->kind == EMU_N_FILE) {
		st->st_mode = S_IFREG | emu_file_mode(e, n->file);
		st->st_nlink = 1;
	} else {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
	}
	st->st_blksize = 4096;
	st->st_atime = st->st_mtime = st->st_ctime = e->mount_time;
}

static struct open_file *open_file_of(const struct fuse_file_info *fi)
{
	return fi ? (struct open_file *)(uintptr_t)fi->fh : NULL;
}

/* The node an open file still names: -ENODEV once its group is gone, as kernfs answers for a
 * removed file (even if a new group of the same name exists by then). */
static int resolve_open(struct emu *e, const struct open_file *of, struct emu_node *n)
{
	int r = emu_resolve(e, of->path, n);

	if (r || (n->group ? n->group->serial : 0) != of->serial)
		return -ENODEV;
	return 0;
}

static int op_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	struct open_file *of = open_file_of(fi);
	struct emu_node n;
	int r = path ? emu_resolve(emu(), path, &n) : of ? resolve_open(emu(), of, &n) : -ENOENT;

	if (!r)
		fill_stat(emu(), &n, st);
	return r;
}

struct list_ctx {
	void *buf;
	fuse_fill_dir_t filler;
};

/* The mode gives readdir's d_type, as kernfs provides it. */
static void list_one(void *ctx, const char *name, bool is_dir)
{
	struct list_ctx *c = ctx;
	struct stat st = { .st_mode = is_dir ? S_IFDIR : S_IFREG };

	c->filler(c->buf, name, &st, 0, 0);
}

/* The handle of an open file or directory: 0 or -ENOMEM. */
static int open_file_new(const char *path, const struct emu_node *n, struct fuse_file_info *fi)
{
	struct open_file *of = calloc(1, sizeof(*of));

	if (!of || !(of->path = strdup(path))) {
		free(of);
		return -ENOMEM;
	}
	of->serial = n->group ? n->group->serial : 0;
	of->next = open_files;
	if (open_files)
		open_files->prev = of;
	open_files = of;
	fi->fh = (uintptr_t)of;
	return 0;
}

static void open_file_free(struct open_file *of)
{
	if (of->prev)
		of->prev->next = of->next;
	else
		open_files = of->next;
	if (of->next)
		of->next->prev = of->prev;
	emu_buf_fini(&of->text);
	free(of->path);
	free(of);
}

static int op_opendir(const char *path, struct fuse_file_info *fi)
{
	struct emu_node n;
	int r = emu_resolve(emu(), path, &n);

	if (r)
		return r;
	return n.kind == EMU_N_FILE ? -ENOTDIR : open_file_new(path, &n, fi);
}

static int op_readdir(const char *path, void *buf, fuse_fill_dir_t filler, off_t off, struct fuse_file_info *fi,
		      enum fuse_readdir_flags flags)
{
	struct list_ctx ctx = { buf, filler };
	struct emu_node n;
	int r = resolve_open(emu(), open_file_of(fi), &n);

	(void)path;
	(void)off;
	(void)flags;
	if (r)
		return r;
	if (n.kind == EMU_N_FILE)
		return -ENOTDIR;
	emu()->listings++;
	list_one(&ctx, ".", true);
	list_one(&ctx, "..", true);
	return emu_list(emu(), &n, list_one, &ctx);
}

/* kernfs refuses to open a file for an access its handlers cannot serve, even for root. */
static int op_open(const char *path, struct fuse_file_info *fi)
{
	struct emu_node n;
	int r = emu_resolve(emu(), path, &n);
	int acc = fi->flags & O_ACCMODE;

	if (r)
		return r;
	if (n.kind != EMU_N_FILE)
		return -EISDIR;
	if ((acc != O_RDONLY && !n.file->write) || (acc != O_WRONLY && !n.file->show))
		return -EACCES;
	fi->direct_io = 1;
	return open_file_new(path, &n, fi);
}

/* A file of a group (its own or in its mon_data): reading or writing it takes the group's lock. */
static bool group_file(const struct emu_node *n)
{
	return n->file != emu_ctl_file() && (n->dir == EMU_N_GROUP || n->dir == EMU_N_MON_DOMAIN);
}

static int render(struct open_file *of)
{
	struct emu *e = emu();
	struct emu_node n;
	int r = resolve_open(e, of, &n);

	if (r)
		return r;
	if (group_file(&n))
		emu_group_locked(e);
	emu_traffic_sync(e);
	emu_buf_fini(&of->text);
	r = n.file->show(e, &n, &of->text);
	if (r)
		return r;
	if (of->text.oom)
		return -ENOMEM;
	of->filled = true;
	return 0;
}

static int op_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
	struct open_file *of = open_file_of(fi);

	(void)path;
	if (off == 0 || !of->filled) {
		int r = render(of);
		if (r)
			return r;
	}
	if ((size_t)off >= of->text.len)
		return 0;
	size_t n = of->text.len - (size_t)off < size ? of->text.len - (size_t)off : size;
	memcpy(buf, of->text.data + off, n);
	return (int)n;
}

static int op_write(const char *path, const char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
	struct emu *e = emu();
	struct open_file *of = open_file_of(fi);
	struct emu_node n;
	int r = resolve_open(e, of, &n);

	(void)path;
	(void)off;
	if (r)
		return r;
	if (n.file != emu_ctl_file() && (r = emu_faults_take_write(e, of->path)) != 0)
		return -r; /* an injected failure changes nothing */
	if (size > WRITE_LIMIT)
		return -E2BIG;
	char *copy = malloc(size + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, buf, size);
	copy[size] = '\0'; /* kernfs hands handlers a NUL-terminated copy */
	struct emu_caller who = { fuse_get_context()->pid, fuse_get_context()->uid };
	if (group_file(&n))
		emu_group_locked(e);
	emu_traffic_sync(e);
	r = n.file->write(e, &n, copy, size, &who);
	free(copy);
	if (e->vanish)
		fuse_exit(fuse_get_context()->fuse);
	if (r == 0 && n.file != emu_ctl_file())
		e->changes++;
	return r ? r : (int)size;
}

static int op_release(const char *path, struct fuse_file_info *fi)
{
	struct open_file *of = open_file_of(fi);

	(void)path;
	if (of)
		open_file_free(of);
	return 0;
}

/* Splits "/a/b/name" into the parent's node and the last component. */
static int resolve_parent(struct emu *e, const char *path, struct emu_node *parent, const char **name)
{
	char copy[PATH_MAX];
	const char *slash = strrchr(path, '/');

	if (!slash || (size_t)(slash - path) >= sizeof(copy))
		return -ENOENT;
	memcpy(copy, path, (size_t)(slash - path));
	copy[slash - path] = '\0';
	*name = slash + 1;
	return emu_resolve(e, copy, parent);
}

static int op_mkdir(const char *path, mode_t mode)
{
	struct emu *e = emu();
	struct emu_node n, parent;
	const char *name;

	(void)mode;
	if (emu_resolve(e, path, &n) == 0)
		return -EEXIST;
	int r = resolve_parent(e, path, &parent, &name);
	if (r)
		return r;
	r = emu_faults_take_mkdir(e, path);
	if (r)
		return -r;
	emu_traffic_sync(e);
	if (parent.kind == EMU_N_GROUP && parent.group == emu_default_group(e))
		r = emu_mkdir_ctrl(e, name);
	else if (parent.kind == EMU_N_MON_GROUPS)
		r = emu_mkdir_mon(e, parent.group, name);
	else
		r = emu_mkdir_elsewhere(e, parent.kind);
	e->changes += r == 0;
	return r;
}

static int op_rmdir(const char *path)
{
	struct emu *e = emu();
	struct emu_node n;
	int r = emu_resolve(e, path, &n);

	if (r)
		return r;
	if (n.kind == EMU_N_FILE)
		return -ENOTDIR;
	if (n.kind != EMU_N_GROUP || n.group == emu_default_group(e))
		return -EPERM;
	if ((r = emu_faults_take_rmdir(e, path)) != 0)
		return -r;
	emu_traffic_sync(e);
	r = emu_rmdir(e, n.group);
	e->changes += r == 0;
	return r;
}

static int op_unlink(const char *path)
{
	struct emu_node n;
	int r = emu_resolve(emu(), path, &n);

	return r ? r : -EPERM; /* kernfs has no unlink */
}

/* Whether path is `dir` or lies under it. */
static bool path_under(const char *path, const char *dir)
{
	size_t len = strlen(dir);

	return strncmp(path, dir, len) == 0 && (path[len] == '\0' || path[len] == '/');
}

/* The paths the open handles under `from` have once it is renamed to `to`, made before the rename so
 * that a failed allocation changes nothing: 0 and *ret (NULL entries for handles elsewhere), or
 * -ENOMEM. */
static int moved_paths(const char *from, const char *to, char ***ret)
{
	size_t count = 0, i = 0;

	for (struct open_file *of = open_files; of; of = of->next)
		count++;
	char **paths = calloc(count + 1, sizeof(*paths));
	if (!paths)
		return -ENOMEM;
	for (struct open_file *of = open_files; of; of = of->next, i++) {
		if (!path_under(of->path, from))
			continue;
		const char *rest = of->path + strlen(from);
		paths[i] = malloc(strlen(to) + strlen(rest) + 1);
		if (!paths[i]) {
			for (size_t j = 0; j < i; j++)
				free(paths[j]);
			free(paths);
			return -ENOMEM;
		}
		strcpy(stpcpy(paths[i], to), rest);
	}
	*ret = paths;
	return 0;
}

/* After a rename the handles follow: kernfs files stay open on their node, wherever it moves. With
 * `commit` false the new paths are dropped instead. */
static void move_open_files(char **paths, bool commit)
{
	size_t i = 0;

	for (struct open_file *of = open_files; of; of = of->next, i++) {
		if (!paths[i])
			continue;
		if (commit) {
			free(of->path);
			of->path = paths[i];
		} else {
			free(paths[i]);
		}
	}
	free(paths);
}

/* kernfs_iop_rename() takes no RENAME_* flags; the VFS has already refused what it refuses for every
 * file system (another mount, a directory into itself, a directory onto a file...). */
static int op_rename(const char *from, const char *to, unsigned flags)
{
	struct emu *e = emu();
	struct emu_node src, dir;
	const char *name;
	char **paths;
	int r;

	if (flags)
		return -EINVAL;
	if ((r = emu_resolve(e, from, &src)) != 0 || (r = resolve_parent(e, to, &dir, &name)) != 0)
		return r;
	if ((r = emu_faults_take_rename(e, from)) != 0)
		return -r; /* an injected failure changes nothing */
	if ((r = moved_paths(from, to, &paths)) != 0)
		return r;
	emu_traffic_sync(e);
	r = emu_rename(e, &src, &dir, name);
	move_open_files(paths, r == 0);
	e->changes += r == 0;
	return r;
}

static int op_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	(void)path;
	(void)mode;
	(void)fi;
	return -EACCES; /* kernfs directories have no create */
}

static int op_mknod(const char *path, mode_t mode, dev_t dev)
{
	(void)path;
	(void)mode;
	(void)dev;
	return -EACCES;
}

static int op_link(const char *from, const char *to)
{
	(void)from;
	(void)to;
	return -EPERM;
}

static int op_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	(void)path;
	(void)mode;
	(void)fi;
	return -EPERM;
}

static int op_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi)
{
	(void)path;
	(void)uid;
	(void)gid;
	(void)fi;
	return -EPERM;
}

/* O_TRUNC on a writable file is harmless, as on kernfs. */
static int op_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	struct emu_node n;
	int r = path ? emu_resolve(emu(), path, &n) : resolve_open(emu(), open_file_of(fi), &n);

	(void)size;
	if (r)
		return r;
	return n.kind == EMU_N_FILE ? 0 : -EISDIR;
}

static int op_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi)
{
	struct emu_node n;

	(void)tv;
	return path ? emu_resolve(emu(), path, &n) : resolve_open(emu(), open_file_of(fi), &n);
}

static void *op_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	(void)conn;
	cfg->entry_timeout = 0;
	cfg->attr_timeout = 0;
	cfg->negative_timeout = 0;
	cfg->direct_io = 1;
	cfg->kernel_cache = 0;
	cfg->hard_remove = 1;
	cfg->nullpath_ok = 1; /* open files keep their own path (struct open_file) */
	return fuse_get_context()->private_data;
}

static const struct fuse_operations ops = {
	.getattr = op_getattr,
	.mknod = op_mknod,
	.mkdir = op_mkdir,
	.unlink = op_unlink,
	.rmdir = op_rmdir,
	.symlink = op_link,
	.rename = op_rename,
	.link = op_link,
	.chmod = op_chmod,
	.chown = op_chown,
	.truncate = op_truncate,
	.open = op_open,
	.read = op_read,
	.write = op_write,
	.release = op_release,
	.opendir = op_opendir,
	.readdir = op_readdir,
	.releasedir = op_release,
	.init = op_init,
	.create = op_create,
	.utimens = op_utimens,
};

int emu_fs_run(struct emu *e, const char *mountpoint, bool background)
{
	struct fuse_args args = FUSE_ARGS_INIT(0, NULL);
	int status = 1;

	if (fuse_opt_add_arg(&args, "resctrl-emu") || fuse_opt_add_arg(&args, "-o") ||
	    fuse_opt_add_arg(&args, "allow_other,default_permissions,fsname=resctrl,subtype=resctrl"))
		goto out_args;
	struct fuse *f = fuse_new(&args, &ops, sizeof(ops), e);
	if (!f)
		goto out_args;
	bool mounted = fuse_mount(f, mountpoint) == 0;
	/* Mounted before detaching, so a script's next command already sees the tree. */
	if (mounted && fuse_daemonize(!background) < 0) {
		fuse_unmount(f);
		mounted = false;
	}
	if (mounted) {
		struct fuse_session *se = fuse_get_session(f);
		fuse_set_signal_handlers(se);
		/* A signal ends the loop with the signal number (> 0): a clean end. So does an unmount: its
		 * read of /dev/fuse fails with ENODEV, or with ECONNABORTED when the unmount found a request
		 * still in flight and the kernel aborted the connection (libfuse then says "reading device:
		 * Software caused connection abort"; seen about once in 50 test runs). */
		int loop = fuse_loop(f);
		status = loop < 0 && loop != -ECONNABORTED ? 1 : 0;
		/* Already on the way out: a late SIGTERM must not turn a clean exit into a kill. Ignoring
		 * first leaves no window; libfuse then keeps SIG_IGN, as it resets only its own handlers. */
		signal(SIGTERM, SIG_IGN);
		signal(SIGINT, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		fuse_remove_signal_handlers(se);
		fuse_unmount(f);
	}
	fuse_destroy(f);
	while (open_files)
		open_file_free(open_files);
out_args:
	fuse_opt_free_args(&args);
	return status;
}
