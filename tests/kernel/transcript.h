/* A transcript of resctrl file operations: what a scenario read, wrote and made, and what the file
 * system answered, one `KEY<TAB>VALUE` line per observation. The same scenario run against the
 * kernel's resctrl and against resctrl-emu gives two transcripts that can be compared key by key.
 *
 * KEY is "STEP OP PATH[ ARG]": STEP the scenario line, OP read, sorted, ls, write, mkdir, rmdir or
 * status (last_cmd_status after a write, mkdir or rmdir), PATH relative to the resctrl root, ARG the
 * text written as the scenario quotes it (write, and the status after it) or "(mkdir)" / "(rmdir)"
 * (the status after those). VALUE is a
 * file's text, a listing, "ok" or "!ERRNO", escaped to one line; process ids are replaced by the
 * names the scenario gave them, so both sides print the same text for the same behaviour. */
#ifndef MPAMD_TESTS_KERNEL_TRANSCRIPT_H
#define MPAMD_TESTS_KERNEL_TRANSCRIPT_H

#include <stddef.h>
#include <stdio.h>

struct transcript_line {
	char *key;
	char *value;
};

struct transcript {
	struct transcript_line *lines;
	size_t count, cap;
};

void transcript_init(struct transcript *t);
void transcript_fini(struct transcript *t);
/* Appends a copy of key and value: 0 or -ENOMEM. */
int transcript_add(struct transcript *t, const char *key, const char *value);
/* The line whose key is `key`, or NULL. */
const struct transcript_line *transcript_find(const struct transcript *t, const char *key);

/* Reads "KEY<TAB>VALUE" lines (others are ignored): 0, -ENOMEM or -errno of the stream. */
int transcript_read(FILE *in, struct transcript *t);
void transcript_write(const struct transcript *t, FILE *out);

/* `text` escaped to one line: \n \t \\ and \xHH for other bytes outside printable ASCII.
 * malloc'ed, NULL when out of memory. */
char *transcript_escape(const char *text, size_t len);

#endif
