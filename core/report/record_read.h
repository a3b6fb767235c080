/* Reading a record file (core/report/record.c) back: the product's strict reader.
 *
 * Columns are found by their header names, in any order, and their fields read, as the record's
 * columns declare them (core/report/record_columns.h: t_ms, partition, mbps, mb_max and mb_min
 * required); unknown columns are ignored, so files from later versions still read, and so is ipc;
 * mb_max_mbps and hw_class are checked but not kept (a sample holds what mpamctl uses).
 * Fields follow RFC 4180: a quoted field may hold commas, line breaks and doubled quotes.
 * Lines end in LF or CRLF. Any problem is an error naming FILE:LINE and what is wrong, but for one:
 * a row with fewer fields than the header is a row cut short (mpamd stopped while writing it; the
 * next run ends its line before appending), so it is skipped and counted in cut_rows, with its
 * line in first_cut_line, for the caller to report. */
#ifndef MPAMD_CORE_REPORT_RECORD_READ_H
#define MPAMD_CORE_REPORT_RECORD_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/base/error.h"

/* Optional columns a file may have. */
enum record_column_flag {
	RECORD_HAS_VALID = 1u << 0,
	RECORD_HAS_ESTIMATED = 1u << 1,
	RECORD_HAS_EVENT = 1u << 2,
	RECORD_HAS_SIM = 1u << 3,
	RECORD_HAS_DOMAIN = 1u << 4,
	RECORD_HAS_GUARANTEE = 1u << 5,
	RECORD_HAS_TARGET = 1u << 6,
	RECORD_HAS_TIME = 1u << 7,
};

/* Flags of one sample. */
enum record_sample_flag {
	RECORD_MBPS = 1u << 0,	       /* mbps is set (an empty field is an invalid sample) */
	RECORD_VALID = 1u << 1,	       /* valid = 1, or mbps set when there is no valid column */
	RECORD_ESTIMATED = 1u << 2,    /* estimated = 1 */
	RECORD_SIM = 1u << 3,	       /* sim_mbps is set */
	RECORD_GUARANTEE = 1u << 4,    /* guarantee_mbps is set */
	RECORD_NO_LIMITS = 1u << 6,    /* mb_max and mb_min are empty: none was in force (a failed partition) */
	RECORD_TARGET = 1u << 5,       /* target_mbps is set */
	RECORD_MB_MAX_ASKED = 1u << 7, /* mb_max_asked is set (classes shared, the partition in a class) */
};

struct record_sample {
	uint64_t t_ms;
	int64_t time_ms;    /* wall clock, ms since the Unix epoch; 0 without a time column */
	unsigned run;	    /* which mpamd run of the file: a new one begins where t_ms goes back */
	unsigned partition; /* index into record_file.partitions */
	unsigned domain;    /* index into record_file.domains; 0 is the total ("" or "*") */
	unsigned flags;	    /* enum record_sample_flag */
	double mbps;
	double mb_max, mb_min; /* percent of capacity, 0..100 */
	double sim_mbps, guarantee_mbps, target_mbps;
	double mb_max_asked; /* percent: the ceiling it asked for, where its class holds mb_max */
	char *event;	     /* NULL when the event field is empty or absent */
};

struct record_file {
	char *name;	   /* as given, for messages */
	unsigned columns;  /* enum record_column_flag */
	char **partitions; /* names in order of first appearance */
	size_t partition_count;
	char **domains; /* domains[0] is "" (totals: "" and "*"); then in order of first appearance */
	size_t domain_count;
	struct record_sample *samples; /* in file order */
	size_t sample_count;
	size_t cut_rows;	      /* rows cut short, skipped */
	unsigned long first_cut_line; /* the line the first of them is on */
	unsigned run_count;	      /* runs of mpamd appended in the file */
	int64_t time_origin_ms;	      /* with a time column: the wall clock at t_ms 0 of the first run */
};

/* Reads the record file at `path`. On error returns a negative errno with "PATH:LINE: reason"
 * (or "PATH: reason") in err. */
int record_file_new(const char *path, struct record_file **ret, struct err *err);
/* The same from an open stream; `name` is used in messages. Does not close `in`. */
int record_file_new_from_stream(FILE *in, const char *name, struct record_file **ret, struct err *err);

/* One sample as it is read, with the file's names so far (file->samples holds none). */
typedef void record_sample_fn(void *ctx, const struct record_file *file, const struct record_sample *sample);
/* Reads the record file at `path` as record_file_new does, but keeps no sample: each is handed to
 * `each` in file order, so memory stays the size of the names whatever the file's length. The file
 * must be a regular one of at most `max_bytes` (file_open_regular: never a FIFO, a device behind a
 * link), and reading stops with -EFBIG if it grows past them. */
int record_file_scan(const char *path, uint64_t max_bytes, record_sample_fn *each, void *ctx, struct record_file **ret,
		     struct err *err);
void record_file_free(struct record_file *file);

/* Where a sample is on the file's time line, in seconds: with a time column, from the start of the
 * first run by the wall clock (so runs appended one after another stay apart and in order; for a
 * single run this is t_ms in seconds, but for clock drift), else t_ms in seconds. */
double record_file_seconds(const struct record_file *file, const struct record_sample *sample);

/* Index of the partition called `name`, or -1. */
long record_file_find_partition(const struct record_file *file, const char *name);

#endif
