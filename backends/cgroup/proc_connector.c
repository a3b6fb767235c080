#include "backends/cgroup/proc_connector.h"

#include <errno.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/* A drain reads at most this many messages, so that a fork storm cannot keep the engine's loop from
 * its ticks: epoll reports the socket again for the rest. */
#define DRAIN_MAX 4096

struct proc_connector {
	struct nl_sock *sock;
	/* While draining: where events go, and what the kernel answered to LISTEN. */
	task_event_fn fn;
	void *ctx;
	int events;
	bool acked;
	int ack_err;
};

/* One multicast control message to the proc connector: LISTEN or IGNORE. */
static int send_op(struct proc_connector *pc, enum proc_cn_mcast_op op)
{
	char buf[sizeof(struct cn_msg) + sizeof(op)] __attribute__((aligned(8)));
	struct cn_msg *msg = (struct cn_msg *)buf;

	memset(buf, 0, sizeof(buf));
	msg->id.idx = CN_IDX_PROC;
	msg->id.val = CN_VAL_PROC;
	msg->len = sizeof(op);
	memcpy(msg->data, &op, sizeof(op));
	/* The kernel takes the request as a message of type NLMSG_DONE, as it sends its events. */
	return nl_send_simple(pc->sock, NLMSG_DONE, 0, buf, sizeof(buf));
}

static void deliver(struct proc_connector *pc, const struct proc_event *ev)
{
	struct task_event out = { 0 };

	switch (ev->what) {
	case PROC_EVENT_FORK:
		out = (struct task_event){ .kind = TASK_EVENT_FORK,
					   .tid = ev->event_data.fork.child_pid,
					   .tgid = ev->event_data.fork.child_tgid };
		break;
	case PROC_EVENT_EXEC:
		out = (struct task_event){ .kind = TASK_EVENT_EXEC,
					   .tid = ev->event_data.exec.process_pid,
					   .tgid = ev->event_data.exec.process_tgid };
		break;
	case PROC_EVENT_COMM:
		out = (struct task_event){ .kind = TASK_EVENT_COMM,
					   .tid = ev->event_data.comm.process_pid,
					   .tgid = ev->event_data.comm.process_tgid };
		memcpy(out.comm, ev->event_data.comm.comm, sizeof(out.comm) - 1);
		break;
	case PROC_EVENT_EXIT:
		out = (struct task_event){ .kind = TASK_EVENT_EXIT,
					   .tid = ev->event_data.exit.process_pid,
					   .tgid = ev->event_data.exit.process_tgid };
		break;
	case PROC_EVENT_NONE: /* the answer to LISTEN */
		pc->acked = true;
		pc->ack_err = (int)ev->event_data.ack.err;
		return;
	default:
		return; /* uid and gid changes, ptrace...: nothing to place */
	}
	pc->events++;
	if (pc->fn)
		pc->fn(pc->ctx, &out);
}

/* NL_CB_MSG_IN sees every message, NLMSG_DONE included (see the header). */
static int on_message(struct nl_msg *msg, void *arg)
{
	struct proc_connector *pc = arg;
	struct nlmsghdr *hdr = nlmsg_hdr(msg);

	if (hdr->nlmsg_type == NLMSG_DONE &&
	    nlmsg_datalen(hdr) >= (int)(sizeof(struct cn_msg) + sizeof(struct proc_event))) {
		const struct cn_msg *cn = nlmsg_data(hdr);
		struct proc_event ev; /* copied out: after the 20-byte cn_msg it is not 8-byte aligned */
		if (cn->id.idx == CN_IDX_PROC && cn->id.val == CN_VAL_PROC && cn->len >= sizeof(ev)) {
			memcpy(&ev, cn->data, sizeof(ev));
			deliver(pc, &ev);
		}
	}
	return NL_SKIP; /* nothing more for libnl to do with it */
}

