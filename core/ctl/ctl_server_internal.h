/* Shared by the control socket server's parts (core/ctl): ctl_server.c (the server, its epoll set and
 * its connections), ctl_server_client.c (one client's requests and replies), ctl_server_peer.c (who
 * a peer is and whether it may mutate) and ctl_server_socket.c (the socket file). */
#ifndef MPAMD_CORE_CTL_SERVER_INTERNAL_H
#define MPAMD_CORE_CTL_SERVER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "core/base/error.h"
#include "core/ctl/ctl_server.h"
#include "core/ctl/proto.h"
#include "core/ctl/reply_buf.h"
#include "core/ctl/reply_cache.h"

/* A reply line queued for a client: a reference (shared with the reply cache and other clients, or
 * the client's alone) and how much of it this client has written. */
struct out_segment {
	struct reply_buf *line;
	size_t off;
};

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
	struct out_segment *out; /* queued replies, oldest first from out[out_head] */
	size_t out_head, out_count, out_cap;
	size_t queued; /* bytes of them not written yet: what the queue's limits count */
	uint64_t in_since_ms, out_since_ms;
	uint64_t active_ms; /* last byte received or sent: an idle client holds a slot for nothing */
	uint64_t floor;	    /* the handler's generation its replies must be of, at least (reply_cache.h) */
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
	unsigned max_clients, reserved, per_uid, stall_ms, idle_ms;
	int epoll_fd, listen_fd, timer_fd;
	bool listen_paused; /* out of descriptors: accept again after a client leaves or a timer tick */
	bool timer_armed;
	struct dispatch_budget budget;
	struct reply_cache replies;
	size_t client_count;
	struct ctl_client *clients; /* connected and, until the end of a dispatch, dead ones */
};

/* CLOCK_MONOTONIC in ms: stalls and idleness are timed in it. */
static inline uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Reply bytes queued and not yet written (a shared line counts for each client that holds it: it
 * is what that client still has to read). */
static inline size_t client_queued(const struct ctl_client *c)
{
	return c->queued;
}

/* ---- ctl_server.c ---- */

/* epoll_ctl on the server's set: `op` for `fd`, with `data` as what its events carry. 0 or -errno. */
int ctl_server_watch(struct ctl_server *s, int op, int fd, uint32_t events, void *data);

/* ---- ctl_server_client.c ---- */

/* One round for a client on `events`: write, read, answer, write. Returns why it must go, or NULL. */
const char *ctl_server_client_step(struct ctl_server *s, struct ctl_client *c, uint32_t events);
/* Drops the client's queued replies (its references) and its buffers. */
void ctl_server_client_release(struct ctl_client *c);

/* ---- ctl_server_peer.c ---- */

/* The credentials of the peer on `fd` as the kernel recorded them at connect, and whether it may
 * mutate (root, or a member of the socket's group when one was given). 0 or -errno. */
int ctl_server_peer_identify(const struct ctl_server *s, int fd, struct ctl_peer *ret);

/* ---- ctl_server_socket.c ---- */

/* Makes the socket's directory when missing (one level), and removes a stale socket at `path`;
 * -EADDRINUSE when something answers there, -EEXIST when it is not a socket. */
int ctl_server_socket_prepare(const char *path, struct err *err);
/* Binds s->listen_fd to s->path, gives the file config->gid and CTL_SOCKET_MODE, and notes its
 * identity and group. */
int ctl_server_socket_bind(struct ctl_server *s, const struct ctl_server_config *config, struct err *err);
/* Removes the socket file if it is still the one bound (not a successor's). */
void ctl_server_socket_remove(const struct ctl_server *s);

#endif
