/* The domains rates and limits are reported and decided in (engine_domains.c): worked out from the
 * composition when it opens, and each partition's rate and limits on each of them per tick. */
#ifndef MPAMD_CORE_ENGINE_ENGINE_DOMAINS_INTERNAL_H
#define MPAMD_CORE_ENGINE_ENGINE_DOMAINS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/error.h"
#include "core/base/parse.h"
#include "core/engine/capacity_learner.h"
#include "core/engine/compose.h"
#include "core/report/partition_status.h"

struct config;
struct engine;
struct partition_goals;

/* One domain the engine reports and the policies decide on. */
struct engine_dom {
	char name[24];		       /* the record's domain column, the metrics' label: the control's id */
	char what[NAME_MAX_LEN + 8];   /* for people: "MB domain 0", "msc sim0", "counters L3_00" */
	int control;		       /* its index in hw.caps.domains; -1: limits are the partition's */
	uint64_t monitors;	       /* bit m: monitor domain m (hw.domains) measures it */
	int only_monitor;	       /* the one monitor domain that measures it; -1: none or several */
	struct capacity_learner learn; /* its capacity learned from its totals (engine_capacity.c) */
	double hmat_mbps;	       /* ACPI HMAT's figure for it (0: none; engine_capacity_probe) */
	double record_mbps; /* the record's peak its learner started from (0: none; engine_capacity_from_record) */
	/* engine_dom_known_capacity at this tick (engine_domains_begin_tick: once a tick, not once per
	 * partition), and whether it differs from the last tick's (NAN after the map: it does). */
	double known_mbps;
	bool known_changed;
};

/* Set by engine_domains_map when the composition opens; status each tick by engine_domains_summarise. */
struct engine_domains {
	struct engine_dom dom[ENGINE_MAX_DOMAINS];
	unsigned count;
	bool per_domain;	      /* the domains are the control's: the policies decide per domain */
	struct domain_status *status; /* [slot][domain]: each partition's rate and limits there */
};

/* Each domain's (and the host's) capacity learned from this tick's totals (engine_capacity.c), after
 * every partition's domains were summarised; the totals into dom[d] (ENGINE_MAX_DOMAINS of them) and
 * *host, for the policies (one pass over the partitions for both). */
void engine_capacity_learn(struct engine *e, struct capacity_tick *dom, struct capacity_tick *host);
/* What the policies judge saturation against on domain d: engine_domain_capacity's figure, learned
 * (*learned) only until the domain has shown saturation. */
double engine_domain_policy_capacity(const struct engine *e, unsigned d, bool *learned);
/* Each resctrl domain's capacity as ACPI HMAT publishes it under opts.sysfs_root (engine_capacity.c),
 * once the domains are mapped; the figures found and the values ignored are logged. */
void engine_capacity_probe(struct engine *e);
/* Each domain's learner (and the host's) started from the record file's history where no capacity is
 * known (engine_capacity_record.c), before the record is opened to write. */
void engine_capacity_from_record(struct engine *e);
/* Works out e->domains from the composition just opened. */
void engine_domains_map(struct engine *e);
/* Every per-domain value of a partition's goals, or of capacity_mbps, names a domain of this host:
 * -EINVAL and which one otherwise. */
int engine_check_goal_domains(const struct engine *e, const struct partition_goals *g, struct err *err);
int engine_check_capacity_domains(const struct engine *e, const struct config *config, struct err *err);
/* What monitor domain m, and engine domain d, can carry as far as is known (0: unknown). */
double engine_monitor_capacity(const struct engine *e, unsigned m);
double engine_dom_known_capacity(const struct engine *e, unsigned d);
/* The same, and where it came from (*ret_source, may be NULL: "configured", "hardware", "hmat"; NULL
 * when it is not known). */
double engine_dom_known_capacity_from(const struct engine *e, unsigned d, const char **ret_source);
/* What each domain can carry as far as is known, for this tick's engine_domains_summarise. */
void engine_domains_begin_tick(struct engine *e);
/* Partition `index`'s rate and limits on each domain, from this tick's samples (after
 * engine_domains_begin_tick). */
void engine_domains_summarise(struct engine *e, size_t index, const double *rates);
/* The policies' copy of its configured limits on each domain (after open, set, reload). */
void engine_domains_config(struct engine *e, size_t slot);

#endif
