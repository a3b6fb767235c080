/* Shared by record.c (rows and ticks), record_out.c (the file on disk) and record_health.c (failures
 * and retries). */
#ifndef MPAMD_CORE_REPORT_RECORD_INTERNAL_H
#define MPAMD_CORE_REPORT_RECORD_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/error.h"
#include "core/report/record.h"

/* A record file mpamd creates (also each one begun after a rotation or a move aside): readable by the
 * operators who plot it, written by mpamd only. A file already there keeps its mode. */
#define RECORD_FILE_MODE 0644

/* The record file as it is open: only a regular file is checked, moved aside or rotated;
 * anything else (/dev/null, a pipe) just gets the header and the rows. */
struct record_out {
	int fd; /* -1 after a failed rotation */
	bool regular;
	uint64_t size; /* bytes in the file, as far as mpamd knows */
};

/* Opens `path` to append rows under `header` (the whole first line, its newline included).
 * A new or empty file gets the header. A file whose first line is anything else (an older
 * version, another program) is never appended to: it is renamed to PATH.YYYYMMDDTHHMMSSZ (the
 * time from `now_ms`), which the log says, and a new file begun. A file that ends inside a row
 * (mpamd stopped while writing it) first gets the line break, after a closing quote when the row
 * stopped inside a quoted field, so the cut row stays alone on its line. On failure ret->fd is -1. */
int record_out_open(const char *path, const char *header, uint64_t now_ms, struct record_out *ret, struct err *err);

/* Moves the file to PATH.1 (replacing an older one) and opens a new one with the header in its
 * place. A file no longer at `path` (moved away by someone else) is left where it is. On failure
 * out->fd is -1. */
int record_out_rotate(const char *path, const char *header, uint64_t now_ms, struct record_out *out, struct err *err);

/* All of `len` bytes, continuing short writes; 0 or a negative errno. */
int record_out_write(struct record_out *out, const char *data, size_t len);

/* Whether the regular file open as `out` is no longer the one at `path`: removed (no link left), moved
 * away, or replaced by another file or a link. */
bool record_out_vanished(const struct record_out *out, const char *path);

/* ---- record_health.c: a failing file, its retries and what the log says ---- */

struct record_recovery {
	struct record_health health;
	int code;	   /* the last failure's errno (negative) */
	uint64_t ticks;	   /* ticks ended */
	uint64_t next_try; /* the tick at which a closed file is tried again */
	unsigned backoff;  /* ticks the next failed try waits: 1, 2, 4... RECORD_RETRY_MAX_TICKS */
	uint64_t lost;	   /* ticks lost in the current failure, for the log */
};

void record_recovery_init(struct record_recovery *rc);
/* A tick ended: its rows were written or not (r, and why). `tried`: this tick wrote or opened the
 * file, rather than waiting for its next try; a try that failed puts the next one further off. */
void record_recovery_tick(struct record_recovery *rc, const char *path, int r, const struct err *why, bool tried);
/* The file was opened again outside a tick (record_reopen): r, and why it failed. */
void record_recovery_opened(struct record_recovery *rc, int r, const struct err *why);
/* Whether a closed file may be opened again at this tick. */
bool record_recovery_due(const struct record_recovery *rc);
/* See record_status_json. */
json_t *record_recovery_json(const struct record_recovery *rc, const char *path);

#endif
