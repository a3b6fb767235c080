/* mpamctl's side of the control socket: connect, send one line, read one line within a deadline. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "cli/ctl_client.h"
#include "cli/mpamctl.h"
#include "cli/socket_access.h"
#include "core/ctl/proto.h"

#define REPLY_MAX (256u * 1024 * 1024) /* a reply this long is not from mpamd */

static int socket_connect(const char *path, int *ret_fd)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = CTL_CLIENT_TIMEOUT_MS / 1000 };
	int fd;

	if (strlen(path) >= sizeof(addr.sun_path))
		return -ENAMETOOLONG;
	memcpy(addr.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* Bounds connect (a full backlog) and send (a daemon not reading) alike. */
	if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0 ||
	    connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		int r = -errno;
		close(fd);
		return r;
	}
	*ret_fd = fd;
	return 0;
}

static int send_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN || errno == EWOULDBLOCK ? -ETIMEDOUT : -errno;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

static long long ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* One line, whatever its length, within the deadline. The line stays malloc'ed in *ret_line. */
static int read_line(int fd, char **ret_line, size_t *ret_len)
{
	long long deadline = ms_now() + CTL_CLIENT_TIMEOUT_MS;
	size_t len = 0, cap = 0;
	char *buf = NULL;

	for (;;) {
		char *nl = len ? memchr(buf, '\n', len) : NULL;
		if (nl) {
			*ret_line = buf;
			*ret_len = (size_t)(nl - buf) + 1;
			return 0;
		}
		if (len == cap) {
			char *grown = cap >= REPLY_MAX ? NULL : realloc(buf, cap ? cap * 2 : 65536);
			if (!grown) {
				free(buf);
				return -EMSGSIZE;
			}
			buf = grown;
			cap = cap ? cap * 2 : 65536;
		}
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		long long left = deadline - ms_now();
		int p = left > 0 ? poll(&pfd, 1, (int)left) : 0;
		if (p < 0 && errno == EINTR)
			continue;
		ssize_t n = p > 0 ? read(fd, buf + len, cap - len) : -1;
		if (n < 0 && p > 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int r = p == 0 ? -ETIMEDOUT : n == 0 ? -ECONNRESET : -errno;
			free(buf);
			return r;
		}
		len += (size_t)n;
	}
}

/* Sends one request line and reads the reply line. */
static enum ctl_client_outcome exchange(const char *path, const char *request, char **ret_line, size_t *ret_len,
					struct err *err)
{
	int fd = -1, r = socket_connect(path, &fd);

	if (r < 0) {
		char hint[ERR_TEXT_MAX - 64];
		socket_access_connect_hint(path, r, hint, sizeof(hint));
		err_set(err, r, "cannot connect to %s: %s%s%s", path, strerror(-r), hint[0] ? "; " : "", hint);
		return CTL_CLIENT_UNREACHABLE;
	}
	r = send_all(fd, request, strlen(request));
	if (r >= 0)
		r = read_line(fd, ret_line, ret_len);
	close(fd);
	if (r == -ECONNRESET)
		err_set(err, r, "%s: mpamd closed the connection without replying", path);
	else if (r == -ETIMEDOUT)
		err_set(err, r, "%s: no reply from mpamd within %d s", path, CTL_CLIENT_TIMEOUT_MS / 1000);
	else if (r < 0)
		err_set(err, r, "%s: %s", path, strerror(-r));
	return r < 0 ? CTL_CLIENT_BROKEN : CTL_CLIENT_OK;
}

/* Sends a request line built by ctl_request_build* (r: what it returned) and checks the reply. */
static enum ctl_client_outcome call_with(const char *path, int r, char *request, json_t **ret_result, struct err *err)
{
	char *line = NULL;
	size_t len = 0;

	if (r < 0)
		return r == -ENOMEM ? CTL_CLIENT_BROKEN : CTL_CLIENT_BAD_REQUEST;
	enum ctl_client_outcome outcome = exchange(path, request, &line, &len, err);
	free(request);
	if (outcome != CTL_CLIENT_OK)
		return outcome;
	r = ctl_reply_check(line, len, ret_result, err);
	free(line);
	if (r == -EREMOTEIO)
		return CTL_CLIENT_REFUSED;
	if (r < 0) {
		struct err inner = *err;
		err_set(err, r, "%s: %s", path, inner.text);
		return CTL_CLIENT_BROKEN;
	}
	return CTL_CLIENT_OK;
}

enum ctl_client_outcome ctl_client_call(const char *path, const char *cmd, const char *name,
					const char *const *settings, size_t count, json_t **ret_result, struct err *err)
{
	char *request = NULL;
	int r = ctl_request_build(cmd, name, settings, count, &request, err);

	return call_with(path, r, request, ret_result, err);
}

enum ctl_client_outcome ctl_client_call_set(const char *path, const char *name, const char *const *settings,
					    size_t count, bool persist, json_t **ret_result, struct err *err)
{
	char *request = NULL;
	int r = ctl_request_build_set(name, settings, count, persist, &request, err);

	return call_with(path, r, request, ret_result, err);
}

int ctl_client_exit_code(enum ctl_client_outcome outcome)
{
	switch (outcome) {
	case CTL_CLIENT_OK:
		return EXIT_OK;
	case CTL_CLIENT_BAD_REQUEST:
		return EXIT_USAGE;
	case CTL_CLIENT_UNREACHABLE:
		return EXIT_UNREACHABLE;
	default:
		return EXIT_FAILED;
	}
}
