/* The backend contract: where limits are programmed and counters read. Backends never decide
 * anything; the engine tells them what to apply and asks them what they measured.
 *
 * Partitions are addressed by their index in the configuration; domains (MSCs for MPAM, L3/MB domains
 * for resctrl) by an index 0..domain_count-1. Samples are laid out [partition][domain]. */
#ifndef MPAMD_BACKENDS_BACKEND_H
#define MPAMD_BACKENDS_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "core/clock.h"
#include "core/error.h"
#include "core/model.h"

#define BACKEND_MAX_DOMAINS 64

struct backend_domain_caps {
	char name[NAME_MAX_LEN + 1];
	uint64_t base;	      /* MMIO window, 0 for resctrl */
	double capacity_mbps; /* 0 when the backend does not know */
	bool measures;	      /* has bandwidth counters; a partition's total sums these domains */
};

/* What a backend found when it probed the hardware. */
struct backend_caps {
	unsigned domain_count;
	struct backend_domain_caps domains[BACKEND_MAX_DOMAINS];
	unsigned partitions_max; /* PARTIDs (MPAM) or CLOSIDs (resctrl), all domains together */
	unsigned pmgs;
	unsigned bw_gran_pct; /* MB limits are multiples of this; 0 without MB control */
	unsigned bw_min_pct;  /* the lowest MB setting the hardware takes */
	bool has_mb_min;
	unsigned cbm_bits; /* 0 without cache portion control */
	unsigned monitors; /* bandwidth monitors per domain (the fewest of any domain) */
	unsigned counter_bits;
	unsigned counter_scale;
};

/* Limits of one partition, in the configuration's units. mb_min 0 means none, l3_cbm 0 leaves the
 * cache portion as it is. */
struct partition_limits {
	unsigned mb_max;
	unsigned mb_min;
	uint64_t l3_cbm;
	/* In what apply returns: the hardware held limits mpamd had not set (another tool changed
	 * them); they have been put back. Backends that always rewrite everything leave it false. */
	bool changed_outside;
};

enum sample_state {
	SAMPLE_INVALID = 0, /* nothing could be measured: see reason */
	SAMPLE_MEASURED,
	SAMPLE_ESTIMATED, /* extrapolated while the partition had no monitor */
};

struct sample {
	enum sample_state state;
	uint64_t bytes;	     /* moved during elapsed_ns */
	uint64_t elapsed_ns; /* measured, never the nominal interval */
	const char *reason;  /* static text when INVALID */
};

/* Implementations embed this as their first member. */
struct backend {
	const struct backend_ops *ops;
};

struct backend_ops {
	const char *name;
	/* Probes the hardware named by the config. `clock` is the engine's. */
	int (*open)(const struct config *config, struct clock *clock, struct backend **ret, struct err *err);
	void (*close)(struct backend *backend);
	void (*caps)(struct backend *backend, struct backend_caps *ret);
	/* Makes partition `index` ready (resctrl: create or adopt its group; MPAM: check its PARTID).
	 * A failure concerns this partition only. */
	int (*partition_open)(struct backend *backend, size_t index, const struct partition_config *p, struct err *err);
	/* Programs limits on every domain, rounded to the hardware's steps; stores what is in force in
	 * *effective (read back from the hardware where possible). */
	int (*apply)(struct backend *backend, size_t index, const struct partition_limits *limits,
		     struct partition_limits *effective, struct err *err);
	/* Reads every open partition's counters at `now_ns` into samples[index * domain_count + domain].
	 * Partitions that are not open get SAMPLE_INVALID. Returns a negative errno only when nothing at
	 * all could be read. */
	int (*read)(struct backend *backend, uint64_t now_ns, struct sample *samples, struct err *err);
	/* Simulators only (NULL elsewhere): the ground truth of the last interval, MB/s per partition. */
	double (*truth_mbps)(struct backend *backend, size_t index);
	/* Everything probed, for `mpamctl discover`: a JSON object the CLI formats. */
	json_t *(*describe)(struct backend *backend);
};

extern const struct backend_ops backend_sim_ops;
extern const struct backend_ops backend_mmio_ops;
extern const struct backend_ops backend_resctrl_ops;

/* The backend for a configuration's `backend` key, or NULL when it is not built in. */
const struct backend_ops *backend_for(enum backend_kind kind);

#endif
