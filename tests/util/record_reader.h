/* Reading the record file back in tests: the columns of core/engine/record.c, fields quoted as RFC 4180
 * says (an event with a comma or a quote), an empty mbps kept apart from 0. */
#ifndef MPAMD_TESTS_RECORD_READER_H
#define MPAMD_TESTS_RECORD_READER_H

#include <stdbool.h>
#include <stddef.h>

struct config;

struct record_line {
	unsigned long long t_ms;
	char partition[65];
	bool has_mbps; /* false: the mbps field was empty (an invalid sample) */
	double mbps;
	unsigned mb_max, mb_min;
	int valid, estimated;
	char event[200];
	double sim_mbps; /* 0 when the record has no sim_mbps column */
};

/* Reads `path`: the header line (without its newline) into header[len] and every row into a
 * malloc'ed array. Returns the number of rows, or -1 (with a message on stderr) when a line does
 * not have the record's columns. */
long record_read(const char *path, char *header, size_t len, struct record_line **ret_rows);

/* A config from text, its diagnostics printed on stderr; NULL when it has errors. */
struct config *load_config_text(const char *text);

#endif
