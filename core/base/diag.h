/* Diagnostics: a list of "FILE:LINE: message" findings that a loader keeps adding to,
 * so that every problem of an input is reported, not just the first. */
#ifndef MPAMD_CORE_DIAG_H
#define MPAMD_CORE_DIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum diag_severity {
	DIAG_ERROR,
	DIAG_WARNING,
};

struct diag {
	enum diag_severity severity;
	unsigned line; /* 1-based; 0 when the finding is about the whole input */
	char *message;
};

struct diag_list {
	char *file; /* name used in messages, as the user gave it */
	struct diag *items;
	size_t count;
	size_t capacity;
	bool out_of_memory; /* a finding could not be stored: treat the input as invalid */
};

void diag_list_init(struct diag_list *list, const char *file);
void diag_list_fini(struct diag_list *list);

__attribute__((format(printf, 4, 5))) void diag_add(struct diag_list *list, enum diag_severity severity, unsigned line,
						    const char *fmt, ...);

size_t diag_error_count(const struct diag_list *list);

/* Sorts by line (stable), so output follows the file even when checks ran out of order. */
void diag_sort(struct diag_list *list);

/* Prints "FILE:LINE: error: message" lines. */
void diag_print(const struct diag_list *list, FILE *out);

#endif
