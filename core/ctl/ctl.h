/* The control socket's view of the daemon: what a command may ask for or change. The engine
 * implements these; the protocol (core/proto.c) and the server (core/ctl_server.c) call them and
 * never look inside the engine. Replies are built here as JSON and sent elsewhere. */
#ifndef MPAMD_CORE_CTL_H
#define MPAMD_CORE_CTL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/error.h"
#include "core/ctl/json_text.h"

struct ctl_peer; /* core/ctl/proto.h */

#define CTL_PROTOCOL_VERSION 1
#define CTL_MAX_REQUEST	     65536 /* bytes in one request line, newline included */

/* A set (below): the result, or NULL and err. */
typedef json_t *ctl_set_fn(void *ctx, const struct ctl_peer *peer, const char *name, const char *const *settings,
			   size_t count, struct err *err);

/* Writes a result at the end of `out` as compact JSON text (list_text, metrics_text below). */
typedef bool ctl_text_fn(void *ctx, struct json_text *out);

/* The JSON the read-only calls return is a new reference the caller releases. Every function is
 * called on the thread that dispatches the server (core/ctl/ctl_thread.h: one of its own). */
struct ctl_handler {
	void *ctx;
	/* Read-only: the daemon as a whole (backend, interval, ticks, uptime, recent events). */
	json_t *(*status)(void *ctx);
	/* Read-only: one object per partition with its class, limits in force and last rate. */
	json_t *(*list)(void *ctx);
	/* Read-only: everything about one partition; NULL and err when there is none by that name. */
	json_t *(*show)(void *ctx, const char *name, struct err *err);
	/* Read-only: counters for monitoring systems (per partition bytes, rates, limits, events). */
	json_t *(*metrics)(void *ctx);
	/* Optional, used instead of list and metrics when set: the result written at the end of `out`,
	 * byte for byte the compact JSON jansson would write for what list or metrics returns, without
	 * making those values (at thousands of partitions, most of a reply's cost; core/ctl/json_text.h).
	 * false when there is no result (as NULL from list); what it wrote then is dropped. */
	ctl_text_fn *list_text;
	ctl_text_fn *metrics_text;
	/* Mutating: `count` "key=value" settings for partition `name` from `peer`, validated like the
	 * config file (same keys, same ranges, same cross-checks) and against the hardware; all or
	 * nothing. The result says what was asked and what is in force, or NULL and err. */
	ctl_set_fn *set;
	/* Optional, for a set with "persist": true: the same, and the settings kept across restarts (the
	 * daemon writes them where its configuration reads them). NULL: such a set is refused. */
	ctl_set_fn *set_persist;
	/* Mutating: re-read the config file; an invalid file leaves the running config in place. */
	int (*reload)(void *ctx, struct err *err);
	/* Optional, used instead of reload when set: the same, with a report. The result says what
	 * changed; on a refusal (NULL and err) *ret_messages may get an array of strings, the findings
	 * ("FILE:LINE: error: ..."), which the error reply carries as "messages". */
	json_t *(*reload_report)(void *ctx, json_t **ret_messages, struct err *err);
	/* Optional: a number that changes whenever what status, list and metrics report may have changed
	 * (each tick, set, reload). While it holds, the server answers those three with the text it
	 * encoded for the first request, so N clients asking within one tick cost one call and one
	 * encoding. NULL: every request is answered afresh. Called on the server's thread. */
	uint64_t (*generation)(void *ctx);
};

#endif
