/* The kernel's proc connector (NETLINK_CONNECTOR, CN_IDX_PROC; CONFIG_PROC_EVENTS), through libnl-3:
 * an event for every process or thread started (fork, clone), program executed and thread renamed,
 * so that placement puts a new thread in its partition's group at once instead of at the next
 * reconcile.
 *
 * Listening takes CAP_NET_ADMIN in the initial user and PID namespaces. The kernel sends each event
 * in a message of type NLMSG_DONE, which libnl treats as the end of a multipart reply: a callback on
 * NL_CB_VALID never sees one, so events are read on NL_CB_MSG_IN. When mpamd falls behind, the socket's
 * buffer overflows and the kernel drops events (ENOBUFS): the reader says so, and the caller reconciles. */
#ifndef MPAMD_BACKENDS_CGROUP_PROC_CONNECTOR_H
#define MPAMD_BACKENDS_CGROUP_PROC_CONNECTOR_H

#include <stdbool.h>

#include "backends/contracts/actuator.h"
#include "core/base/error.h"

struct proc_connector;

/* The buffer the daemon asks for: a burst of a few thousand starts (a VM boot, a parallel build on
 * a busy host) waits there instead of being dropped; a drop costs a reconcile of every partition. */
#define PROC_CONNECTOR_RCVBUF (4 << 20)

/* Subscribes to process events (`rcvbuf` bytes of socket buffer, past net.core.rmem_max where the
 * capability allows; 0: the default). -EPERM without
 * CAP_NET_ADMIN, -EPROTONOSUPPORT without CONFIG_PROC_EVENTS..., and why. */
int proc_connector_open(int rcvbuf, struct proc_connector **ret, struct err *err);
/* Unsubscribes (the kernel stops making events nobody reads) and closes. NULL is fine. */
void proc_connector_free(struct proc_connector *pc);
/* The socket, non-blocking, for the engine's epoll. */
int proc_connector_fd(const struct proc_connector *pc);

typedef void (*task_event_fn)(void *ctx, const struct task_event *ev);

/* Hands every queued fork, exec, comm and exit event to `fn` (the others are left out) until none
 * is left, or a few thousand were read (the socket is then still readable). *ret_lost becomes true
 * when the kernel dropped events since the last read. The number of events read, or a negative errno
 * and why when the socket failed. */
int proc_connector_drain(struct proc_connector *pc, task_event_fn fn, void *ctx, bool *ret_lost, struct err *err);

#endif
