#include "core/ctl/ctl_server.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "core/base/log.h"
#include "core/ctl/proto.h"
#include "core/ctl/reply_cache.h"

#ifndef SO_PEERGROUPS
#define SO_PEERGROUPS 59 /* Linux 4.13 */
#endif

#define IN_INITIAL	  4096 /* input buffers grow from this to CTL_MAX_REQUEST */
#define ACCEPT_BATCH	  64   /* connections accepted per dispatch, so a flood cannot hold the loop */
#define EVENT_BATCH	  64
#define LISTEN_BACKLOG	  64
#define OUT_KEEP	  (1024 * 1024) /* an emptied reply buffer larger than this is released */
#define PEER_GROUPS_STACK 64

struct ctl_client {
	int fd;
	bool dead;	    /* closed; freed at the end of the dispatch whose events may still name it */
	bool closing;	    /* close once the queue is written (a line too long) */
	bool eof;	    /* the peer sent everything it will: answer what is buffered, then close */
	bool partial;	    /* the input holds an unfinished line, begun at in_since_ms */
	bool lines_pending; /* complete lines wait for the queue to shrink or for the next dispatch */
	uint32_t watched;
	struct ctl_peer peer;
	char *in;
	size_t in_len, in_cap;
	char *out;
	size_t out_off, out_len, out_cap; /* queued bytes: out[out_off..out_len) */
	uint64_t in_since_ms, out_since_ms;
	uint64_t active_ms; /* last byte received or sent: an idle client holds a slot for nothing */
	struct ctl_client *next;
};

/* What is left of one dispatch's work: the owner's loop has other things to do (ticks). */
struct dispatch_budget {
	unsigned answers; /* requests that may still be answered */
	size_t bytes;	  /* reply bytes that may still be queued */
};

struct ctl_server {
	const struct ctl_handler *handler;
	char *path;
	bool bound;
	dev_t dev; /* identity of the socket file created, so close never removes a successor's */
	ino_t ino;
	bool group_may_mutate; /* a group was given: its members may mutate; without one, root only */
	gid_t sock_gid;
	char group[64];
	unsigned max_clients, reserved, stall_ms, idle_ms;
	int epoll_fd, listen_fd, timer_fd;
	bool listen_paused; /* out of descriptors: accept again after a client leaves or a timer tick */
	bool timer_armed;
	struct dispatch_budget budget;
	struct reply_cache replies;
	size_t client_count;
	struct ctl_client *clients; /* connected and, until the end of a dispatch, dead ones */
};

/* epoll data for the two descriptors that are not clients. */
static char tag_listen, tag_timer;

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static size_t client_queued(const struct ctl_client *c)
{
	return c->out_len - c->out_off;
}

/* ---- peers ---- */

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
static int peer_identify(const struct ctl_server *s, int fd, struct ctl_peer *ret)
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

/* ---- epoll bookkeeping ---- */

static int watch(struct ctl_server *s, int op, int fd, uint32_t events, void *data)
{
	struct epoll_event ev = { .events = events, .data.ptr = data };

	return epoll_ctl(s->epoll_fd, op, fd, &ev) < 0 ? -errno : 0;
}

/* The stall timer runs only while someone may need it: clients, or a listener paused for lack of fds. */
static void timer_update(struct ctl_server *s)
{
	bool want = s->client_count > 0 || s->listen_paused;
	unsigned shortest = s->stall_ms < s->idle_ms ? s->stall_ms : s->idle_ms;
	unsigned period = shortest / 4 ? shortest / 4 : 1;
	struct itimerspec its = { { 0, 0 }, { 0, 0 } };

	if (want == s->timer_armed)
		return;
	if (want) {
		its.it_interval.tv_sec = period / 1000;
		its.it_interval.tv_nsec = (long)(period % 1000) * 1000000;
		its.it_value = its.it_interval;
	}
	if (timerfd_settime(s->timer_fd, 0, &its, NULL) == 0)
		s->timer_armed = want;
}

static void listen_pause(struct ctl_server *s, bool pause)
{
	if (s->listen_paused == pause)
		return;
	if (watch(s, EPOLL_CTL_MOD, s->listen_fd, pause ? 0 : EPOLLIN, &tag_listen) == 0)
		s->listen_paused = pause;
	timer_update(s);
}

/* ---- clients ---- */

