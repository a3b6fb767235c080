/* A simulated host's ground truth: what it really served each partition, which a measurement can be
 * compared with (the record's sim_mbps column, the status's sim_mbps, mpamd --print-every's column).
 * Real hardware has none: only a control that simulates its host lends one (control_shared.truth). */
#ifndef MPAMD_BACKENDS_CONTRACTS_GROUND_TRUTH_H
#define MPAMD_BACKENDS_CONTRACTS_GROUND_TRUTH_H

#include <stddef.h>

struct ground_truth {
	void *ctx;
	/* MB/s partition `index` was served over the last interval, in total. */
	double (*mbps)(void *ctx, size_t index);
	/* The same on control domain `domain` (an index into control_caps.domains). */
	double (*domain_mbps)(void *ctx, size_t index, unsigned domain);
};

#endif
