/* A control socket server (ctl_server.h) served on a thread of its own, so that building and
 * writing replies never holds up the owner's loop. The thread waits on the server's descriptor and
 * dispatches whatever is ready; the handler's functions are called on it, so they must be safe there
 * (the engine's read-only ones read a published snapshot, its others hand their work to the tick
 * thread and wait: core/engine/engine_ctl.c). The server must not be touched by another thread
 * between ctl_thread_start and ctl_thread_stop. */
#ifndef MPAMD_CORE_CTL_THREAD_H
#define MPAMD_CORE_CTL_THREAD_H

#include "core/base/error.h"
#include "core/ctl/ctl_server.h"

struct ctl_thread;

/* Starts serving `server` on a new thread, with every signal blocked there (the owner takes them,
 * through a signalfd or otherwise). Returns 0 or a negative errno with err. */
int ctl_thread_start(struct ctl_server *server, struct ctl_thread **ret, struct err *err);
/* Stops the thread after its current dispatch and joins it; the server is the caller's again. */
void ctl_thread_stop(struct ctl_thread *t);

#endif
