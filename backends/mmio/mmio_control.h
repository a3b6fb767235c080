/* What the MMIO control does over any set of MSCs, shared by backend = mmio (MSCs behind /dev/mem)
 * and backend = sim (the simulator's register models): probe the partition controls, check each
 * partition's PARTID, program MBW_MAX/MBW_MIN and cache portions on every MSC. */
#ifndef MPAMD_BACKENDS_MMIO_MMIO_CONTROL_H
#define MPAMD_BACKENDS_MMIO_MMIO_CONTROL_H

#include <jansson.h>
#include <stdio.h>

#include "backends/contracts/control.h"
#include "backends/mmio/msc_set.h"

struct mmio_limits;

/* Limits of partitions over `set` (borrowed: it must outlive them), with room for `partitions` slots to
 * begin with; a slot opened beyond them makes room. */
int mmio_limits_new(struct msc_set *set, size_t partitions, struct mmio_limits **ret, struct err *err);
void mmio_limits_free(struct mmio_limits *limits);

void mmio_limits_probe(const struct mmio_limits *limits, struct control_caps *ret);
int mmio_limits_partition_open(struct mmio_limits *limits, size_t index, const struct partition_config *p,
			       struct partition_ref *ret, struct err *err);
void mmio_limits_partition_close(struct mmio_limits *limits, size_t index);
/* The control contract's validate for every MSC of the set together. */
int mmio_limits_validate(const struct mmio_limits *limits, const struct partition_limits *want, struct err *err);
int mmio_limits_apply(struct mmio_limits *limits, size_t index, const struct partition_limits *want,
		      struct partition_limits *effective, struct err *err);
/* The control contract's plan for every MSC of the set: what apply would write, through apply's code. */
int mmio_limits_plan(const struct mmio_limits *limits, const struct partition_config *p,
		     const struct partition_limits *want, struct control_plan *ret, struct err *err);
/* The MSC (its index in the set) that is domain `domain` of the control (mmio_limits_probe). */
size_t mmio_limits_domain_msc(const struct mmio_limits *limits, unsigned domain);
/* The MSCs and what they offer, for `mpamctl discover`. */
json_t *mmio_limits_describe(const struct mmio_limits *limits);
/* That description for people (the control contract's describe_print; describe_print.c). */
void mmio_describe_print(json_t *description, FILE *out);

/* A control over a set of MSCs and the limits on them; backend = mmio's, and the start of backend = sim's
 * (which adds its host). The msc_control_* functions are the control contract's probe, validate, apply
 * and plan for any of them: the limits' own. */
struct msc_control {
	struct control base;
	struct msc_set *set;
	struct mmio_limits *limits;
};

void msc_control_probe(struct control *c, struct control_caps *ret);
int msc_control_validate(struct control *c, const struct partition_limits *want, struct err *err);
int msc_control_apply(struct control *c, size_t index, const struct partition_limits *want,
		      struct partition_limits *effective, struct err *err);
int msc_control_plan(struct control *c, size_t index, const struct partition_config *p,
		     const struct partition_limits *want, struct control_plan *ret, struct err *err);

extern const struct control_ops control_mmio_ops;

#endif
