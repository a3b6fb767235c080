/* Reading the record file back in tests: the columns core/report/record_columns.h declares found by
 * their header names and each field read as its column says, fields quoted as RFC 4180 says (an
 * event with a comma or a quote, not a line break), an empty mbps kept apart from 0. Strict where
 * the product's reader (core/report/record_read.c) forgives: a row cut short is an error here (but for
 * record_read_forgiving), since a test's file has none, and valid, estimated and event are required too. */
#ifndef MPAMD_TESTS_RECORD_READER_H
#define MPAMD_TESTS_RECORD_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct config;

struct record_line {
	unsigned long long t_ms;
	bool has_time;	 /* the file has a time column */
	int64_t time_ms; /* its wall-clock time, ms since the Unix epoch */
	char partition[65];
	bool has_mbps; /* false: the mbps field was empty (an invalid sample) */
	double mbps;
	double mb_max, mb_min; /* percent: rungs need not be whole */
	int valid, estimated;
	char event[200];
	double sim_mbps; /* 0 when the record has no sim_mbps column */
	bool has_ipc;	 /* the ipc field was there and not empty (counted) */
	double ipc;
	char domain[25];		/* "*": the partition's total (also in a file without a domain column) */
	bool has_guarantee, has_target; /* the goal's field was there and not empty */
	double guarantee_mbps, target_mbps;
	bool in_class; /* the hw_class field was there and not empty: in class class_id */
	unsigned class_id;
	bool has_mb_max_asked; /* the mb_max_asked field was there and not empty */
	double mb_max_asked;
};

/* Reads `path`: the header line (without its newline) into header[len] and every row of a partition's
 * total (domain `*`) into a malloc'ed array. Returns the number of rows, or -1 with "record_read:
 * PATH:LINE: reason" on stderr when the header lacks a column of the record, a row has another number
 * of fields, or a field is not what its column takes. */
long record_read(const char *path, char *header, size_t len, struct record_line **ret_rows);
/* The same with the rows of each domain too, in the file's order. */
long record_read_all(const char *path, char *header, size_t len, struct record_line **ret_rows);
/* record_read for a file a killed mpamd wrote: a row with fewer fields than the header (a write cut
 * short by the kill, its line ended by the next start) is skipped and counted in *ret_cut, as the
 * product's reader does. */
long record_read_forgiving(const char *path, char *header, size_t len, struct record_line **ret_rows, long *ret_cut);

/* A config from text, its diagnostics printed on stderr; NULL when it has errors. */
struct config *load_config_text(const char *text);

#endif
