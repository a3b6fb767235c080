/* See emu_clock.h. */
#include "emu_clock.h"

#include <errno.h>
#include <time.h>

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void emu_clock_init(struct emu_clock *c)
{
	c->manual = false;
	c->frozen_ns = 0;
	c->origin_ns = monotonic_ns();
}

uint64_t emu_clock_now(const struct emu_clock *c)
{
	return c->manual ? c->frozen_ns : monotonic_ns() - c->origin_ns;
}

void emu_clock_set_manual(struct emu_clock *c, bool manual)
{
	if (manual == c->manual)
		return;
	if (manual)
		c->frozen_ns = emu_clock_now(c);
	else
		c->origin_ns = monotonic_ns() - c->frozen_ns; /* continue from the frozen time */
	c->manual = manual;
}

int emu_clock_advance(struct emu_clock *c, uint64_t ns)
{
	if (!c->manual)
		return -EINVAL;
	c->frozen_ns += ns;
	return 0;
}
