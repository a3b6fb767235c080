/* The Prometheus text exposition (format 0.0.4) of the engine's state: what `mpamctl metrics` prints
 * and the metrics textfile holds. Pure formatting into a growing buffer: the engine hands over a
 * view of its state (struct metrics_input) and nothing here reads a clock or a file.
 *
 * Every family has # HELP and # TYPE before its samples, is written once, in base units (bytes,
 * seconds, ratios of 0..1; MB/s inside mpamd are 10^6 bytes/s, see core/base/counter.h), and counters
 * end in _total. Label values are escaped (\\, \", \n). The families are the table below; mpamctl(8)
 * documents each one (tests/unit/test_metrics.c holds the two to each other). */
#ifndef MPAMD_CORE_REPORT_METRICS_H
#define MPAMD_CORE_REPORT_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backends/contracts/actuator.h"
#include "backends/contracts/control.h"
#include "core/base/histogram.h"
#include "core/config/model.h"
#include "core/report/events.h"
#include "core/report/partition_status.h"
#include "core/report/record.h"

#define METRICS_FORMAT "prometheus-text-0.0.4"

/* Text that grows as it is written; an allocation failure is remembered and reported once, at the
 * end, so that writers need not check every append. */
struct metrics_buf {
	char *data; /* NUL-terminated once metrics_format succeeded */
	size_t len, cap;
	bool failed;
};

void metrics_buf_reset(struct metrics_buf *b); /* empties it, keeping the memory */
void metrics_buf_fini(struct metrics_buf *b);

/* One partition as the exposition sees it. */
struct metrics_partition {
	const struct partition_status *status;	  /* name, open, valid, estimated, bytes, limits in force */
	uint32_t guarantee_mbps, target_mbps;	  /* its goals; 0: none */
	const struct domain_status *domains;	  /* this tick's rate and limits on each domain */
	uint64_t invalid_samples;		  /* ticks with an invalid sample while open */
	const struct placement_status *placement; /* NULL: it names no tasks, or it is not open */
};

/* One domain as the exposition sees it. */
struct metrics_domain {
	const char *name;     /* the domain label: as the configuration names it */
	double capacity_mbps; /* known or learned; 0: unknown */
	bool learned;
	const char *source; /* where the figure came from (engine_domain_capacity_source); NULL: not said */
};

struct metrics_input {
	const char *version;
	const struct metrics_partition *partitions;
	size_t partition_count;
	const struct metrics_domain *domains; /* the domains rates and limits are reported in */
	unsigned domain_count;
	const struct event_counts *events;
	uint64_t events_folded;		       /* events not logged because they only repeated one */
	bool has_guarantees;		       /* some open partition has a guarantee */
	bool guarantees_enforced;	       /* then: the capacity is known, not learned */
	const struct histogram *tick_duration; /* seconds */
	uint64_t ticks, overruns;
	double interval_s;
	double uptime_s;		    /* on the engine's clock, to the last tick */
	double last_tick_unix_s;	    /* wall-clock time of the last tick; 0: none yet */
	double capacity_mbps;		    /* all measuring domains together; 0: unknown */
	bool reload_ok;			    /* the last load or reload of the configuration worked */
	double reload_ok_unix_s;	    /* when the configuration was last loaded successfully */
	bool proc_connector;		    /* placement listens to the kernel's process events */
	uint64_t proc_events_lost;	    /* times the kernel dropped events because mpamd fell behind */
	const struct record_health *record; /* NULL: no record file */
	const struct class_room *classes;   /* classes = shared: classes and RMIDs used and left; else NULL */
};

struct metrics_family {
	const char *name;
	const char *type; /* "gauge", "counter" or "histogram" */
	const char *help;
	void (*write)(struct metrics_buf *b, const struct metrics_family *f, const struct metrics_input *in);
	/* For families with one sample per partition: its value, or false for none. */
	bool (*partition_value)(const struct metrics_partition *p, double *ret);
};

/* Every family mpamd exposes, in the order written. */
extern const struct metrics_family metrics_families[];
extern const size_t metrics_family_count;

/* Replaces b's text with the exposition of `in`. 0, or -ENOMEM (b is then empty and marked failed). */
int metrics_format(const struct metrics_input *in, struct metrics_buf *b);

#endif
