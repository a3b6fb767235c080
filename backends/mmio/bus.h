/* The only way mpamd touches an MSC: 32- and 64-bit register accesses at an offset of one MSC window.
 * The real bus maps the window from /dev/mem (bus_devmem.c); the simulator's bus calls into the
 * register model (backends/sim/bus_sim.c), so register side effects are real in tests. */
#ifndef MPAMD_BACKENDS_MMIO_BUS_H
#define MPAMD_BACKENDS_MMIO_BUS_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/error.h"

struct msc_bus;

struct msc_bus_ops {
	/* Each returns 0, or -EFAULT for an access outside the window or not naturally aligned
	 * (nothing is read or written then), or another negative errno from the transport. */
	int (*read32)(struct msc_bus *bus, uint32_t offset, uint32_t *ret);
	int (*write32)(struct msc_bus *bus, uint32_t offset, uint32_t value);
	int (*read64)(struct msc_bus *bus, uint32_t offset, uint64_t *ret);
	int (*write64)(struct msc_bus *bus, uint32_t offset, uint64_t value);
	void (*free)(struct msc_bus *bus);
};

/* Implementations embed this as their first member. */
struct msc_bus {
	const struct msc_bus_ops *ops;
	uint64_t base; /* physical address, for messages */
	uint64_t size; /* window size in bytes */
};

static inline int bus_read32(struct msc_bus *bus, uint32_t offset, uint32_t *ret)
{
	return bus->ops->read32(bus, offset, ret);
}

static inline int bus_write32(struct msc_bus *bus, uint32_t offset, uint32_t value)
{
	return bus->ops->write32(bus, offset, value);
}

static inline int bus_read64(struct msc_bus *bus, uint32_t offset, uint64_t *ret)
{
	return bus->ops->read64(bus, offset, ret);
}

static inline int bus_write64(struct msc_bus *bus, uint32_t offset, uint64_t value)
{
	return bus->ops->write64(bus, offset, value);
}

static inline void bus_free(struct msc_bus *bus)
{
	if (bus)
		bus->ops->free(bus);
}

/* True when an access of `width` bytes at `offset` lies inside a window of `size` bytes and is
 * naturally aligned. Shared by every bus implementation. */
static inline int bus_access_ok(uint64_t size, uint32_t offset, unsigned width)
{
	return offset % width == 0 && (uint64_t)offset + width <= size;
}

/* Opens /dev/mem (or `path`, for tests) and maps [base, base+size) with O_SYNC, so every access
 * reaches the device. On failure returns a negative errno and says why in err (missing /dev/mem,
 * CONFIG_STRICT_DEVMEM/CONFIG_DEVMEM, permission...). */
int bus_devmem_new(const char *path, uint64_t base, uint64_t size, struct msc_bus **ret, struct err *err);

#endif
