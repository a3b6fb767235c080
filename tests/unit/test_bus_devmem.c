/* The /dev/mem bus, driven against a regular file standing in for physical memory: the file offset of
 * a byte is its "physical address", so what the bus writes at base+offset must appear there. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "backends/mmio/bus.h"
#include "tests/util/testutil.h"
#include "tests/util/test_main.h"

#define PAGES 4

struct fixture {
	char path[64];
	int fd;
	uint64_t page;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	snprintf(f->path, sizeof(f->path), "/tmp/test_bus_devmem.XXXXXX");
	f->fd = mkstemp(f->path);
	f->page = (uint64_t)sysconf(_SC_PAGESIZE);
	if (f->fd < 0 || ftruncate(f->fd, (off_t)(PAGES * f->page)) != 0) {
		free(f);
		return -1;
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	close(f->fd);
	unlink(f->path);
	free(f);
	return 0;
}

/* Maps pages [1, 3) of the file: a window that does not start at file offset 0, so a bus that
 * forgot base would be caught. */
static struct msc_bus *open_window(struct fixture *f)
{
	struct msc_bus *bus = NULL;
	struct err why = { "" };
	int err = bus_devmem_new(f->path, f->page, 2 * f->page, &bus, &why);

	if (err)
		fail_msg("bus_devmem_new: %d %s", err, why.text);
	assert_non_null(bus);
	assert_true(bus->base == f->page && bus->size == 2 * f->page);
	return bus;
}

static void file_read(struct fixture *f, uint64_t at, void *buf, size_t len)
{
	assert_int_equal(pread(f->fd, buf, len, (off_t)at), (ssize_t)len);
}

static void file_write(struct fixture *f, uint64_t at, const void *buf, size_t len)
{
	assert_int_equal(pwrite(f->fd, buf, len, (off_t)at), (ssize_t)len);
}

static void test_writes_land_at_base_plus_offset(void **state)
{
	struct fixture *f = *state;
	struct msc_bus *bus = open_window(f);
	uint8_t got[8];

	assert_int_equal(bus_write32(bus, 0x208, 0x8000ABCDu), 0);
	assert_int_equal(bus_write64(bus, 0x880, UINT64_C(0x0123456789ABCDEF)), 0);
	bus_free(bus);
	/* Little-endian, as the MSC's registers are. */
	file_read(f, f->page + 0x208, got, 4);
	assert_memory_equal(got, ((uint8_t[]){ 0xCD, 0xAB, 0x00, 0x80 }), 4);
	file_read(f, f->page + 0x880, got, 8);
	assert_memory_equal(got, ((uint8_t[]){ 0xEF, 0xCD, 0xAB, 0x89, 0x67, 0x45, 0x23, 0x01 }), 8);
	/* Nothing went to the unshifted offset. */
	file_read(f, 0x208, got, 4);
	assert_memory_equal(got, ((uint8_t[]){ 0, 0, 0, 0 }), 4);
}

static void test_reads_see_file_data(void **state)
{
	struct fixture *f = *state;
	static const uint8_t bytes[] = { 0x10, 0x32, 0x54, 0x76, 0x98, 0xBA, 0xDC, 0xFE };
	struct msc_bus *bus;
	uint32_t v32 = 0;
	uint64_t v64 = 0;

	file_write(f, f->page + 0x40, bytes, sizeof(bytes));
	bus = open_window(f);
	assert_int_equal(bus_read32(bus, 0x40, &v32), 0);
	assert_int_equal(v32, 0x76543210u);
	assert_int_equal(bus_read32(bus, 0x44, &v32), 0);
	assert_int_equal(v32, 0xFEDCBA98u);
	assert_int_equal(bus_read64(bus, 0x40, &v64), 0);
	assert_true(v64 == UINT64_C(0xFEDCBA9876543210));
	/* A write through the file after mapping is visible too (MAP_SHARED, no caching in the bus). */
	file_write(f, f->page + 0x44, bytes, 4);
	assert_int_equal(bus_read32(bus, 0x44, &v32), 0);
	assert_int_equal(v32, 0x76543210u);
	/* The last word of the window. */
	assert_int_equal(bus_write64(bus, (uint32_t)(2 * f->page - 8), 7), 0);
	assert_int_equal(bus_read64(bus, (uint32_t)(2 * f->page - 8), &v64), 0);
	assert_true(v64 == 7);
	bus_free(bus);
}

/* Every refused access returns -EFAULT, leaves *ret alone and does not touch the file. */
static void test_bad_accesses_refused(void **state)
{
	struct fixture *f = *state;
	struct msc_bus *bus = open_window(f);
	size_t len = PAGES * f->page;
	uint8_t *before = malloc(len), *after = malloc(len);
	uint32_t size = (uint32_t)(2 * f->page);
	uint32_t v32 = 0x5A5A5A5A;
	uint64_t v64 = 0x5A5A5A5A;

	assert_non_null(before);
	assert_non_null(after);
	memset(before, 0xEE, len);
	file_write(f, 0, before, len);

	assert_int_equal(bus_write32(bus, size, 1), -EFAULT);		/* just past the end */
	assert_int_equal(bus_write64(bus, size - 4, 1), -EFAULT);	/* straddles the end */
	assert_int_equal(bus_write32(bus, UINT32_MAX - 3, 1), -EFAULT); /* far outside */
	assert_int_equal(bus_write32(bus, 0x102, 1), -EFAULT);		/* misaligned */
	assert_int_equal(bus_write64(bus, 0x104, 1), -EFAULT);		/* 4- but not 8-aligned */
	assert_int_equal(bus_read32(bus, size, &v32), -EFAULT);
	assert_int_equal(bus_read32(bus, 0x101, &v32), -EFAULT);
	assert_int_equal(bus_read64(bus, size - 4, &v64), -EFAULT);
	assert_int_equal(bus_read64(bus, 0x0C, &v64), -EFAULT);
	assert_int_equal(v32, 0x5A5A5A5A);
	assert_true(v64 == 0x5A5A5A5A);
	bus_free(bus);

	file_read(f, 0, after, len);
	assert_memory_equal(before, after, len);
	free(before);
	free(after);
}

