/* check-config's look at goals a domain cannot all hold: mb_min percentages that sum over 100% of a
 * domain, guarantee_mbps or target_mbps that sum over its capacity. Each is a warning naming the
 * partitions, the sum and the capacity; a capacity that is not known is said as a check not made.
 *
 * The domains come from the host (check-config --host: the control's domains, each one's capacity
 * from the hardware where it tells, the simulator, else capacity_mbps), or from the file alone: the
 * simulator's [sim] MSCs, else one domain of capacity_mbps (what partitions sharing one domain could
 * have). A partition's guarantee and target are totals over the domains it uses: its sim_domains on
 * the simulator, else every domain (where its traffic goes is not in the file). */
#ifndef MPAMD_CLI_CHECK_HOST_OVERCOMMIT_H
#define MPAMD_CLI_CHECK_HOST_OVERCOMMIT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/base/diag.h"
#include "core/config/model.h"

#define OVERCOMMIT_DOMAINS_MAX 64

struct overcommit_domain {
	uint32_t id;
	double capacity_mbps; /* 0: not known */
	const char *source;   /* where the capacity comes from, for the message */
};

struct overcommit_domains {
	unsigned count;
	/* The host's (or the simulator's) own domains; false: one domain standing for any, from the
	 * file alone (its id means nothing). */
	bool known;
	bool simulated; /* sim_domains places partitions on them */
	struct overcommit_domain at[OVERCOMMIT_DOMAINS_MAX];
};

/* The domains the file alone tells of (see the file comment). */
void overcommit_domains_of_config(const struct config *config, struct overcommit_domains *ret);

/* A warning in `diags` for each domain (or set of domains) whose minimums, guarantees or targets
 * sum over what it has, and for each such sum that could not be checked for want of a capacity
 * (only for known domains: the file alone often has none, the host should). */
void check_overcommit(const struct config *config, const struct overcommit_domains *domains, struct diag_list *diags);

#endif
