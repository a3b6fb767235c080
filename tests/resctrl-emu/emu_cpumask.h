/* CPU masks and the kernel's two text forms of them: cpumask_parse/"%*pb" (hex words, comma
 * separated, as in the cpus file) and cpulist_parse/"%*pbl" (ranges, as in cpus_list).
 *
 * Both parse and print `nbits` bits: the kernel's nr_cpumask_bits, which is nr_cpu_ids (the possible
 * CPUs, include/linux/cpumask.h), so a CPU past the last possible one is a parse error (ERANGE in a
 * list, EOVERFLOW in a mask), and only a possible CPU that is offline can be refused as offline. */
#ifndef MPAMD_TESTS_RESCTRL_EMU_CPUMASK_H
#define MPAMD_TESTS_RESCTRL_EMU_CPUMASK_H

#include <stdbool.h>
#include <stdint.h>

#include "emu_text.h"

#define EMU_CPU_BITS 4096
#define EMU_MAX_CPUS 1024 /* --cpus limit */

struct emu_cpumask {
	uint64_t w[EMU_CPU_BITS / 64];
};

void emu_cpumask_zero(struct emu_cpumask *m);
void emu_cpumask_fill(struct emu_cpumask *m, unsigned ncpus); /* CPUs 0..ncpus-1 */
void emu_cpumask_set(struct emu_cpumask *m, unsigned cpu);
bool emu_cpumask_test(const struct emu_cpumask *m, unsigned cpu);
bool emu_cpumask_empty(const struct emu_cpumask *m);
void emu_cpumask_or(struct emu_cpumask *dst, const struct emu_cpumask *a, const struct emu_cpumask *b);
void emu_cpumask_and(struct emu_cpumask *dst, const struct emu_cpumask *a, const struct emu_cpumask *b);
void emu_cpumask_andnot(struct emu_cpumask *dst, const struct emu_cpumask *a, const struct emu_cpumask *b);

/* 0, -EINVAL or -EOVERFLOW, like bitmap_parse(); text after the first newline is ignored. */
int emu_cpumask_parse(const char *text, unsigned nbits, struct emu_cpumask *m);
/* 0, -EINVAL, -ERANGE or -EOVERFLOW, like bitmap_parselist(); "N" and "all" end at nbits - 1. */
int emu_cpulist_parse(const char *text, unsigned nbits, struct emu_cpumask *m);

void emu_cpumask_print(const struct emu_cpumask *m, unsigned nbits, struct emu_buf *out);
void emu_cpulist_print(const struct emu_cpumask *m, unsigned nbits, struct emu_buf *out);

#endif
