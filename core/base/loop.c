#include "core/base/loop.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

#define LOOP_BATCH 32

struct watch {
	int fd;
	bool first; /* runs before the others ready in the same batch */
	loop_fn fn;
	void *ctx;
	struct watch *next;
};

struct loop {
	int epfd;
	struct watch *watches;
	struct watch *dead; /* removed during a batch, freed when the batch is done */
};

static void free_list(struct watch *w)
{
	while (w) {
		struct watch *next = w->next;
		free(w);
		w = next;
	}
}

int loop_new(struct loop **ret)
{
	struct loop *loop = calloc(1, sizeof(*loop));

	if (!loop)
		return -ENOMEM;
	loop->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (loop->epfd < 0) {
		int r = -errno;
		free(loop);
		return r;
	}
	*ret = loop;
	return 0;
}

void loop_free(struct loop *loop)
{
	if (!loop)
		return;
	free_list(loop->watches);
	free_list(loop->dead);
	close(loop->epfd);
	free(loop);
}

static int watch_add(struct loop *loop, int fd, uint32_t events, bool first, loop_fn fn, void *ctx)
{
	struct watch *w = calloc(1, sizeof(*w));

	if (!w)
		return -ENOMEM;
	*w = (struct watch){ .fd = fd, .first = first, .fn = fn, .ctx = ctx, .next = loop->watches };
	struct epoll_event ev = { .events = events, .data.ptr = w };
	if (epoll_ctl(loop->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		int r = -errno;
		free(w);
		return r;
	}
	loop->watches = w;
	return 0;
}

int loop_add(struct loop *loop, int fd, uint32_t events, loop_fn fn, void *ctx)
{
	return watch_add(loop, fd, events, false, fn, ctx);
}

int loop_add_first(struct loop *loop, int fd, uint32_t events, loop_fn fn, void *ctx)
{
	return watch_add(loop, fd, events, true, fn, ctx);
}

void loop_remove(struct loop *loop, int fd)
{
	for (struct watch **p = &loop->watches; *p; p = &(*p)->next) {
		if ((*p)->fd == fd) {
			struct watch *w = *p;
			epoll_ctl(loop->epfd, EPOLL_CTL_DEL, fd, NULL);
			*p = w->next;
			/* A callback may remove a descriptor whose event is pending in the same batch: the
			 * watch is marked dead and kept until the batch is done, so its memory cannot be
			 * reused by a watch added meanwhile. */
			w->fn = NULL;
			w->next = loop->dead;
			loop->dead = w;
			return;
		}
	}
}

int loop_run_once(struct loop *loop, int timeout_ms)
{
	struct epoll_event events[LOOP_BATCH];
	int n = epoll_wait(loop->epfd, events, LOOP_BATCH, timeout_ms);

	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	/* epoll lists ready descriptors in the order they became ready: a request that arrived just
	 * before the timer expired would otherwise be answered first. */
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < n; i++) {
			struct watch *w = events[i].data.ptr;
			if (w->fn && w->first == (pass == 0))
				w->fn(w->ctx, w->fd, events[i].events);
		}
	}
	free_list(loop->dead);
	loop->dead = NULL;
	return n;
}
