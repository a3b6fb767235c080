/* Holds resctrl-emu to the kernel: compares the kernel's transcript of a scenario with the
 * emulator's, key by key, and excuses only the differences a known-differences file lists.
 *
 * The file has one entry a line, `#` comments:
 *   SCOPE OP PATH REASON...
 * SCOPE is a glob over "KERNEL/PROFILE" such as "7.2.13/amd" ("*" for every kernel and profile), OP
 * one of the transcript's (read, sorted, ls, write, status, mkdir, rmdir) or "*", PATH a glob over the
 * key's path and, for a write and the status after it, the text written after a space (after a mkdir
 * or rmdir "(mkdir)" or "(rmdir)"): "g1/schemata" is the reads alone, "g1/schemata*" the writes too,
 * "*(rmdir)" every status after an rmdir; '*' also matches '/'. REASON says why the two differ ("emulator: ..." for what the emulator should do
 * instead, "kernel: ..." for what the kernel does that no emulator profile can, "lane: ..." for what
 * the test machine changes). */
#ifndef MPAMD_TESTS_KERNEL_TRANSCRIPT_COMPARE_H
#define MPAMD_TESTS_KERNEL_TRANSCRIPT_COMPARE_H

#include <stdio.h>

#include "transcript.h"

struct known_difference {
	char *scope, *op, *path, *reason;
	unsigned line;
	unsigned seen; /* differences it excused in the last comparison */
};

struct known_list {
	struct known_difference *items;
	size_t count;
};

/* 0 and *ret, or -EINVAL after printing "NAME:LINE: why" to `errors`, or -ENOMEM. */
int known_list_read(FILE *in, const char *name, struct known_list *ret, FILE *errors);
void known_list_fini(struct known_list *k);

struct compare_counts {
	unsigned same, known, unexpected;
	unsigned stale; /* entries of this scope that excused nothing */
};

/* Compares the two transcripts of one scenario for `scope` ("KERNEL/PROFILE"). Prints every unexpected
 * difference, each known entry that excused some (with its count and reason) and each entry of this
 * scope that excused none, to `out`. */
void transcript_compare(const struct transcript *kernel, const struct transcript *emu, struct known_list *known,
			const char *scope, FILE *out, struct compare_counts *ret);

#endif
