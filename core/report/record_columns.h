/* The record file's columns, declared once: each one's name, when mpamd writes it, and how its field
 * is written and read. The writer (record.c) takes its header and the order of a row's fields from
 * the table; every reader (mpamctl's core/report/record_read.c, the tests' tests/util/record_reader.c) finds
 * the columns by these names in a file's header, in any order, and reads a field the way its column
 * says. A file holds one header line, then one row per partition per tick of its total and one per
 * domain (see record.h). Fields follow RFC 4180: a field with a comma, a quote or a line break is
 * quoted, its quotes doubled. */
#ifndef MPAMD_CORE_REPORT_RECORD_COLUMNS_H
#define MPAMD_CORE_REPORT_RECORD_COLUMNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/error.h"

/* In the order mpamd writes them. */
enum record_col {
	RECORD_COL_TIME,
	RECORD_COL_T_MS,
	RECORD_COL_PARTITION,
	RECORD_COL_DOMAIN,
	RECORD_COL_MBPS,
	RECORD_COL_MB_MAX,
	RECORD_COL_MB_MIN,
	RECORD_COL_MB_MAX_MBPS,
	RECORD_COL_HW_CLASS,
	RECORD_COL_MB_MAX_ASKED,
	RECORD_COL_GUARANTEE_MBPS,
	RECORD_COL_TARGET_MBPS,
	RECORD_COL_VALID,
	RECORD_COL_ESTIMATED,
	RECORD_COL_EVENT,
	RECORD_COL_SIM_MBPS,
	RECORD_COL_IPC,
	RECORD_COL_COUNT,
};

/* When mpamd writes a column (record_options in record.h). */
enum record_written {
	RECORD_WRITTEN_ALWAYS,
	RECORD_WRITTEN_WITH_TRUTH,   /* with_truth: beside a simulator, its ground truth */
	RECORD_WRITTEN_WITH_IPC,     /* with_ipc: the engine counts PMU events */
	RECORD_WRITTEN_WITH_CLASSES, /* with_classes: partitions share classes (classes = shared) */
};

/* How a field is written and read. */
enum record_kind {
	RECORD_KIND_TIME,    /* wall clock, RFC 3339 UTC with milliseconds: 2026-12-03T10:15:42.123Z */
	RECORD_KIND_MS,	     /* milliseconds, a whole number */
	RECORD_KIND_TEXT,    /* as it is, quoted when it must be */
	RECORD_KIND_MBPS,    /* MB/s >= 0; written with one decimal */
	RECORD_KIND_PERCENT, /* of capacity, 0..100; written as a whole number */
	RECORD_KIND_FLAG,    /* 0 or 1 */
	RECORD_KIND_RATIO,   /* a number >= 0; written with three decimals */
	RECORD_KIND_CLASS,   /* a shared class: c and its number, c3 (the resctrl group PREFIXc3) */
};

struct record_column {
	const char *name; /* in the header */
	enum record_written written;
	bool required; /* a reader refuses a file without it */
	enum record_kind kind;
	const char *empty; /* what an empty field means; NULL: it may not be empty */
};

extern const struct record_column record_columns[RECORD_COL_COUNT];

/* The domain of a partition's total row: written "*", read as "*" or "" (an older file's). */
#define RECORD_DOMAIN_TOTAL "*"
bool record_domain_is_total(const char *domain);

/* One field's value. Which member holds it is the column's kind. */
struct record_value {
	bool empty;	   /* an empty field (the column's `empty` says what it means) */
	int64_t time_ms;   /* TIME: ms since the Unix epoch */
	uint64_t ms;	   /* MS */
	const char *text;  /* TEXT: the field itself */
	double number;	   /* MBPS, PERCENT, RATIO; FLAG: 0 or 1 */
	unsigned class_id; /* CLASS: its number */
};

/* Writes column `col`'s field of `v` into buf as snprintf does: the length it takes (quotes
 * included), written whole when that is less than len. */
size_t record_field_format(enum record_col col, const struct record_value *v, char *buf, size_t len);

/* Reads field `s` of column `col` into *ret (text points into s). 0, or -EINVAL and in err "bad
 * value in column mbps: 'x' (want MB/s, a number >= 0)" (a text column that may not be empty: "empty
 * partition name"). */
int record_field_parse(enum record_col col, const char *s, struct record_value *ret, struct err *err);
/* The message of record_field_parse for a field `s` column `col` does not take; -EINVAL. */
int record_field_refused(enum record_col col, const char *s, struct err *err);

/* Where each column is in a file. */
struct record_layout {
	size_t fields;		  /* in the header */
	int at[RECORD_COL_COUNT]; /* the header field of each column; -1: the file does not have it */
};

#define RECORD_COL_BIT(col) (1u << (col))

/* The layout of a header of `count` field names. A name of no column is skipped, so that a later
 * version's file still reads. -EINVAL and in err "column 'mbps' appears twice", or "missing required
 * columns 'mb_max', 'mb_min'" when one is missing of those the table requires and of `also_required`
 * (RECORD_COL_BIT of each). */
int record_layout_read(struct record_layout *l, const char *const *names, size_t count, unsigned also_required,
		       struct err *err);

#endif
