/* What the control socket can ask of the engine (engine_ctl.c): the socket's server on a thread of its
 * own, the snapshot its read-only replies are built from, and the calls it hands to the tick thread. */
#ifndef MPAMD_CORE_ENGINE_ENGINE_CTL_INTERNAL_H
#define MPAMD_CORE_ENGINE_ENGINE_CTL_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/base/error.h"
#include "core/ctl/ctl.h"

struct ctl_server;
struct ctl_thread;
struct engine;
struct engine_call;
struct engine_snapshot;

/* Threads: the tick thread runs the loop, the ticks, every set, reload and show, and publishes; the
 * server's thread (ctl_thread.h) reads and writes the socket and builds status, list and metrics from
 * `published`. `lock` guards the members below it, and is held to swap or take a reference, hand
 * over a call, or take the published snapshot again in its place when no reply holds it; never while
 * a reply is built or a tick runs. */
struct engine_ctl {
	struct ctl_server *server;  /* NULL: no socket, or the loop is not running */
	struct ctl_thread *thread;  /* serving `server` while the loop runs */
	struct ctl_handler handler; /* the engine's answers to the server's requests */
	int call_fd;		    /* eventfd on the loop: a call waits for the tick thread; -1: none */
	pthread_mutex_t lock;
	pthread_cond_t call_done;
	struct engine_snapshot *published; /* the last snapshot published; NULL before the loop runs */
	uint64_t publications;		   /* snapshots published: the replies' generation */
	struct engine_call *call;	   /* waiting for the tick thread, or NULL */
	bool calls_closed;		   /* the loop is stopping: no call is taken any more */
};

void engine_ctl_handler(struct engine *e, struct ctl_handler *ret);
/* Opens the control socket (opts.socket_path) and serves it on its thread; a no-op without a path. */
int engine_ctl_attach(struct engine *e, struct err *err);
void engine_ctl_detach(struct engine *e);
/* On the tick thread, after a tick, set or reload: a snapshot of the engine becomes what the replies
 * (and the metrics textfile) read. When out of memory, the one before stays; but when it was being
 * taken again in its place, there is none until the next publication. */
void engine_ctl_publish(struct engine *e);
/* The snapshot published last (a reference the caller drops with engine_snapshot_unref), or NULL. */
struct engine_snapshot *engine_ctl_published(struct engine *e);

#endif
