/* Bursty demand: a partition that demands for DUTY of every PERIOD and nothing for the rest.
 *
 * Time is the simulation's, in nanoseconds from its start. Each period begins at a multiple of the
 * period; the demand is on from PHASE into the period for DUTY x PERIOD (wrapping into the next
 * period when PHASE + DUTY x PERIOD passes its end), off otherwise. Pure arithmetic, shared by the
 * MSC simulator and the resctrl emulator. */
#ifndef MPAMD_BACKENDS_SIM_BURST_H
#define MPAMD_BACKENDS_SIM_BURST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/error.h"

#define BURST_PERIOD_MS_MAX 3600000u /* an hour: longer is a demand profile, not a burst */

struct burst {
	uint32_t period_ms; /* 0: no burst, the demand is always on */
	uint32_t phase_ms;  /* below period_ms */
	double duty;	    /* 0..1 */
};

/* "PERIOD_MS:DUTY" or "PERIOD_MS:DUTY:PHASE_MS"; -EINVAL with what is wrong, *ret unchanged. */
int burst_parse(const char *text, struct burst *ret, struct err *err);
/* As burst_parse reads it back; false for no burst. */
bool burst_format(const struct burst *b, char *buf, size_t len);

/* Whether the demand is on at t_ns. */
bool burst_on(const struct burst *b, uint64_t t_ns);
/* The first moment after t_ns at which burst_on changes; UINT64_MAX when it never does (no burst,
 * duty 0 or 1). */
uint64_t burst_next_edge(const struct burst *b, uint64_t t_ns);

#endif
