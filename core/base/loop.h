/* The event loop's plumbing: an epoll set whose descriptors each carry a callback. */
#ifndef MPAMD_CORE_LOOP_H
#define MPAMD_CORE_LOOP_H

#include <stdint.h>

struct loop;

typedef void (*loop_fn)(void *ctx, int fd, uint32_t events);

int loop_new(struct loop **ret);
void loop_free(struct loop *loop);

/* Watches `fd` for `events` (EPOLLIN, EPOLLOUT...); `fn(ctx, fd, events)` runs when it is ready. */
int loop_add(struct loop *loop, int fd, uint32_t events, loop_fn fn, void *ctx);
/* The same, for a descriptor whose callback must not wait behind the others: when several are ready
 * at once, those added with loop_add_first run before the rest (the engine's tick timer). */
int loop_add_first(struct loop *loop, int fd, uint32_t events, loop_fn fn, void *ctx);
void loop_remove(struct loop *loop, int fd);

/* Waits up to timeout_ms (-1: forever, 0: just look) and runs the callbacks of ready descriptors.
 * Returns how many ran, or a negative errno (-EINTR is returned as 0). */
int loop_run_once(struct loop *loop, int timeout_ms);

#endif
