/* The control socket server on its own thread (ctl_thread.h). */
#include "core/ctl/ctl_thread.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/base/log.h"

/* Nice steps the thread runs below its owner: where CPUs are short, a tick goes before a reply. */
#define REPLY_NICE 10

struct ctl_thread {
	struct ctl_server *server;
	int stop_fd; /* eventfd: written once, to stop */
	pthread_t thread;
};

static void *serve(void *arg)
{
	struct ctl_thread *t = arg;
	id_t tid = (id_t)syscall(SYS_gettid);

	/* Linux: a thread's nice value is its own (setpriority on its tid). Raising it needs no right. */
	errno = 0;
	int nice = getpriority(PRIO_PROCESS, tid);
	if (errno == 0 && setpriority(PRIO_PROCESS, tid, nice + REPLY_NICE < 19 ? nice + REPLY_NICE : 19) < 0)
		log_debug("control socket: cannot lower its thread's priority: %m");
	struct pollfd fds[2] = { { .fd = ctl_server_fd(t->server), .events = POLLIN },
				 { .fd = t->stop_fd, .events = POLLIN } };

	for (;;) {
		if (poll(fds, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			log_error("control socket: poll: %m");
			break;
		}
		if (fds[1].revents)
			break;
		if (fds[0].revents && ctl_server_dispatch(t->server) < 0) {
			log_error("control socket: the server can no longer wait for events: %m");
			break;
		}
	}
	return NULL;
}

int ctl_thread_start(struct ctl_server *server, struct ctl_thread **ret, struct err *err)
{
	struct ctl_thread *t = calloc(1, sizeof(*t));
	sigset_t all, old;
	int r;

	if (!t)
		return err_set(err, -ENOMEM, "out of memory");
	t->server = server;
	t->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (t->stop_fd < 0) {
		r = -errno;
		free(t);
		return err_set(err, r, "control socket: eventfd: %s", strerror(-r));
	}
	/* The new thread inherits the mask: a signal meant for the owner's signalfd never lands here. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = -pthread_create(&t->thread, NULL, serve, t);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r < 0) {
		close(t->stop_fd);
		free(t);
		return err_set(err, r, "control socket: cannot start its thread: %s", strerror(-r));
	}
	*ret = t;
	return 0;
}

void ctl_thread_stop(struct ctl_thread *t)
{
	uint64_t one = 1;

	if (!t)
		return;
	if (write(t->stop_fd, &one, sizeof(one)) != sizeof(one))
		log_error("control socket: cannot stop its thread: %m");
	else
		pthread_join(t->thread, NULL);
	close(t->stop_fd);
	free(t);
}
