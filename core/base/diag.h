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

/* Lines of an included file: a list counts the lines of all its files in one sequence, the main
 * file's first, so that every finding is ordered and the file and line it names are found again. */
struct diag_file {
	char *name;
	unsigned first; /* the list's line that is this file's line 1 */
};

struct diag_list {
	char *file; /* name used in messages, as the user gave it */
	struct diag_file *included;
	size_t included_count;
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

/* From the list's line `first` on, lines are those of the included file `name` (line 1 first). */
void diag_list_include(struct diag_list *list, const char *name, unsigned first);
/* The file the list's line `line` is in (the list's own file, or an included one), and *ret_line its
 * line there. */
const char *diag_file_of(const struct diag_list *list, unsigned line, unsigned *ret_line);
/* "line N" for the list's own file, "FILE:N" for an included one: for messages that point at
 * another place. */
const char *diag_place(const struct diag_list *list, unsigned line, char *buf, size_t len);

/* Sorts by line (stable), so output follows the file even when checks ran out of order. */
void diag_sort(struct diag_list *list);

/* Prints "FILE:LINE: error: message" lines. */
void diag_print(const struct diag_list *list, FILE *out);
/* One finding as diag_print prints it, without the newline: "FILE:LINE: error: message",
 * malloc'ed; NULL when out of memory. */
char *diag_text(const struct diag_list *list, const struct diag *d);
/* What diag_print adds when the list ran out of memory, without the newline. */
#define DIAG_OUT_OF_MEMORY "error: out of memory while checking the file"

#endif
