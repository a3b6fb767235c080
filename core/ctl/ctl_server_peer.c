/* Who a control socket peer is: its credentials as the kernel recorded them when it connected, and
 * whether it may mutate, which is root or a member of the socket's group (its supplementary groups
 * included: SO_PEERGROUPS, or /proc on kernels without it). */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/ctl/ctl_server_internal.h"
#include "core/ctl/proto.h"

#ifndef SO_PEERGROUPS
#define SO_PEERGROUPS 59 /* Linux 4.13 */
#endif

#define PEER_GROUPS_STACK 64

/* Supplementary groups from /proc/PID/status, for kernels without SO_PEERGROUPS. The pid may have
 * been reused since connect; that is why SO_PEERGROUPS comes first. */
static bool proc_status_has_group(pid_t pid, gid_t gid)
{
	char path[64], buf[4096];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	char *line = strstr(buf, "\nGroups:");
	if (!line)
		return false;
	line += strlen("\nGroups:");
	for (;;) {
		char *end;
		unsigned long g = strtoul(line, &end, 10);
		if (end == line)
			return false;
		if (g == gid)
			return true;
		line = end;
	}
}

static bool peer_has_group(int fd, pid_t pid, gid_t gid)
{
	gid_t stack[PEER_GROUPS_STACK], *groups = stack;
	socklen_t len = sizeof(stack);
	bool found = false;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) < 0) {
		if (errno != ERANGE)
			return errno == ENOPROTOOPT && proc_status_has_group(pid, gid);
		/* len now says how much the peer's group list needs. */
		groups = malloc(len);
		if (!groups || getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) < 0)
			len = 0;
	}
	for (size_t i = 0; i < len / sizeof(gid_t); i++)
		found = found || groups[i] == gid;
	if (groups != stack)
		free(groups);
	return found;
}

/* The credentials the kernel recorded when the peer connected. */
int ctl_server_peer_identify(const struct ctl_server *s, int fd, struct ctl_peer *ret)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return -errno;
	*ret = (struct ctl_peer){
		.uid = cred.uid,
		.gid = cred.gid,
		.pid = cred.pid,
		.group = s->group_may_mutate ? s->group : NULL,
	};
	/* Without a group of its own the socket keeps its creator's (root's): being in that group
	 * says nothing about who may change limits. */
	ret->may_mutate = cred.uid == 0 || (s->group_may_mutate &&
					    (cred.gid == s->sock_gid || peer_has_group(fd, cred.pid, s->sock_gid)));
	return 0;
}
