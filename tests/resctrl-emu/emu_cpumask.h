/* CPU masks and the kernel's two text forms of them: cpumask_parse/"%*pb" (hex words, comma
 * separated, as in the cpus file) and cpulist_parse/"%*pbl" (ranges, as in cpus_list).
 *
 * Parsing accepts CPUs up to EMU_CPU_BITS - 1, like a kernel built with NR_CPUS = 4096, so a CPU that
 * exists in the mask format but is not online is reported as offline rather than as a parse error;
 * printing uses the number of online CPUs (nr_cpu_ids) as the width. */
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
int emu_cpumask_parse(const char *text, struct emu_cpumask *m);
/* 0, -EINVAL, -ERANGE or -EOVERFLOW, like bitmap_parselist(); "N" and "all" end at ncpus - 1. */
int emu_cpulist_parse(const char *text, unsigned ncpus, struct emu_cpumask *m);

void emu_cpumask_print(const struct emu_cpumask *m, unsigned ncpus, struct emu_buf *out);
void emu_cpulist_print(const struct emu_cpumask *m, unsigned ncpus, struct emu_buf *out);

#endif