static void client_drop(struct ctl_server *s, struct ctl_client *c, const char *why)
{
	if (c->dead)
		return;
	log_debug("control socket: client pid %d uid %u: %s", (int)c->peer.pid, (unsigned)c->peer.uid, why);
	epoll_ctl(s->epoll_fd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	c->fd = -1;
	c->dead = true;
	free(c->in);
	free(c->out);
	c->in = c->out = NULL;
	s->client_count--;
	listen_pause(s, false);
	timer_update(s);
}

static void clients_reap(struct ctl_server *s)
{
	struct ctl_client **link = &s->clients;

	while (*link) {
		struct ctl_client *c = *link;
		if (c->dead) {
			*link = c->next;
			free(c);
		} else {
			link = &c->next;
		}
	}
}

/* Queues a reply line; it is written by client_flush. */
static int client_queue_line(struct ctl_client *c, const char *line, size_t len)
{
	if (c->out_off > 0 && c->out_len + len > c->out_cap) {
		/* A reader that keeps up only partly never empties the queue: reuse what it has read. */
		memmove(c->out, c->out + c->out_off, client_queued(c));
		c->out_len -= c->out_off;
		c->out_off = 0;
	}
	if (c->out_len + len > c->out_cap) {
		size_t cap = c->out_cap ? c->out_cap : 4096;
		while (cap < c->out_len + len)
			cap *= 2;
		char *grown = realloc(c->out, cap);
		if (!grown)
			return -ENOMEM;
		c->out = grown;
		c->out_cap = cap;
	}
	if (client_queued(c) == 0)
		c->out_since_ms = now_ms();
	memcpy(c->out + c->out_len, line, len);
	c->out_len += len;
	return 0;
}

static int client_queue(struct ctl_client *c, const json_t *reply)
{
	char *line;
	size_t len;
	int r = ctl_reply_encode(reply, &line, &len);

	if (r < 0)
		return r;
	r = client_queue_line(c, line, len);
	free(line);
	return r;
}

static int client_flush(struct ctl_client *c)
{
	while (client_queued(c) > 0) {
		ssize_t n = send(c->fd, c->out + c->out_off, client_queued(c), MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
		}
		c->out_off += (size_t)n;
		c->out_since_ms = c->active_ms = now_ms();
	}
	c->out_off = c->out_len = 0;
	if (c->out_cap > OUT_KEEP) {
		free(c->out);
		c->out = NULL;
		c->out_cap = 0;
	}
	return 0;
}

static bool client_paused(const struct ctl_client *c)
{
	return client_queued(c) >= CTL_SERVER_OUT_PAUSE;
}

/* Reads only when everything read so far has been answered, so input stays within one line. */
static bool client_reading(const struct ctl_client *c)
{
	return !c->closing && !c->eof && !client_paused(c) && !c->lines_pending;
}

static int client_answer(struct ctl_server *s, struct ctl_client *c, const char *line, size_t len)
{
	struct reply_line reply;
	int r = reply_cache_answer(&s->replies, s->handler, &c->peer, line, len, &reply);

	if (r < 0)
		return r;
	r = client_queue_line(c, reply.text, reply.len);
	reply_line_fini(&reply);
	return r;
}

/* Whether one more request may be answered now: `taken` is this client's count in this dispatch. */
static bool budget_allows(const struct ctl_server *s, unsigned taken)
{
	return taken < CTL_SERVER_ANSWERS_PER_CLIENT && s->budget.answers > 0 && s->budget.bytes > 0;
}

static int client_answer_counted(struct ctl_server *s, struct ctl_client *c, const char *line, size_t len,
				 unsigned *taken)
{
	size_t before = client_queued(c);
	int r = client_answer(s, c, line, len);
	size_t queued = client_queued(c) - before;

	(*taken)++;
	s->budget.answers--;
	s->budget.bytes -= queued < s->budget.bytes ? queued : s->budget.bytes;
	return r;
}

/* Answers the complete lines buffered, in order, while the queue is short and the budget lasts;
 * then, at end of input, a last line without its newline. */
static int client_process(struct ctl_server *s, struct ctl_client *c, unsigned *taken)
{
	size_t pos = 0;
	int r = 0;

	while (r >= 0 && !c->closing && !client_paused(c) && budget_allows(s, *taken)) {
		char *nl = memchr(c->in + pos, '\n', c->in_len - pos);
		if (!nl)
			break;
		size_t len = (size_t)(nl - (c->in + pos)) + 1;
		r = client_answer_counted(s, c, c->in + pos, len, taken);
		pos += len;
	}
	memmove(c->in, c->in + pos, c->in_len - pos);
	c->in_len -= pos;
	c->lines_pending = !c->closing && memchr(c->in, '\n', c->in_len);
	if (r >= 0 && c->eof && !c->lines_pending && c->in_len > 0 && !client_paused(c) && budget_allows(s, *taken)) {
		r = client_answer_counted(s, c, c->in, c->in_len, taken);
		c->in_len = 0;
	}
	bool partial = !c->eof && !c->lines_pending && c->in_len > 0;
	if (partial && !c->partial)
		c->in_since_ms = now_ms();
	c->partial = partial;
	return r;
}

/* Requests are buffered that the budget or the queue held back. */
static bool client_has_work(const struct ctl_client *c)
{
	return !c->closing && (c->lines_pending || (c->eof && c->in_len > 0));
}

/* A full buffer without a newline: the line is too long. Say so and hang up, reading no more. */
static int client_reject_long_line(struct ctl_client *c)
{
	json_t *reply = ctl_reply_error("request larger than %d bytes", CTL_MAX_REQUEST);
	int r = reply ? client_queue(c, reply) : -ENOMEM;

	json_decref(reply);
	c->closing = true;
	c->in_len = 0;
	c->partial = false;
	shutdown(c->fd, SHUT_RD);
	return r;
}

static int client_read(struct ctl_client *c)
{
	if (c->in_len == CTL_MAX_REQUEST)
		return 0; /* full of lines still to answer; a zero-length recv would look like EOF */
	if (c->in_len == c->in_cap) {
		size_t cap = c->in_cap * 2 < CTL_MAX_REQUEST ? c->in_cap * 2 : CTL_MAX_REQUEST;
		char *grown = realloc(c->in, cap);
		if (!grown)
			return -ENOMEM;
		c->in = grown;
		c->in_cap = cap;
	}
	ssize_t n = recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len, MSG_DONTWAIT);
	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -errno;
	if (n == 0)
		c->eof = true;
	else
		c->active_ms = now_ms();
	c->in_len += (size_t)n;
	return 0;
}

