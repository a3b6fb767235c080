/* The monitor contract: where bandwidth counts come from (resctrl counter files, MPAM MBWU monitors
 * over a bus; later perf). A monitor probes its domains and counters, is told which partitions to
 * measure (with what the control knows of each), and reads samples every tick. It decides nothing.
 *
 * Samples are laid out by the engine: domain d of partition p is out[p * stride + d], for the
 * monitor's own domains 0..domain_count-1. */
#ifndef MPAMD_BACKENDS_CONTRACTS_MONITOR_H
#define MPAMD_BACKENDS_CONTRACTS_MONITOR_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backends/contracts/control.h"
#include "core/base/error.h"
#include "core/config/model.h"

#define MONITOR_MAX_DOMAINS 64

enum sample_state {
	SAMPLE_INVALID = 0, /* nothing could be measured: see reason */
	SAMPLE_MEASURED,
	SAMPLE_ESTIMATED, /* extrapolated while the partition had no counter */
};

struct sample {
	enum sample_state state;
	uint64_t bytes;	     /* moved during elapsed_ns */
	uint64_t elapsed_ns; /* measured, never the nominal interval */
	const char *reason;  /* static text when INVALID */
};

struct monitor_domain {
	char name[NAME_MAX_LEN + 1];
	uint64_t base;	      /* MMIO window, 0 elsewhere */
	double capacity_mbps; /* 0 when the hardware does not tell */
	/* It measures the control's domain of this space (DOMAIN_SPACE_*) and id; NULL: none known. */
	const char *id_space;
	unsigned id;
};

struct monitor_caps {
	unsigned domain_count;
	struct monitor_domain domains[MONITOR_MAX_DOMAINS];
	unsigned counters;	/* per domain (the fewest of any domain) */
	unsigned counter_bits;	/* width of the hardware counter, 64 for byte counts */
	unsigned counter_scale; /* a counter unit is 2^scale bytes */
};

struct monitor;

struct monitor_ops {
	const char *name;	 /* the monitor key's value */
	const char *what;	 /* what it reads, for messages: "MSC monitors" */
	const char *description; /* one line for --help */
	/* Keys and rules this monitor adds to the configuration (NULL: none). */
	const struct config_ext *config_ext;
	/* Names the resources it would drive for the config, beside what the control claims (see
	 * claim.h); touches nothing. `automatic`: it is a candidate of monitor = auto, which takes it
	 * only where `available` says yes beside the control (what it reads only on what the control
	 * lends, the control claims). NULL: none of its own. */
	int (*claims)(const struct config *config, bool automatic, const struct claim_sink *sink, struct err *err);
	/* monitor = auto: whether it can measure beside this control; cheap, touches no hardware
	 * registers (it may read files). The first available monitor of the engine's table is used;
	 * when it is not available, `why` says so. */
	bool (*available)(const struct config *config, const struct control_shared *shared, struct err *why);
	int (*open)(const struct config *config, const struct control_shared *shared, struct monitor **ret,
		    struct err *err);
	void (*free)(struct monitor *monitor);
	void (*probe)(struct monitor *monitor, struct monitor_caps *ret);
	/* Starts measuring partition `index`, which the control opened as `ref`. */
	int (*add)(struct monitor *monitor, size_t index, const struct partition_ref *ref, struct err *err);
	/* While counters rotate, partition `index` keeps one (once its turn comes) and is measured every
	 * tick (keep), or goes round with the others again (!keep). -ENOSPC, with why, when no counter
	 * is left to keep for it: it still goes round. NULL: every partition has a counter of its own. */
	int (*keep)(struct monitor *monitor, size_t index, bool keep, struct err *err);
	/* Stops measuring it; its samples are SAMPLE_INVALID from then on. */
	void (*remove)(struct monitor *monitor, size_t index);
	/* Reads every partition's counters at `now_ns`. Partitions not added get SAMPLE_INVALID. Returns
	 * a negative errno only when nothing at all could be read. */
	int (*read)(struct monitor *monitor, uint64_t now_ns, struct sample *out, size_t stride, struct err *err);
	json_t *(*describe)(struct monitor *monitor);
};

/* Implementations embed this as their first member. */
struct monitor {
	const struct monitor_ops *ops;
};

#endif