static void expect_open_error(const char *path, uint64_t base, uint64_t size, int err, const char *words)
{
	struct msc_bus *bus = (struct msc_bus *)&bus; /* a sentinel: must stay untouched */
	struct err why = { "" };

	assert_int_equal(bus_devmem_new(path, base, size, &bus, &why), err);
	assert_true(bus == (struct msc_bus *)&bus);
	if (!strstr(why.text, words) || !strstr(why.text, path))
		fail_msg("message '%s' lacks '%s' or the path", why.text, words);
}

static void test_unaligned_window_refused(void **state)
{
	struct fixture *f = *state;

	expect_open_error(f->path, f->page + 0x100, f->page, -EINVAL, "page size");
	expect_open_error(f->path, f->page, 0x100, -EINVAL, "page size");
	expect_open_error(f->path, 0, 0, -EINVAL, "empty");
	expect_open_error(f->path, UINT64_MAX - f->page + 1, f->page, -EINVAL, "does not fit");
	/* The message names the range. */
	{
		struct msc_bus *bus = NULL;
		struct err why = { "" };

		assert_int_equal(bus_devmem_new(f->path, 0x10000100, 0x1000, &bus, &why), -EINVAL);
		if (!strstr(why.text, "0x10000100"))
			fail_msg("message '%s' does not name the range", why.text);
	}
}

static void test_missing_path(void **state)
{
	struct fixture *f = *state;
	char missing[96];

	snprintf(missing, sizeof(missing), "%s.does-not-exist", f->path);
	expect_open_error(missing, 0, f->page, -ENOENT, "does not exist");
	expect_open_error(missing, 0, f->page, -ENOENT, "CONFIG_DEVMEM");
	/* Without a buffer for the reason it still fails cleanly. */
	{
		struct msc_bus *bus = NULL;

		assert_int_equal(bus_devmem_new(missing, 0, f->page, &bus, NULL), -ENOENT);
		assert_null(bus);
	}
}

/* Opens path as an unprivileged user (nobody) in a child and returns its result; the reason comes back
 * through a pipe. Returns 1 when privileges cannot be dropped here. */
static int open_as_nobody(const char *path, uint64_t size, char *why, size_t why_len)
{
	int fds[2], status, result = 1;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct msc_bus *bus = NULL;
		struct err msg = { "" };
		int err = 1;

		close(fds[0]);
		if (setgid(65534) == 0 && setuid(65534) == 0)
			err = bus_devmem_new(path, 0, size, &bus, &msg);
		if (write(fds[1], &err, sizeof(err)) != sizeof(err) || write(fds[1], msg.text, sizeof(msg.text)) < 0)
			_exit(2);
		_exit(0);
	}
	close(fds[1]);
	if (read(fds[0], &result, sizeof(result)) != sizeof(result) || read(fds[0], why, why_len - 1) < 0)
		fail_msg("no answer from the unprivileged child");
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	return result;
}

static void test_permission_denied(void **state)
{
	struct fixture *f = *state;
	struct err why = { "" };
	int err;

	if (geteuid() != 0) {
		assert_int_equal(fchmod(f->fd, 0400), 0);
		expect_open_error(f->path, 0, f->page, -EACCES, "need root (CAP_SYS_RAWIO)");
		return;
	}
	/* Root opens anything, so ask as nobody; the mkstemp file is 0600 and root's. */
	err = open_as_nobody(f->path, f->page, why.text, sizeof(why.text));
	if (err == 1)
		skip(); /* cannot drop privileges in this environment */
	assert_int_equal(err, -EACCES);
	if (!strstr(why.text, "need root (CAP_SYS_RAWIO)") || !strstr(why.text, f->path))
		fail_msg("message '%s' does not say root is needed", why.text);
}

static void test_mmap_error_reported(void **state)
{
	struct fixture *f = *state;

	/* A directory opens O_RDWR with EISDIR: an "other errno" reported with strerror. */
	expect_open_error("/tmp", 0, f->page, -EISDIR, strerror(EISDIR));
	/* A file that opens but cannot be mapped: /dev/null has no mmap and refuses it with ENODEV. */
	if (access("/dev/null", W_OK) == 0)
		expect_open_error("/dev/null", 0, f->page, -ENODEV, "mmap failed");
}

TEST_MAIN({
	fixture_test(test_writes_land_at_base_plus_offset),
	fixture_test(test_reads_see_file_data),
	fixture_test(test_bad_accesses_refused),
	fixture_test(test_unaligned_window_refused),
	fixture_test(test_missing_path),
	fixture_test(test_permission_denied),
	fixture_test(test_mmap_error_reported),
})
