/* The control socket's file: its directory made when systemd has not, a stale socket from a crash
 * replaced (a live one never), the socket bound with the mode and group that decide who may connect
 * and who may mutate, and removed at the end only while it is still the one this server created. */
#include <errno.h>
#include <grp.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "core/base/log.h"
#include "core/ctl/ctl_server.h"
#include "core/ctl/ctl_server_internal.h"

/* The socket's directory (/run/mpamd): systemd makes it (RuntimeDirectory); without systemd, mpamd
 * does, one level only (0755: any peer may connect, the socket's own mode decides who may change). */
static int socket_dir_ensure(const char *path, struct err *err)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	const char *slash = strrchr(path, '/');

	if (!slash || slash == path || (size_t)(slash - path) >= sizeof(dir))
		return 0;
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	if (mkdir(dir, 0755) == 0) {
		log_debug("control socket: created %s", dir);
		return 0;
	}
	if (errno == EEXIST)
		return 0;
	return err_set(err, -errno, "cannot create %s for the control socket: %s", dir, strerror(errno));
}

/* A socket file left by a dead daemon refuses connections; a live one accepts (or is busy). */
static int path_check_free(const char *path, struct err *err)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct stat st;
	int fd, r;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : err_set(err, -errno, "%s: %s", path, strerror(errno));
	if (!S_ISSOCK(st.st_mode))
		return err_set(err, -EEXIST, "%s exists and is not a socket; not replacing it", path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return err_set(err, -errno, "socket: %s", strerror(errno));
	memcpy(addr.sun_path, path, strlen(path) + 1);
	r = connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ? -errno : 0;
	close(fd);
	if (r == 0 || r == -EAGAIN)
		return err_set(err, -EADDRINUSE, "another process (another mpamd?) is listening on %s", path);
	if (r != -ECONNREFUSED && r != -ENOENT)
		return err_set(err, r, "cannot tell whether %s is in use: %s", path, strerror(-r));
	if (unlink(path) < 0 && errno != ENOENT)
		return err_set(err, -errno, "cannot remove the stale socket %s: %s", path, strerror(errno));
	log_debug("control socket: removed the stale socket %s", path);
	return 0;
}

/* The group's name for refusals, looked up once here rather than in the loop (NSS may be slow). */
static void group_name_resolve(struct ctl_server *s)
{
	struct group grp, *found = NULL;
	char buf[4096];

	if (getgrgid_r(s->sock_gid, &grp, buf, sizeof(buf), &found) == 0 && found)
		snprintf(s->group, sizeof(s->group), "%s", found->gr_name);
	else
		snprintf(s->group, sizeof(s->group), "%u", (unsigned)s->sock_gid);
}

/* Binds with a umask that gives 0660, so that nobody else connects before the group is set, then
 * opens the socket to every local user: read-only commands are for anyone on the host (as libvirt's
 * read-only socket), and the server itself refuses mutations to all but root and the group. */
int ctl_server_socket_bind(struct ctl_server *s, const struct ctl_server_config *config, struct err *err)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct stat st;
	mode_t old;
	int r;

	memcpy(addr.sun_path, s->path, strlen(s->path) + 1);
	old = umask(0117);
	r = bind(s->listen_fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ? -errno : 0;
	umask(old);
	if (r < 0)
		return err_set(err, r, "cannot bind %s: %s", s->path, strerror(-r));
	if (lstat(s->path, &st) < 0)
		return err_set(err, -errno, "%s: %s", s->path, strerror(errno));
	s->bound = true;
	s->dev = st.st_dev;
	s->ino = st.st_ino;
	if (config->gid >= 0 && chown(s->path, (uid_t)-1, (gid_t)config->gid) < 0)
		return err_set(err, -errno, "cannot give %s to group %ld: %s", s->path, config->gid, strerror(errno));
	if (chmod(s->path, CTL_SOCKET_MODE) < 0 || lstat(s->path, &st) < 0)
		return err_set(err, -errno, "%s: %s", s->path, strerror(errno));
	s->sock_gid = st.st_gid;
	s->group_may_mutate = config->gid >= 0;
	group_name_resolve(s);
	return 0;
}

static bool socket_file_is_ours(const struct ctl_server *s)
{
	struct stat st;

	return s->bound && lstat(s->path, &st) == 0 && st.st_dev == s->dev && st.st_ino == s->ino;
}

int ctl_server_socket_prepare(const char *path, struct err *err)
{
	int r = socket_dir_ensure(path, err);

	if (r == 0)
		r = path_check_free(path, err);
	return r;
}

void ctl_server_socket_remove(const struct ctl_server *s)
{
	if (s->path && socket_file_is_ours(s) && unlink(s->path) < 0)
		log_debug("control socket: cannot remove %s: %m", s->path);
}