/* libnl folds errno into its own codes; these are the ones a receive can meet. */
static int errno_of(int nl_err)
{
	switch (-nl_err) {
	case NLE_AGAIN:
		return -EAGAIN;
	case NLE_NOMEM: /* ENOBUFS, as recvmsg reports a netlink overrun, is folded in here */
		return -ENOBUFS;
	case NLE_PERM:
		return -EPERM;
	case NLE_PROTO_MISMATCH:
	case NLE_OPNOTSUPP:
		return -EPROTONOSUPPORT;
	default:
		return -EIO;
	}
}

int proc_connector_drain(struct proc_connector *pc, task_event_fn fn, void *ctx, bool *ret_lost, struct err *err)
{
	pc->fn = fn;
	pc->ctx = ctx;
	pc->events = 0;
	for (unsigned reads = 0; reads < DRAIN_MAX; reads++) {
		int r = nl_recvmsgs_default(pc->sock);
		if (r >= 0)
			continue;
		int e = errno_of(r);
		if (e == -EAGAIN)
			break;
		if (e == -ENOBUFS) {
			*ret_lost = true; /* the socket stays usable: read on */
			continue;
		}
		pc->fn = NULL;
		return err_set(err, e, "proc connector: %s", nl_geterror(r));
	}
	pc->fn = NULL;
	return pc->events;
}

int proc_connector_fd(const struct proc_connector *pc)
{
	return nl_socket_get_fd(pc->sock);
}

void proc_connector_free(struct proc_connector *pc)
{
	if (!pc)
		return;
	if (nl_socket_get_fd(pc->sock) >= 0)
		send_op(pc, PROC_CN_MCAST_IGNORE);
	nl_socket_free(pc->sock);
	free(pc);
}

/* The kernel answers LISTEN at once with an ack event, whose err says whether it took it. */
static int subscribe(struct proc_connector *pc, struct err *err)
{
	bool lost = false;
	int r = send_op(pc, PROC_CN_MCAST_LISTEN);

	if (r < 0)
		return err_set(err, errno_of(r), "proc connector: cannot subscribe: %s", nl_geterror(r));
	if ((r = proc_connector_drain(pc, NULL, NULL, &lost, err)) < 0)
		return r;
	if (pc->acked && pc->ack_err)
		return err_set(err, -pc->ack_err, "proc connector: the kernel refused to report process events: %s",
			       strerror(pc->ack_err));
	return 0;
}

/* SO_RCVBUFFORCE passes net.core.rmem_max, which is as low as 208 KiB on stock kernels: a few
 * hundred events. It takes CAP_NET_ADMIN, which listening takes anyway; without it, the capped size. */
static int set_receive_buffer(struct proc_connector *pc, int rcvbuf)
{
	if (setsockopt(nl_socket_get_fd(pc->sock), SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) == 0)
		return 0;
	return nl_socket_set_buffer_size(pc->sock, rcvbuf, 0);
}

int proc_connector_open(int rcvbuf, struct proc_connector **ret, struct err *err)
{
	struct proc_connector *pc = calloc(1, sizeof(*pc));
	int r;

	if (!pc || !(pc->sock = nl_socket_alloc())) {
		free(pc);
		return err_set(err, -ENOMEM, "out of memory");
	}
	nl_socket_disable_seq_check(pc->sock);
	nl_socket_disable_auto_ack(pc->sock);
	nl_join_groups(pc->sock, CN_IDX_PROC);
	nl_socket_modify_cb(pc->sock, NL_CB_MSG_IN, NL_CB_CUSTOM, on_message, pc);
	if ((r = nl_connect(pc->sock, NETLINK_CONNECTOR)) < 0) {
		int e = errno_of(r);
		err_set(err, e, "proc connector: %s%s", nl_geterror(r), e == -EPERM ? " (it needs CAP_NET_ADMIN)" : "");
		nl_socket_free(pc->sock);
		free(pc);
		return e;
	}
	r = nl_socket_set_nonblocking(pc->sock);
	if (r == 0 && rcvbuf > 0)
		r = set_receive_buffer(pc, rcvbuf);
	if (r < 0)
		r = err_set(err, errno_of(r), "proc connector: %s", nl_geterror(r));
	if (r == 0)
		r = subscribe(pc, err);
	if (r < 0) {
		proc_connector_free(pc);
		return r;
	}
	*ret = pc;
	return 0;
}
