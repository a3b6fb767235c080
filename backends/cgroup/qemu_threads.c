#include "backends/cgroup/qemu_threads.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/contracts/actuator.h"
#include "core/base/grow.h"

/* A command line longer than this is read up to here: QEMU's -name comes early (libvirt gives it
 * second), and no real one is near this long. */
#define CMDLINE_MAX (1024 * 1024)

/* "CPU N/" then `accel`, then nothing or a newline. */
static bool numbered_vcpu(const char *p, const char *accel)
{
	if (strncmp(p, "CPU ", 4))
		return false;
	p += 4;
	size_t digits = strspn(p, "0123456789");
	if (!digits || p[digits] != '/')
		return false;
	p += digits + 1;
	size_t n = strlen(accel);
	return !strncmp(p, accel, n) && (!strcmp(p + n, "") || !strcmp(p + n, "\n"));
}

bool qemu_vcpu_name(const char *comm)
{
	return numbered_vcpu(comm, "KVM") || numbered_vcpu(comm, "TCG") || !strcmp(comm, "ALL CPUs/TCG") ||
	       !strcmp(comm, "ALL CPUs/TCG\n");
}

static bool qemu_program(const char *argv0)
{
	const char *slash = strrchr(argv0, '/');
	const char *base = slash ? slash + 1 : argv0;

	return !strncmp(base, "qemu-system-", strlen("qemu-system-")) || !strcmp(base, "qemu-kvm");
}

/* QEMU's spellings of a boolean option's value; anything else leaves `current` (QEMU refuses it). */
static bool parse_on_off(const char *value, bool current)
{
	static const char *const on[] = { "on", "yes", "true", "y" }, *const off[] = { "off", "no", "false", "n" };

	for (size_t i = 0; i < sizeof(on) / sizeof(on[0]); i++) {
		if (!strcmp(value, on[i]))
			return true;
		if (!strcmp(value, off[i]))
			return false;
	}
	return current;
}

/* debug-threads as a -name value ("guest=web,debug-threads=on") sets it, starting from `current`.
 * Options are separated by ',', and ",," is a comma within a value. */
static bool name_debug_threads(const char *opts, bool current)
{
	char opt[64];
	size_t used = 0;

	for (const char *p = opts;; p++) {
		if (*p == ',' && p[1] == ',') {
			p++; /* a comma of a value: no option this function looks for has one */
		} else if (*p == ',' || *p == '\0') {
			opt[used] = '\0';
			if (!strncmp(opt, "debug-threads=", strlen("debug-threads=")))
				current = parse_on_off(opt + strlen("debug-threads="), current);
			used = 0;
			if (*p == '\0')
				return current;
			continue;
		}
		if (used + 1 < sizeof(opt))
			opt[used++] = *p;
	}
}

bool qemu_cmdline_unnamed(const char *cmdline, size_t len)
{
	const char *end = cmdline + len;
	bool named = false;

	if (!len || !memchr(cmdline, '\0', len) || !qemu_program(cmdline))
		return false;
	for (const char *arg = cmdline + strlen(cmdline) + 1; arg < end;) {
		const char *next = memchr(arg, '\0', (size_t)(end - arg));
		if (!next)
			break; /* cut short: the rest is no whole argument */
		bool name = !strcmp(arg, "-name") || !strcmp(arg, "--name");
		arg = next + 1;
		if (name && arg < end && memchr(arg, '\0', (size_t)(end - arg)))
			named = name_debug_threads(arg, named);
	}
	return !named;
}

/* The whole of a /proc file (up to CMDLINE_MAX bytes), malloc'ed: its length, or -1. */
static ssize_t read_proc(const char *path, char **ret)
{
	size_t cap = 0, used = 0;
	char *buf = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	for (;;) {
		if (used == cap && (cap >= CMDLINE_MAX || array_grow((void **)&buf, &cap, cap + 4096, 1, NULL) < 0))
			break;
		ssize_t n = read(fd, buf + used, cap - used);
		if (n <= 0)
			break;
		used += (size_t)n;
	}
	close(fd);
	*ret = buf;
	return buf ? (ssize_t)used : -1;
}

static bool read_comm(pid_t tid, char *name, size_t len)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, name, len - 1);
	close(fd);
	if (n <= 0)
		return false;
	name[n] = '\0';
	return true;
}

enum qemu_thread qemu_thread_kind(pid_t tid, const char *comm)
{
	char name[TASK_COMM_LEN + 2], path[64];
	char *cmdline = NULL;

	if (!comm && !read_comm(tid, name, sizeof(name)))
		return QEMU_THREAD_OTHER;
	if (!comm)
		comm = name;
	if (qemu_vcpu_name(comm))
		return QEMU_THREAD_VCPU;
	/* Every thread of a QEMU without names carries its program's name: only those need a look at
	 * the command line. */
	if (strncmp(comm, "qemu", 4))
		return QEMU_THREAD_OTHER;
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)tid);
	ssize_t len = read_proc(path, &cmdline);
	bool unnamed = len > 0 && qemu_cmdline_unnamed(cmdline, (size_t)len);
	free(cmdline);
	return unnamed ? QEMU_THREAD_UNNAMED : QEMU_THREAD_OTHER;
}
