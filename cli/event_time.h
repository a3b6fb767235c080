/* An event's wall-clock time as an operator reads it: the daemon sends RFC 3339 in UTC
 * ("2026-12-03T10:15:42.123Z"); the text views print it in the local time zone, HH:MM:SS for an event
 * of today and YYYY-MM-DD HH:MM:SS for an older one (a long-running daemon's first events). */
#ifndef MPAMD_CLI_EVENT_TIME_H
#define MPAMD_CLI_EVENT_TIME_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

/* Room for "YYYY-MM-DD HH:MM:SS" and its NUL. */
#define EVENT_TIME_TEXT_MAX 20

/* Formats the RFC 3339 time `rfc3339` into buf, in the local time zone, dated unless it falls on
 * the local day of `now`. False, with buf empty, for text that is not an RFC 3339 time. */
bool event_time_text(const char *rfc3339, time_t now, char *buf, size_t len);

#endif
