/* The real MSC bus: a window of physical memory mapped from /dev/mem (bus.h).
 *
 * MSC registers are little-endian device memory. Every access is one volatile load or store of the
 * register's width, so the compiler neither merges, splits nor elides it, and the O_SYNC open makes
 * the kernel map the range uncached. */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "backends/mmio/bus.h"

struct devmem_bus {
	struct msc_bus bus; /* first, so a struct msc_bus * is a struct devmem_bus * */
	int fd;
	volatile uint8_t *map;
};

static struct devmem_bus *to_devmem(struct msc_bus *bus)
{
	return (struct devmem_bus *)bus;
}

static int devmem_read32(struct msc_bus *bus, uint32_t offset, uint32_t *ret)
{
	if (!bus_access_ok(bus->size, offset, 4))
		return -EFAULT;
	*ret = le32toh(*(volatile uint32_t *)(to_devmem(bus)->map + offset));
	return 0;
}

static int devmem_write32(struct msc_bus *bus, uint32_t offset, uint32_t value)
{
	if (!bus_access_ok(bus->size, offset, 4))
		return -EFAULT;
	*(volatile uint32_t *)(to_devmem(bus)->map + offset) = htole32(value);
	return 0;
}

/* The spec does not promise a 64-bit access is single-copy atomic; callers that care about tearing
 * (a long counter) must read the halves themselves. */
static int devmem_read64(struct msc_bus *bus, uint32_t offset, uint64_t *ret)
{
	if (!bus_access_ok(bus->size, offset, 8))
		return -EFAULT;
	*ret = le64toh(*(volatile uint64_t *)(to_devmem(bus)->map + offset));
	return 0;
}

static int devmem_write64(struct msc_bus *bus, uint32_t offset, uint64_t value)
{
	if (!bus_access_ok(bus->size, offset, 8))
		return -EFAULT;
	*(volatile uint64_t *)(to_devmem(bus)->map + offset) = htole64(value);
	return 0;
}

static void devmem_free(struct msc_bus *bus)
{
	struct devmem_bus *d = to_devmem(bus);

	munmap((void *)d->map, (size_t)bus->size);
	close(d->fd);
	free(d);
}

static const struct msc_bus_ops devmem_ops = {
	.read32 = devmem_read32,
	.write32 = devmem_write32,
	.read64 = devmem_read64,
	.write64 = devmem_write64,
	.free = devmem_free,
};

/* mmap needs page-aligned, non-empty ranges that fit in off_t and size_t; say which rule is broken. */
static int check_window(uint64_t base, uint64_t size, struct err *err)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);

	if (size == 0)
		return err_set(err, -EINVAL, "the window is empty");
	if (base % page != 0 || size % page != 0)
		return err_set(err, -EINVAL, "base and size must be multiples of the page size (0x%" PRIx64 ")", page);
	if (size > SIZE_MAX || size > (uint64_t)INT64_MAX || base > (uint64_t)INT64_MAX - size ||
	    (uint64_t)(off_t)base != base)
		return err_set(err, -EINVAL, "the range does not fit in this process's address types");
	return 0;
}

static int open_failed(const char *path, struct err *err)
{
	int code = errno;

	if (code == ENOENT)
		return err_set(err, -code, "%s does not exist: the kernel was built without CONFIG_DEVMEM", path);
	if (code == EACCES || code == EPERM)
		return err_set(err, -code, "need root (CAP_SYS_RAWIO) to open %s: %s", path, strerror(code));
	return err_set(err, -code, "cannot open %s: %s", path, strerror(code));
}

static int mmap_failed(struct err *err)
{
	int code = errno;

	/* mmap of /dev/mem fails with EPERM only when devmem_is_allowed() or the iomem checks refuse. */
	if (code == EPERM)
		return err_set(err, -code,
			       "the kernel refuses the mapping: CONFIG_STRICT_DEVMEM or CONFIG_IO_STRICT_DEVMEM blocks "
			       "this range; boot with iomem=relaxed or use the resctrl backend");
	return err_set(err, -code, "mmap failed: %s", strerror(code));
}

static int devmem_map(const char *path, uint64_t base, uint64_t size, struct msc_bus **ret, struct err *err)
{
	struct devmem_bus *d;
	void *map;
	int fd, r;

	r = check_window(base, size, err);
	if (r)
		return r;
	d = calloc(1, sizeof(*d));
	if (!d)
		return err_set(err, -ENOMEM, "out of memory");
	fd = open(path, O_RDWR | O_SYNC | O_CLOEXEC);
	if (fd < 0) {
		r = open_failed(path, err);
		free(d);
		return r;
	}
	map = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)base);
	if (map == MAP_FAILED) {
		r = mmap_failed(err);
		close(fd);
		free(d);
		return r;
	}
	*d = (struct devmem_bus){ .bus = { .ops = &devmem_ops, .base = base, .size = size }, .fd = fd, .map = map };
	*ret = &d->bus;
	return 0;
}

int bus_devmem_new(const char *path, uint64_t base, uint64_t size, struct msc_bus **ret, struct err *err)
{
	int r = devmem_map(path, base, size, ret, err);

	if (r)
		err_prefix(err, "cannot map %s [0x%" PRIx64 ", 0x%" PRIx64 ")", path, base, base + size);
	return r;
}