static int client_watch(struct ctl_server *s, struct ctl_client *c)
{
	/* Work left by the budget asks for EPOLLOUT: a socket with room is writable at once, so the
	 * next dispatch comes back to it after serving the others. */
	bool out = client_queued(c) > 0 || client_has_work(c);
	uint32_t want = (client_reading(c) ? EPOLLIN : 0) | (out ? EPOLLOUT : 0);

	if (want == c->watched)
		return 0;
	int r = watch(s, EPOLL_CTL_MOD, c->fd, want, c);
	if (r == 0)
		c->watched = want;
	return r;
}

/* One round for a client: write, read, answer, write. Returns why it must go, or NULL. */
static const char *client_step(struct ctl_server *s, struct ctl_client *c, uint32_t events)
{
	if ((events & (EPOLLOUT | EPOLLHUP | EPOLLERR)) && client_flush(c) < 0)
		return "gone while replies were pending";
	if ((events & (EPOLLIN | EPOLLHUP | EPOLLERR)) && client_reading(c) && client_read(c) < 0)
		return "read failed";
	if (!c->closing && !c->eof && c->in_len == CTL_MAX_REQUEST && !memchr(c->in, '\n', c->in_len) &&
	    client_reject_long_line(c) < 0)
		return "out of memory";
	/* Answering may queue enough to pause, writing may unpause: go on until neither moves. */
	unsigned taken = 0;
	for (;;) {
		size_t queued = client_queued(c), buffered = c->in_len;
		if (client_process(s, c, &taken) < 0)
			return "out of memory";
		if (client_flush(c) < 0)
			return "gone while replies were pending";
		if (client_queued(c) > CTL_SERVER_OUT_MAX)
			return "too many replies queued";
		if (client_queued(c) == queued && c->in_len == buffered)
			break;
	}
	if ((c->closing || (c->eof && c->in_len == 0)) && client_queued(c) == 0)
		return c->closing ? "request too long" : "done";
	if (client_watch(s, c) < 0)
		return "cannot watch";
	return NULL;
}

static void client_service(struct ctl_server *s, struct ctl_client *c, uint32_t events)
{
	const char *why;

	if (c->dead)
		return;
	why = client_step(s, c, events);
	if (why)
		client_drop(s, c, why);
}

/* Beyond the cap, a connection is told why before it is closed; the reply is small enough to fit
 * in a fresh socket's buffer, so a single non-blocking send suffices. */
