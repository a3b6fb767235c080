/* A bus in front of another MSC bus, with the test's hooks around every access. */
#include "tests/util/bus_tap.h"

static struct bus_tap *tap_of(struct msc_bus *b)
{
	return (struct bus_tap *)b;
}

static void after_read(struct bus_tap *t, uint32_t off, int r, uint64_t *v, unsigned bytes)
{
	if (t->hooks->after_read)
		t->hooks->after_read(t, off, r, v, bytes);
}

static void before_write(struct bus_tap *t, uint32_t off, uint64_t v, unsigned bytes)
{
	if (t->hooks->before_write)
		t->hooks->before_write(t, off, v, bytes);
}

static int tap_read32(struct msc_bus *b, uint32_t off, uint32_t *ret)
{
	int r = bus_read32(tap_of(b)->inner, off, ret);
	uint64_t v = *ret;

	after_read(tap_of(b), off, r, &v, 4);
	*ret = (uint32_t)v;
	return r;
}

static int tap_write32(struct msc_bus *b, uint32_t off, uint32_t v)
{
	before_write(tap_of(b), off, v, 4);
	return bus_write32(tap_of(b)->inner, off, v);
}

static int tap_read64(struct msc_bus *b, uint32_t off, uint64_t *ret)
{
	int r = bus_read64(tap_of(b)->inner, off, ret);

	after_read(tap_of(b), off, r, ret, 8);
	return r;
}

static int tap_write64(struct msc_bus *b, uint32_t off, uint64_t v)
{
	before_write(tap_of(b), off, v, 8);
	return bus_write64(tap_of(b)->inner, off, v);
}

static void tap_free(struct msc_bus *b)
{
	bus_free(tap_of(b)->inner);
}

static const struct msc_bus_ops tap_ops = {
	.read32 = tap_read32,
	.write32 = tap_write32,
	.read64 = tap_read64,
	.write64 = tap_write64,
	.free = tap_free,
};

struct msc_bus *bus_tap_over(struct bus_tap *tap, struct msc_bus *inner, const struct bus_tap_hooks *hooks)
{
	*tap = (struct bus_tap){
		.base = { .ops = &tap_ops, .base = inner->base, .size = inner->size },
		.inner = inner,
		.hooks = hooks,
	};
	return &tap->base;
}
