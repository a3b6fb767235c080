/* Explaining a refused control socket; see socket_access.h. */
#include "cli/socket_access.h"

#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* "uid 1000 (ann)" */
static void user_text(uid_t uid, char *buf, size_t len)
{
	struct passwd *pw = getpwuid(uid);

	snprintf(buf, len, pw ? "uid %u (%s)" : "uid %u", (unsigned)uid, pw ? pw->pw_name : "");
}

static void group_text(gid_t gid, char *buf, size_t len)
{
	struct group *gr = getgrgid(gid);

	if (gr)
		snprintf(buf, len, "%s", gr->gr_name);
	else
		snprintf(buf, len, "%u", (unsigned)gid);
}

/* "srw-rw---- root:mpamd" */
static void mode_text(const struct stat *st, char *buf, size_t len)
{
	static const char bits[] = "rwxrwxrwx";
	char mode[11], owner[64];
	struct passwd *pw = getpwuid(st->st_uid);

	mode[0] = S_ISSOCK(st->st_mode) ? 's' : S_ISDIR(st->st_mode) ? 'd' : '-';
	for (int i = 0; i < 9; i++)
		mode[1 + i] = st->st_mode & (0400u >> i) ? bits[i] : '-';
	mode[10] = '\0';
	if (pw)
		snprintf(owner, sizeof(owner), "%s", pw->pw_name);
	else
		snprintf(owner, sizeof(owner), "%u", (unsigned)st->st_uid);
	char group[64];
	group_text(st->st_gid, group, sizeof(group));
	snprintf(buf, len, "%s %s:%s", mode, owner, group);
}

/* Whether this process has `gid`, as its own or a supplementary group. */
static bool process_has_group(gid_t gid)
{
	gid_t groups[NGROUPS_MAX];
	int n = getgroups(NGROUPS_MAX, groups);

	if (getegid() == gid)
		return true;
	for (int i = 0; i < n; i++)
		if (groups[i] == gid)
			return true;
	return false;
}

/* Whether the group database lists this user in `gid` (as a member, or as its login group). */
static bool database_has_user(gid_t gid, uid_t uid)
{
	struct passwd *pw = getpwuid(uid);
	struct group *gr = getgrgid(gid);

	if (!pw || !gr)
		return false;
	if (pw->pw_gid == gid)
		return true;
	for (char **m = gr->gr_mem; m && *m; m++)
		if (!strcmp(*m, pw->pw_name))
			return true;
	return false;
}

/* The pid of a process named mpamd, or 0 when none is visible (/proc mounted with hidepid hides
 * other users' processes: the hint then says "visible"). */
static long mpamd_pid(void)
{
	DIR *proc = opendir("/proc");
	struct dirent *d;
	long found = 0;

	if (!proc)
		return 0;
	while (!found && (d = readdir(proc))) {
		char path[300], comm[32] = "";
		char *end;
		long pid = strtol(d->d_name, &end, 10);
		if (*end || pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", d->d_name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) && !strcmp(comm, "mpamd\n"))
			found = pid;
		fclose(f);
	}
	closedir(proc);
	return found;
}

static void daemon_hint(const char *path, char *buf, size_t len)
{
	long pid = mpamd_pid();

	if (pid)
		snprintf(buf, len,
			 "mpamd runs (pid %ld) but does not listen on %s: its socket is elsewhere (socket = in its "
			 "configuration, mpamd --socket; mpamctl --socket PATH to follow) or it runs with --no-socket",
			 pid, path);
	else
		snprintf(buf, len,
			 "no mpamd process is visible: start it ('systemctl start mpamd', or mpamd -c FILE), "
			 "or give mpamctl --socket PATH for one that listens elsewhere");
}

/* The first directory above `path` that this process cannot search, as text; false when none. */
static bool blocking_directory(const char *path, const char *user, char *buf, size_t len)
{
	char dir[PATH_MAX];
	struct stat st;

	snprintf(dir, sizeof(dir), "%s", path);
	for (char *slash = strchr(dir + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		bool blocked = access(dir, X_OK) < 0 && errno == EACCES;
		if (blocked && stat(dir, &st) == 0) {
			char mode[160];
			mode_text(&st, mode, sizeof(mode));
			snprintf(buf, len, "directory %s (%s) does not let %s through to the socket", dir, mode, user);
			return true;
		}
		*slash = '/';
	}
	return false;
}

/* The socket's mode refuses this user (connect needs write permission on it). */
static void socket_mode_hint(const char *path, const struct stat *st, const char *user, char *buf, size_t len)
{
	char mode[160], group[64];

	mode_text(st, mode, sizeof(mode));
	group_text(st->st_gid, group, sizeof(group));
	if ((st->st_mode & 0020) && !process_has_group(st->st_gid))
		snprintf(buf, len,
			 "socket %s (%s) lets only its owner and group %s connect, and %s is not in that group: run "
			 "mpamctl as root, or add the user (usermod -aG %s USER) and log in again",
			 path, mode, group, user, group);
	else
		snprintf(buf, len,
			 "socket %s (%s) does not let %s connect (it needs w): run mpamctl as root; mpamd makes the "
			 "socket 0666 when it starts, so something changed its mode since",
			 path, mode, user);
}

void socket_access_connect_hint(const char *path, int r, char *buf, size_t len)
{
	char user[128];
	struct stat st;

	buf[0] = '\0';
	user_text(getuid(), user, sizeof(user));
	if (r == -ECONNREFUSED && !mpamd_pid())
		snprintf(buf, len,
			 "nobody listens on it: mpamd stopped without removing it; start it ('systemctl "
			 "start mpamd', or mpamd -c FILE)");
	else if (r == -ENOENT || r == -ECONNREFUSED || r == -ENOTDIR)
		daemon_hint(path, buf, len);
	else if (r == -EACCES || r == -EPERM) {
		if (!blocking_directory(path, user, buf, len) && stat(path, &st) == 0)
			socket_mode_hint(path, &st, user, buf, len);
	}
}

bool socket_access_mutate_hint(const char *path, char *buf, size_t len)
{
	char user[128], group[64];
	struct stat st;
	uid_t uid = getuid();

	buf[0] = '\0';
	if (uid == 0 || stat(path, &st) < 0)
		return false;
	user_text(uid, user, sizeof(user));
	group_text(st.st_gid, group, sizeof(group));
	/* The socket stays root's group when the group it was to have did not exist: then no group may. */
	if (st.st_gid == 0)
		snprintf(buf, len,
			 "only root may: socket %s has no group of its own (group mpamd did not exist when mpamd "
			 "started). Run mpamctl as root, or create the group (systemd-sysusers, or groupadd --system "
			 "mpamd), restart mpamd and add %s to it",
			 path, user);
	else if (process_has_group(st.st_gid))
		return false;
	else if (database_has_user(st.st_gid, uid))
		snprintf(buf, len,
			 "%s is in group %s, but this login is older than that: log in again (or run 'newgrp %s') "
			 "and retry, or run mpamctl as root",
			 user, group, group);
	else
		snprintf(buf, len,
			 "it needs root or group %s (the socket's group), and %s is not in it: run mpamctl as root, "
			 "or add the user (usermod -aG %s USER) and log in again",
			 group, user, group);
	return true;
}
