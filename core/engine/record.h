/* The per-tick record file: CSV with a header, one row per partition per tick.
 *   t_ms,partition,mbps,mb_max,mb_min,valid,estimated,event[,sim_mbps]
 * mbps is empty (never 0) when the sample is not valid; sim_mbps is the simulator's ground truth.
 * With PMU counts, an ipc column comes last: empty when not counted. */
#ifndef MPAMD_CORE_RECORD_H
#define MPAMD_CORE_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/base/error.h"

struct record_row {
	uint64_t t_ms;
	const char *partition;
	bool valid;
	bool estimated;
	double mbps;
	unsigned mb_max, mb_min;
	const char *event; /* NULL or "" for none */
	bool has_truth;
	double truth_mbps;
	bool ipc_valid;
	double ipc;
};

struct record;

/* Creates (truncates) `path`. `with_truth` adds the sim_mbps column. */
int record_new(const char *path, bool with_truth, struct record **ret, struct err *err);
/* The same with an ipc column (when the engine counts PMU events). */
int record_new_ipc(const char *path, bool with_truth, bool with_ipc, struct record **ret, struct err *err);
int record_write(struct record *rec, const struct record_row *row);
/* Ends a tick: flushes, so the file can be followed while mpamd runs. */
int record_flush(struct record *rec, struct err *err);
int record_free(struct record *rec, struct err *err);

#endif
