/* The control socket: a Unix stream listener speaking core/proto.h, one JSON line per request and
 * per reply, for an event loop it does not own.
 *
 * The server keeps its listening socket, its clients and a stall timer in an epoll set of its own
 * and shows the owner a single pollable descriptor: the owner adds ctl_server_fd() to its epoll set
 * (EPOLLIN) once, and calls ctl_server_dispatch() whenever that fd is readable. Dispatch accepts,
 * reads, answers and writes only what is ready now, never blocks, and does a bounded amount of work
 * (see CTL_SERVER_ANSWERS_PER_DISPATCH): what is left keeps the fd readable for the next call, so an
 * owner that serves its timer first is never held up by more than one dispatch. It can equally be
 * called on every iteration of a loop that does not wait (simulated time). The owner needs no callbacks and no
 * bookkeeping of client descriptors.
 *
 * Per client: requests are answered in the order they arrive (pipelining is fine); a line longer
 * than CTL_MAX_REQUEST gets an error reply and the client is closed once it is written, without the
 * rest being read; replies that cannot be written at once are queued, and while a client has more
 * than CTL_SERVER_OUT_PAUSE bytes queued its further requests wait; a client whose queued replies or
 * unfinished request make no progress for stall_ms is dropped, as is one whose queue exceeds
 * CTL_SERVER_OUT_MAX, and one that has sent nothing and is owed nothing for idle_ms (a client that
 * never reads replies small enough to sit in its socket buffer ends up so). Queued bytes are what the
 * client still has to read; a shared reply (status, list, metrics of one generation) is queued by
 * reference, one line in memory for every client that holds it, so the memory held is at most what
 * the same queues held as copies, and usually one line per command and generation. Beyond max_clients, a new
 * client gets an error reply and is closed; the last `reserved` slots take only peers that may
 * mutate (root, the socket's group), so that connections anyone can open cannot lock root out, and a
 * peer that may only read holds at most `per_uid` connections per uid, so that one local user cannot
 * lock the others out either. */
#ifndef MPAMD_CORE_CTL_SERVER_H
#define MPAMD_CORE_CTL_SERVER_H

#include <stddef.h>
#include <sys/types.h>

#include "core/ctl/ctl.h"
#include "core/base/error.h"

/* Every local user may connect and read; mutations are the server's to refuse (root and the group). */
#define CTL_SOCKET_MODE	       0666
#define CTL_SERVER_MAX_CLIENTS 64
#define CTL_SERVER_RESERVED    4 /* of them kept for peers who may mutate */
#define CTL_SERVER_PER_UID     8 /* connections one uid that may only read holds at most */
#define CTL_SERVER_STALL_MS    10000
#define CTL_SERVER_IDLE_MS     30000
#define CTL_SERVER_OUT_PAUSE   (256 * 1024)	  /* queued reply bytes above which requests wait */
#define CTL_SERVER_OUT_MAX     (64 * 1024 * 1024) /* queued reply bytes that drop a client */
/* One dispatch's work, over all clients: it answers at most this many requests, of which one client
 * at most CTL_SERVER_ANSWERS_PER_CLIENT, and stops answering once it has queued this many reply
 * bytes; the rest waits for the next dispatch. */
#define CTL_SERVER_ANSWERS_PER_DISPATCH 64
#define CTL_SERVER_ANSWERS_PER_CLIENT	16
#define CTL_SERVER_BYTES_PER_DISPATCH	(4 * 1024 * 1024)

struct ctl_server_config {
	const char *path;     /* socket file; its directory must exist */
	long gid;	      /* group given the socket and with it the right to mutate; -1: the socket keeps its
		   * creator's group and only root may mutate */
	unsigned max_clients; /* 0: CTL_SERVER_MAX_CLIENTS */
	unsigned reserved;    /* slots only root and the group may take; 0: CTL_SERVER_RESERVED */
	unsigned per_uid;     /* connections per uid of peers that may only read; 0: CTL_SERVER_PER_UID */
	unsigned stall_ms;    /* 0: CTL_SERVER_STALL_MS */
	unsigned idle_ms;     /* 0: CTL_SERVER_IDLE_MS */
};

struct ctl_server;

/* Creates the socket file, mode 0660 and owned by config->gid when given, and starts listening.
 * A socket file nobody listens on (left by a crash) is replaced; -EADDRINUSE when another process
 * answers on it, -EEXIST when the path is something other than a socket. `handler` must outlive
 * the server. Returns 0 or a negative errno with err. */
int ctl_server_new(const struct ctl_server_config *config, const struct ctl_handler *handler, struct ctl_server **ret,
		   struct err *err);

/* Closes every client and the listener and removes the socket file if it is still the one created. */
void ctl_server_free(struct ctl_server *s);

/* The one descriptor to watch for EPOLLIN (or POLLIN). */
int ctl_server_fd(const struct ctl_server *s);

/* Handles whatever is ready without blocking. Client failures are handled (and logged at debug
 * level) here; returns 0, or a negative errno when the server itself can no longer wait for events. */
int ctl_server_dispatch(struct ctl_server *s);

/* Clients connected now (for status reports and tests). */
size_t ctl_server_client_count(const struct ctl_server *s);

#endif
