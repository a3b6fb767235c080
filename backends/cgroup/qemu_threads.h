/* Which of a QEMU process's threads are its vCPUs, for threads = vcpu.
 *
 * QEMU started with `-name ...,debug-threads=on` (libvirt always starts it so) names each vCPU thread
 * after the accelerator that runs it: "CPU N/KVM", "CPU N/TCG" (TCG with thread=multi), or a single
 * "ALL CPUs/TCG" that runs every vCPU in turn (TCG with thread=single). A vCPU added later (QMP
 * device_add) gets its name the same way, right after it starts. Without debug-threads=on every thread
 * keeps the program's name ("qemu-system-x86"), and nothing tells a vCPU from an I/O thread.
 *
 * QEMU's QMP command query-cpus-fast does give each vCPU's thread id, and libvirt takes them from there;
 * but a QMP socket serves one client at a time (a second one waits, unanswered, until the first goes),
 * and libvirt holds its monitor socket for the whole life of the VM. So names are what mpamd can use
 * next to libvirt, and debug-threads=on is what a QEMU started by hand needs. */
#ifndef MPAMD_BACKENDS_CGROUP_QEMU_THREADS_H
#define MPAMD_BACKENDS_CGROUP_QEMU_THREADS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum qemu_thread {
	QEMU_THREAD_OTHER,   /* no vCPU: QEMU's main or I/O thread, or no QEMU's thread */
	QEMU_THREAD_VCPU,    /* named as a vCPU */
	QEMU_THREAD_UNNAMED, /* of a QEMU started without debug-threads=on: it may be a vCPU */
};

/* Whether a thread's name (/proc/TID/comm, a trailing newline allowed) is a vCPU's: "CPU N/KVM",
 * "CPU N/TCG" or "ALL CPUs/TCG". Pure. */
bool qemu_vcpu_name(const char *comm);

/* Whether a command line (/proc/PID/cmdline: `len` bytes of NUL-terminated arguments) is a QEMU's
 * (its program qemu-system-* or qemu-kvm) whose threads have no names: no -name option turned
 * debug-threads on (the last one given counts, as in QEMU). Pure. */
bool qemu_cmdline_unnamed(const char *cmdline, size_t len);

/* What thread `tid` is, by its name `comm` (NULL: /proc/TID/comm) and, for a thread named as QEMU's
 * program, its process's command line. A thread that is gone is QEMU_THREAD_OTHER. */
enum qemu_thread qemu_thread_kind(pid_t tid, const char *comm);

#endif
