/* The per-tick record file: CSV with a header, per partition per tick one row of its total (domain
 * `*`) and one row per domain. Its columns, and how each field is written, are record_columns.h's:
 *   time,t_ms,partition,domain,mbps,mb_max,mb_min,mb_max_mbps[,hw_class,mb_max_asked],guarantee_mbps,
 *   target_mbps,valid,estimated,event[,sim_mbps][,ipc]
 * time is the wall clock in RFC 3339 UTC with milliseconds; mbps is empty (never 0) when the sample
 * is not valid; guarantee_mbps and target_mbps are the partition's goals at that tick (empty: none);
 * sim_mbps is the simulator's ground truth; with classes shared, hw_class is the class a partition is
 * in (c3) and mb_max_asked the ceiling it asked for, beside mb_max, what its class holds. A domain row
 * has that domain's rate, limits (and ceiling asked) and state, no event, no ipc and no goals (all the
 * partition's), but target_mbps where the kernel's mba_MBps controller holds it as every domain's
 * ceiling. A tick's rows are kept in memory and written together when the tick ends, so a reader never
 * sees half a tick. record.c reads no clock: every time comes from the engine. */
#ifndef MPAMD_CORE_REPORT_RECORD_H
#define MPAMD_CORE_REPORT_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "core/base/error.h"

struct record_row {
	uint64_t t_ms;
	uint64_t time_ms; /* wall clock, milliseconds since the Unix epoch */
	const char *partition;
	const char *domain; /* NULL: the partition's total ("*") */
	bool valid;
	bool estimated;
	double mbps;
	double mb_max, mb_min;
	/* What mb_max lets through in MB/s (a domain's; the total row: the sum of its domains'); 0: not
	 * known, the field is empty. */
	double mb_max_mbps;
	bool no_limits; /* no limit is in force (a failed partition): mb_max and mb_min empty, never 0 */
	/* The goals in force at this tick, in MB/s; 0: none (the field is empty). */
	double guarantee_mbps, target_mbps;
	const char *event; /* NULL or "" for none */
	bool has_truth;
	double truth_mbps;
	bool ipc_valid;
	double ipc;
	/* classes = shared: the partition is in class class_id, which holds mb_max for it, and it asked
	 * for mb_max_asked (percent; on the total row the highest of its domains'). Not in a class: both
	 * fields empty. */
	bool in_class;
	unsigned class_id;
	double mb_max_asked;
};

struct record_options {
	bool with_truth;    /* the sim_mbps column */
	bool with_ipc;	    /* the ipc column, last (the engine counts PMU events); empty when not counted */
	bool with_classes;  /* the hw_class and mb_max_asked columns (partitions share classes) */
	uint64_t now_ms;    /* wall clock at the opening: names a file moved aside */
	uint64_t max_bytes; /* a tick that would take the file past this goes to a new file; 0: no cap */
};

/* How the record file is doing (mpamctl status, the metrics). A tick whose rows could not be written
 * (the disk is full, the file could not be opened) is lost and counted; the file is opened again on
 * a later tick (the next one, then after 2, 4... up to RECORD_RETRY_MAX_TICKS ticks while it keeps
 * failing), and one that vanished under mpamd (removed, or replaced by another file) is begun again
 * at once. The log says each change of state once: failing (and why), and writing again. */
struct record_health {
	bool ok;		  /* the last tick's rows reached the file */
	uint64_t errors_total;	  /* ticks whose rows were lost */
	char error[ERR_TEXT_MAX]; /* why they were, while not ok; "" when ok */
};

#define RECORD_RETRY_MAX_TICKS 64

struct record;

/* Opens `path` to append to it, across restarts: a new or empty file gets the header, a file with
 * exactly this header is appended to, any other file is moved aside (PATH.YYYYMMDDTHHMMSSZ) and a
 * new one begun; a row cut short at the end is ended first (see record_internal.h). */
int record_new(const char *path, const struct record_options *opts, struct record **ret, struct err *err);
/* Adds a row to the current tick. */
void record_write(struct record *rec, const struct record_row *row);
/* Ends a tick: writes its rows, so the file can be followed while mpamd runs. When they would take
 * the file past max_bytes, the file is first moved to PATH.1 (replacing an older PATH.1) and a new
 * one begun with the header: a tick is never split between two files. A failure loses this tick's
 * rows, shows in the health and returns its errno; the record goes on (see struct record_health). */
int record_end_tick(struct record *rec, struct err *err);
/* Closes the file and opens `path` with `opts` in its place (SIGHUP: logrotate moved it; a reload
 * named another). When it cannot be opened, the record is failing as after a failed write: the
 * health says why, and a later tick tries again. 0 or a negative errno. */
int record_reopen(struct record *rec, const char *path, const struct record_options *opts, struct err *err);
const struct record_health *record_health(const struct record *rec);
/* {"path", "ok", "errors_total", "error"} for mpamctl status. */
json_t *record_status_json(const struct record *rec);
/* Ends the current tick and closes the file. */
int record_free(struct record *rec, struct err *err);

#endif