static void client_refuse(const struct ctl_server *s, int fd, bool privileged)
{
	json_t *reply = privileged
				? ctl_reply_error("too many clients (%u connected): try again later", s->max_clients)
				: ctl_reply_error("too many clients (%zu connected; the other %zu slots are kept for "
						  "root and group %s): try again later",
						  s->client_count, (size_t)s->max_clients - s->client_count,
						  s->group_may_mutate ? s->group : "(none)");
	char *line;
	size_t len;

	if (reply && ctl_reply_encode(reply, &line, &len) == 0) {
		if (send(fd, line, len, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
			log_debug("control socket: cannot tell a refused client why: %m");
		free(line);
	}
	json_decref(reply);
	close(fd);
}

/* The last `reserved` slots are for peers who may mutate, so that idle connections of others
 * (anyone who can open the socket) cannot lock root out. */
static bool slot_available(const struct ctl_server *s, const struct ctl_peer *peer)
{
	size_t limit = peer->may_mutate ? s->max_clients : s->max_clients - s->reserved;

	return s->client_count < limit;
}

static void client_free_unlisted(struct ctl_client *c)
{
	free(c->in);
	free(c);
}

/* Takes the connection `fd` (closed here when it is refused or cannot be taken). */
static void client_add(struct ctl_server *s, int fd)
{
	struct ctl_client *c = calloc(1, sizeof(*c));
	int r = c ? 0 : -ENOMEM;

	if (c) {
		c->fd = fd;
		c->watched = EPOLLIN;
		c->in_cap = IN_INITIAL;
		c->in = malloc(c->in_cap);
		c->active_ms = now_ms();
		r = c->in ? peer_identify(s, fd, &c->peer) : -ENOMEM;
	}
	if (r >= 0 && !slot_available(s, &c->peer)) {
		log_debug("control socket: client pid %d uid %u refused: no slot left for it", (int)c->peer.pid,
			  (unsigned)c->peer.uid);
		client_refuse(s, fd, c->peer.may_mutate);
		client_free_unlisted(c);
		return;
	}
	if (r >= 0)
		r = watch(s, EPOLL_CTL_ADD, fd, EPOLLIN, c);
	if (r < 0) {
		log_debug("control socket: cannot take a client: %s", strerror(-r));
		close(fd);
		if (c)
			client_free_unlisted(c);
		return;
	}
	c->next = s->clients;
	s->clients = c;
	s->client_count++;
	timer_update(s);
	log_debug("control socket: client pid %d uid %u connected%s", (int)c->peer.pid, (unsigned)c->peer.uid,
		  c->peer.may_mutate ? "" : " (read-only)");
}

static void server_accept(struct ctl_server *s)
{
	for (int i = 0; i < ACCEPT_BATCH; i++) {
		int fd = accept4(s->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			/* The listener is level-triggered: out of fds, it would wake the loop for nothing. */
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
				listen_pause(s, true);
			else if (errno != EAGAIN && errno != EWOULDBLOCK)
				log_debug("control socket: accept: %m");
			return;
		}
		if (s->client_count >= s->max_clients)
			client_refuse(s, fd, true); /* full for everyone: no need to ask who it is */
		else
			client_add(s, fd);
	}
}

/* Connected, nothing asked and nothing owed for idle_ms. */
static bool client_idle(const struct ctl_server *s, const struct ctl_client *c, uint64_t now)
{
	return !client_queued(c) && c->in_len == 0 && !c->eof && now - c->active_ms >= s->idle_ms;
}

static void server_check_stalls(struct ctl_server *s)
{
	uint64_t expirations, now = now_ms();

	if (read(s->timer_fd, &expirations, sizeof(expirations)) < 0 && errno != EAGAIN)
		log_debug("control socket: timer: %m");
	listen_pause(s, false);
	for (struct ctl_client *c = s->clients; c; c = c->next) {
		if (c->dead)
			continue;
		if (client_queued(c) && now - c->out_since_ms >= s->stall_ms)
			client_drop(s, c, "stalled: does not read its replies");
		else if (c->partial && now - c->in_since_ms >= s->stall_ms)
			client_drop(s, c, "stalled: unfinished request");
		else if (client_idle(s, c, now))
			client_drop(s, c, "idle: asked nothing");
	}
}

int ctl_server_dispatch(struct ctl_server *s)
{
	struct epoll_event events[EVENT_BATCH];
	int n = epoll_wait(s->epoll_fd, events, EVENT_BATCH, 0);

	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	/* One budget for the whole call, not per client: what it leaves undone keeps the server's fd
	 * ready (client_watch), so the owner's loop comes back after serving its own (a due tick). */
	s->budget = (struct dispatch_budget){ CTL_SERVER_ANSWERS_PER_DISPATCH, CTL_SERVER_BYTES_PER_DISPATCH };
	for (int i = 0; i < n; i++) {
		void *tag = events[i].data.ptr;
		if (tag == &tag_listen)
			server_accept(s);
		else if (tag == &tag_timer)
			server_check_stalls(s);
		else
			client_service(s, tag, events[i].events);
	}
	clients_reap(s);
	return 0;
}

/* ---- the socket file ---- */

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

/* Binds with a umask that gives 0660, so that nobody else connects before the group is set, then
 * opens the socket to every local user: read-only commands are for anyone on the host (as libvirt's
 * read-only socket), and the server itself refuses mutations to all but root and the group. */
static int socket_bind(struct ctl_server *s, const struct ctl_server_config *config, struct err *err)
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

static bool socket_file_is_ours(const struct ctl_server *s)
{
	struct stat st;

	return s->bound && lstat(s->path, &st) == 0 && st.st_dev == s->dev && st.st_ino == s->ino;
}

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

static int server_setup(struct ctl_server *s, const struct ctl_server_config *config, struct err *err)
{
	int r = socket_dir_ensure(config->path, err);

	if (r == 0)
		r = path_check_free(config->path, err);

	if (r < 0)
		return r;
	s->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	s->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	s->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (s->listen_fd < 0 || s->epoll_fd < 0 || s->timer_fd < 0)
		return err_set(err, -errno, "control socket: %s", strerror(errno));
	s->path = strdup(config->path);
	if (!s->path)
		return err_set(err, -ENOMEM, "out of memory");
	r = socket_bind(s, config, err);
	if (r < 0)
		return r;
	group_name_resolve(s);
	if (listen(s->listen_fd, LISTEN_BACKLOG) < 0)
		return err_set(err, -errno, "cannot listen on %s: %s", config->path, strerror(errno));
	r = watch(s, EPOLL_CTL_ADD, s->listen_fd, EPOLLIN, &tag_listen);
	if (r >= 0)
		r = watch(s, EPOLL_CTL_ADD, s->timer_fd, EPOLLIN, &tag_timer);
	if (r < 0)
		return err_set(err, r, "control socket: epoll: %s", strerror(-r));
	return 0;
}

int ctl_server_new(const struct ctl_server_config *config, const struct ctl_handler *handler, struct ctl_server **ret,
		   struct err *err)
{
	struct sockaddr_un addr;
	struct ctl_server *s;
	int r;

	if (!config->path || !config->path[0] || strlen(config->path) >= sizeof(addr.sun_path))
		return err_set(err, -ENAMETOOLONG, "control socket path '%s' is empty or longer than %zu bytes",
			       config->path ? config->path : "", sizeof(addr.sun_path) - 1);
	s = calloc(1, sizeof(*s));
	if (!s)
		return err_set(err, -ENOMEM, "out of memory");
	*s = (struct ctl_server){
		.handler = handler,
		.max_clients = config->max_clients ? config->max_clients : CTL_SERVER_MAX_CLIENTS,
		.stall_ms = config->stall_ms ? config->stall_ms : CTL_SERVER_STALL_MS,
		.idle_ms = config->idle_ms ? config->idle_ms : CTL_SERVER_IDLE_MS,
		.epoll_fd = -1,
		.listen_fd = -1,
		.timer_fd = -1,
	};
	s->reserved = config->reserved ? config->reserved : CTL_SERVER_RESERVED;
	if (s->reserved >= s->max_clients)
		s->reserved = s->max_clients - 1; /* someone else must be able to ask */
	r = server_setup(s, config, err);
	if (r < 0) {
		ctl_server_free(s); /* removes the socket file if it got as far as creating it */
		return r;
	}
	*ret = s;
	return 0;
}

void ctl_server_free(struct ctl_server *s)
{
	if (!s)
		return;
	for (struct ctl_client *c = s->clients; c; c = c->next)
		client_drop(s, c, "server closing");
	clients_reap(s);
	reply_cache_fini(&s->replies);
	if (s->path && socket_file_is_ours(s) && unlink(s->path) < 0)
		log_debug("control socket: cannot remove %s: %m", s->path);
	if (s->listen_fd >= 0)
		close(s->listen_fd);
	if (s->timer_fd >= 0)
		close(s->timer_fd);
	if (s->epoll_fd >= 0)
		close(s->epoll_fd);
	free(s->path);
	free(s);
}

int ctl_server_fd(const struct ctl_server *s)
{
	return s->epoll_fd;
}

size_t ctl_server_client_count(const struct ctl_server *s)
{
	return s->client_count;
}
