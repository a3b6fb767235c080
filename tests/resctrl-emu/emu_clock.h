/* The emulator's time: nanoseconds since start, following CLOCK_MONOTONIC ("clock real") or frozen
 * and stepped by hand ("clock manual", "advance MS") for deterministic tests. Switching modes never
 * makes time jump. */
#ifndef MPAMD_TESTS_RESCTRL_EMU_CLOCK_H
#define MPAMD_TESTS_RESCTRL_EMU_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

struct emu_clock {
	bool manual;
	uint64_t frozen_ns; /* the time while manual */
	uint64_t origin_ns; /* CLOCK_MONOTONIC reading that is emulator time 0 (real mode) */
};

void emu_clock_init(struct emu_clock *c);
uint64_t emu_clock_now(const struct emu_clock *c);
void emu_clock_set_manual(struct emu_clock *c, bool manual);
/* -EINVAL unless manual. */
int emu_clock_advance(struct emu_clock *c, uint64_t ns);

#endif
