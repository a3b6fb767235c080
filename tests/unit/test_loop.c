/* The event loop: callbacks of ready descriptors, those added "first" ahead of the rest. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/base/loop.h"
#include "tests/util/test_main.h"

#define WATCHES 4

struct order {
	int ran[WATCHES * 2];
	int count;
	int fds[WATCHES];
	struct loop *loop;
	int remove; /* index of a descriptor the first callback removes, or -1 */
};

struct slot {
	struct order *order;
	int index;
};

static void on_ready(void *ctx, int fd, uint32_t events)
{
	struct slot *slot = ctx;
	struct order *o = slot->order;
	uint64_t value;

	(void)events;
	assert_int_equal(read(fd, &value, sizeof(value)), sizeof(value));
	o->ran[o->count++] = slot->index;
	if (o->remove >= 0) {
		loop_remove(o->loop, o->fds[o->remove]);
		o->remove = -1;
	}
}

static void signal_fd(int fd)
{
	uint64_t one = 1;

	assert_int_equal(write(fd, &one, sizeof(one)), sizeof(one));
}

/* Watches 0..3; `first` is the one added with loop_add_first. All are made ready, the first one
 * last of all, and one turn of the loop runs them. */
static void run_turn(struct order *o, struct slot *slots, int first)
{
	assert_int_equal(loop_new(&o->loop), 0);
	for (int i = 0; i < WATCHES; i++) {
		o->fds[i] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		assert_true(o->fds[i] >= 0);
		slots[i] = (struct slot){ o, i };
		if (i == first)
			assert_int_equal(loop_add_first(o->loop, o->fds[i], EPOLLIN, on_ready, &slots[i]), 0);
		else
			assert_int_equal(loop_add(o->loop, o->fds[i], EPOLLIN, on_ready, &slots[i]), 0);
	}
	for (int i = 0; i < WATCHES; i++)
		if (i != first)
			signal_fd(o->fds[i]);
	signal_fd(o->fds[first]);
	assert_int_equal(loop_run_once(o->loop, 0), WATCHES);
}

static void run_fini(struct order *o)
{
	for (int i = 0; i < WATCHES; i++)
		close(o->fds[i]);
	loop_free(o->loop);
}

static void test_first_runs_before_the_others(void **state)
{
	(void)state;
	for (int first = 0; first < WATCHES; first++) {
		struct order o = { .remove = -1 };
		struct slot slots[WATCHES];
		run_turn(&o, slots, first);
		assert_int_equal(o.count, WATCHES);
		assert_int_equal(o.ran[0], first);
		/* Each of the others once. */
		int seen = 0;
		for (int i = 1; i < o.count; i++) {
			assert_int_not_equal(o.ran[i], first);
			seen |= 1 << o.ran[i];
		}
		assert_int_equal(seen | 1 << first, (1 << WATCHES) - 1);
		run_fini(&o);
	}
}

/* A callback that removes a descriptor whose event is in the same batch: that one does not run. */
static void test_removed_during_batch(void **state)
{
	struct order o = { .remove = 2 };
	struct slot slots[WATCHES];

	(void)state;
	run_turn(&o, slots, 1);
	assert_int_equal(o.ran[0], 1);
	assert_int_equal(o.count, WATCHES - 1);
	for (int i = 0; i < o.count; i++)
		assert_int_not_equal(o.ran[i], 2);
	run_fini(&o);
}

TEST_MAIN({
	cmocka_unit_test(test_first_runs_before_the_others),
	cmocka_unit_test(test_removed_during_batch),
})
