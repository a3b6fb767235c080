/* mpamctl top's data: the daemon's `status` and `list` replies turned into one row per partition,
 * and the orders the rows can be sorted in. Pure: no I/O, no terminal. A field the reply lacks, or
 * sends with the wrong type, is unknown (NAN, NULL, TOP_STATE_UNKNOWN) and shown as '-', never as a
 * made-up zero. */
#ifndef MPAMD_CLI_TOP_MODEL_H
#define MPAMD_CLI_TOP_MODEL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/base/error.h"

/* What the last sample of a partition was, from the list reply's open, valid and estimated. */
enum top_state {
	TOP_STATE_UNKNOWN,   /* the reply does not say */
	TOP_STATE_MEASURED,  /* valid, read from a monitor of its own */
	TOP_STATE_ESTIMATED, /* valid, extrapolated from a monitor shared with other partitions */
	TOP_STATE_INVALID,   /* open, but this tick's sample could not be measured (see reason) */
	TOP_STATE_FAILED,    /* the partition could not be opened on the hardware (see reason) */
};

enum top_sort {
	TOP_SORT_NAME,	    /* A to Z */
	TOP_SORT_BANDWIDTH, /* highest MB/s first; unmeasured rows last */
	TOP_SORT_CLASS,	    /* latency-critical, default, best-effort, others; then by name */
	TOP_SORT_COUNT,
};

/* One domain of a partition (a memory controller, an L3), when the daemon sends them. */
struct top_domain {
	char *id;
	double mbps, mb_max, mb_min; /* NAN when unknown */
};

struct top_row {
	size_t index;		 /* position in the list reply: the last tie-break */
	char *name, *class_name; /* NULL when unknown */
	double mbps;		 /* NAN when not measured or unknown */
	double mb_max, mb_min;	 /* percent of one domain's bandwidth, NAN when unknown */
	double target_mbps;	 /* NAN when not set */
	double guarantee_mbps;	 /* NAN when not set */
	enum top_state state;
	char *reason; /* why the sample is invalid or the partition failed, or NULL */
	char *event;  /* newest status event of this partition, "HH:MM:SS action: reason", or NULL */
	struct top_domain *domains;
	size_t domain_count;
};

struct top_status {
	char *backend;
	double interval_ms, ticks, overruns; /* NAN when unknown */
	double capacity_mbps;		     /* the host's, NAN when mpamd does not know it */
	bool capacity_learned;		     /* estimated from what was seen, not from the hardware */
};

struct top_model {
	struct top_status status;
	struct top_row *rows;
	size_t count;
	bool domains_sent; /* at least one row carries a "domains" array */
};

/* Builds the model from the result objects of a status and a list reply. Fails only when `list`
 * has no "partitions" array (-EPROTO) or memory runs out (-ENOMEM); anything else missing or
 * mistyped is unknown. On failure *ret is empty and safe to fini. */
int top_model_build(json_t *status, json_t *list, struct top_model *ret, struct err *err);
void top_model_fini(struct top_model *m);

/* Sorts the rows in place by `key`, reversed when `reverse`. Unknown values (no rate, no class, no
 * name) stay last either way; ties go by name, then by position in the reply. */
void top_model_sort(struct top_model *m, enum top_sort key, bool reverse);

const char *top_sort_name(enum top_sort key);
/* "measured", "estimated", "invalid", "failed", or "-". */
const char *top_state_name(enum top_state state);

/* Cell texts, shared by the layout (for widths) and the frame (for drawing). */
/* "14394.7", "2578.1~" when estimated, "-" when unknown. */
void top_format_mbps(double mbps, bool estimated, char *buf, size_t size);
/* "100/30": mb_max/mb_min in percent, '-' for an unknown side. */
void top_format_limits(double mb_max, double mb_min, char *buf, size_t size);

#endif
