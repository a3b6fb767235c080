/* Counter arithmetic: wrap-aware deltas and rates. Pure functions. */
#ifndef MPAMD_CORE_COUNTER_H
#define MPAMD_CORE_COUNTER_H

#include <stdbool.h>
#include <stdint.h>

/* The value bits of a `bits`-wide counter (1..64). */
static inline uint64_t counter_mask(unsigned bits)
{
	return bits >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << bits) - 1;
}

/* Increase of a counter whose value bits are `mask` (counter_mask) that read `prev` and now reads
 * `cur`. The delta is taken modulo the counter's range (mask + 1), which covers one wrap by itself.
 * `overflowed` is the hardware's word that at least one wrap happened (MPAM OFLOW_STATUS): when it
 * is set and cur >= prev the counter went all the way round, so one full range is added (0 for a
 * 64-bit counter, whose range does not fit and which never wraps in practice). Two or more wraps
 * cannot be told apart: the engine keeps intervals short enough that they cannot happen. Inline: it
 * runs once per counter read, on the monitors' hot path. */
static inline uint64_t counter_delta_masked(uint64_t prev, uint64_t cur, uint64_t mask, bool overflowed)
{
	uint64_t delta = (cur - prev) & mask;

	if (overflowed && (cur & mask) >= (prev & mask))
		delta += mask + 1;
	return delta;
}

/* The same for a `bits`-wide counter. */
static inline uint64_t counter_delta(uint64_t prev, uint64_t cur, unsigned bits, bool overflowed)
{
	return counter_delta_masked(prev, cur, counter_mask(bits), overflowed);
}

/* Decimal megabytes per second (10^6 bytes/s) of `bytes` over `elapsed_ns`; 0 when elapsed is 0.
 * Inline: every sample of every partition on every domain is divided once a tick. */
static inline double counter_rate_mbps(uint64_t bytes, uint64_t elapsed_ns)
{
	if (elapsed_ns == 0)
		return 0.0;
	/* bytes / ns * 1e9 = bytes/s; / 1e6 = MB/s. */
	return (double)bytes * 1e3 / (double)elapsed_ns;
}

/* Time a counter of `bits` bits counting in units of 2^scale bytes takes at `mbps` to count through
 * its whole range, in nanoseconds (UINT64_MAX when mbps is 0 or the time does not fit). Reads must
 * come more often than this: within one range a wrap shows as cur < prev (or as the overflow flag),
 * beyond it a second wrap would go unnoticed. */
uint64_t counter_wrap_ns(unsigned bits, unsigned scale, double mbps);

#endif
