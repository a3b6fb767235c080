/* A bus in front of another MSC bus, for the tests that watch or steer what the driver does: every
 * access goes through to the inner bus, with the test's hooks (each optional) around it. */
#ifndef MPAMD_TESTS_BUS_TAP_H
#define MPAMD_TESTS_BUS_TAP_H

#include <stdint.h>

#include "backends/mmio/bus.h"

struct bus_tap;

struct bus_tap_hooks {
	/* After a read of `bytes` (4 or 8) the inner bus answered `r` to; may change *value. */
	void (*after_read)(struct bus_tap *tap, uint32_t offset, int r, uint64_t *value, unsigned bytes);
	/* Before a write of `bytes` (4 or 8) goes to the inner bus. */
	void (*before_write)(struct bus_tap *tap, uint32_t offset, uint64_t value, unsigned bytes);
};

/* The test embeds it first in a struct of its own, which the hooks reach by a cast. Freeing the bus
 * frees the inner bus only: the tap is the test's, to read after the driver is gone. */
struct bus_tap {
	struct msc_bus base;
	struct msc_bus *inner;
	const struct bus_tap_hooks *hooks;
};

/* Puts `tap` in front of `inner` (which it then owns), over the same window. */
struct msc_bus *bus_tap_over(struct bus_tap *tap, struct msc_bus *inner, const struct bus_tap_hooks *hooks);

#endif
