/* The control socket server (ctl_server.h): its epoll set, which holds the listener, the stall timer
 * and the clients, and its connections, accepted or refused (the cap, the slots kept for peers who
 * may mutate), served in each dispatch within one budget, and dropped when stalled, idle or done.
 * One client's requests and replies are in ctl_server_client.c, who a peer is in ctl_server_peer.c,
 * the socket file in ctl_server_socket.c. */
#include "core/ctl/ctl_server.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "core/base/log.h"
#include "core/ctl/ctl_server_internal.h"
#include "core/ctl/proto.h"
#include "core/ctl/reply_cache.h"

#define IN_INITIAL     4096 /* input buffers grow from this to CTL_MAX_REQUEST */
#define ACCEPT_BATCH   64   /* connections accepted per dispatch, so a flood cannot hold the loop */
#define EVENT_BATCH    64
#define LISTEN_BACKLOG 64

/* epoll data for the two descriptors that are not clients. */
static char tag_listen, tag_timer;

/* ---- epoll bookkeeping ---- */

int ctl_server_watch(struct ctl_server *s, int op, int fd, uint32_t events, void *data)
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
	if (ctl_server_watch(s, EPOLL_CTL_MOD, s->listen_fd, pause ? 0 : EPOLLIN, &tag_listen) == 0)
		s->listen_paused = pause;
	timer_update(s);
}

/* ---- connections ---- */

static void client_drop(struct ctl_server *s, struct ctl_client *c, const char *why)
{
	if (c->dead)
		return;
	log_debug("control socket: client pid %d uid %u: %s", (int)c->peer.pid, (unsigned)c->peer.uid, why);
	epoll_ctl(s->epoll_fd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	c->fd = -1;
	c->dead = true;
	ctl_server_client_release(c);
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

static void client_service(struct ctl_server *s, struct ctl_client *c, uint32_t events)
{
	const char *why;

	if (c->dead)
		return;
	why = ctl_server_client_step(s, c, events);
	if (why)
		client_drop(s, c, why);
}

/* Whether a peer gets a slot, and why not. */
enum refusal {
	SLOT_GIVEN,
	REFUSED_FULL,	  /* every slot is taken */
	REFUSED_RESERVED, /* the slots left are kept for root and the group */
	REFUSED_PER_UID,  /* its uid holds as many as one uid may */
};

/* Beyond the cap, a connection is told why before it is closed; the reply is small enough to fit
 * in a fresh socket's buffer, so a single non-blocking send suffices. */
static void client_refuse(const struct ctl_server *s, int fd, enum refusal why, uid_t uid)
{
	json_t *reply = NULL;

	if (why == REFUSED_FULL)
		reply = ctl_reply_error("too many clients (%u connected): try again later", s->max_clients);
	else if (why == REFUSED_RESERVED)
		reply = ctl_reply_error("too many clients (%zu connected; the other %zu slots are kept for root and "
					"group %s): try again later",
					s->client_count, (size_t)s->max_clients - s->client_count,
					s->group_may_mutate ? s->group : "(none)");
	else
		reply = ctl_reply_error("too many connections from uid %u (%u, the most one user may hold "
					"beside root and group %s): close one and try again",
					(unsigned)uid, s->per_uid, s->group_may_mutate ? s->group : "(none)");
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

/* The connections of `uid` that may only read (the same uid in the socket's group is not held to it). */
static size_t readers_of_uid(const struct ctl_server *s, uid_t uid)
{
	size_t n = 0;

	for (const struct ctl_client *c = s->clients; c; c = c->next)
		n += !c->dead && !c->peer.may_mutate && c->peer.uid == uid;
	return n;
}

/* The last `reserved` slots are for peers who may mutate, so that idle connections of others
 * (anyone who can open the socket) cannot lock root out; and a peer that may only read gets at most
 * per_uid slots for its uid, so that one user cannot lock the other readers out. */
static enum refusal slot_for(const struct ctl_server *s, const struct ctl_peer *peer)
{
	if (peer->may_mutate)
		return s->client_count < s->max_clients ? SLOT_GIVEN : REFUSED_FULL;
	if (s->client_count >= s->max_clients - s->reserved)
		return REFUSED_RESERVED;
	return readers_of_uid(s, peer->uid) < s->per_uid ? SLOT_GIVEN : REFUSED_PER_UID;
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
		r = c->in ? ctl_server_peer_identify(s, fd, &c->peer) : -ENOMEM;
	}
	enum refusal why = r >= 0 ? slot_for(s, &c->peer) : SLOT_GIVEN;
	if (why != SLOT_GIVEN) {
		log_debug("control socket: client pid %d uid %u refused: no slot left for it", (int)c->peer.pid,
			  (unsigned)c->peer.uid);
		client_refuse(s, fd, why, c->peer.uid);
		client_free_unlisted(c);
		return;
	}
	if (r >= 0)
		r = ctl_server_watch(s, EPOLL_CTL_ADD, fd, EPOLLIN, c);
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
			client_refuse(s, fd, REFUSED_FULL, 0); /* full for everyone: no need to ask who it is */
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

/* ---- creation ---- */

static int server_setup(struct ctl_server *s, const struct ctl_server_config *config, struct err *err)
{
	int r = ctl_server_socket_prepare(config->path, err);

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
	r = ctl_server_socket_bind(s, config, err);
	if (r < 0)
		return r;
	if (listen(s->listen_fd, LISTEN_BACKLOG) < 0)
		return err_set(err, -errno, "cannot listen on %s: %s", config->path, strerror(errno));
	r = ctl_server_watch(s, EPOLL_CTL_ADD, s->listen_fd, EPOLLIN, &tag_listen);
	if (r >= 0)
		r = ctl_server_watch(s, EPOLL_CTL_ADD, s->timer_fd, EPOLLIN, &tag_timer);
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
	s->per_uid = config->per_uid ? config->per_uid : CTL_SERVER_PER_UID;
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
	ctl_server_socket_remove(s);
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
