/* A bounded log of the decisions policies took (throttle, restore, escalate...), newest kept:
 * what `status` and `show` report and the record file's event column carries. */
#ifndef MPAMD_CORE_EVENTS_H
#define MPAMD_CORE_EVENTS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/parse.h"

#define EVENTS_KEPT 256
/* Room for every policy's event of one tick joined (policies/policy.h POLICY_EVENT_MAX each) and
 * for a set's full list of settings: events are never cut. */
#define EVENT_TEXT_MAX 512

struct event {
	uint64_t tick;
	uint64_t t_ms;
	char partition[NAME_MAX_LEN + 1];
	char text[EVENT_TEXT_MAX]; /* "action: reason" */
};

struct event_log {
	struct event items[EVENTS_KEPT];
	size_t next;  /* where the next event goes */
	size_t count; /* events kept, at most EVENTS_KEPT */
	uint64_t total;
};

void event_log_add(struct event_log *log, uint64_t tick, uint64_t t_ms, const char *partition, const char *text);

/* The newest `max` events (of `partition`, or all when NULL), oldest first, as a JSON array of
 * {"tick","t_ms","partition","action","reason"}. */
json_t *event_log_to_json(const struct event_log *log, const char *partition, size_t max);

#endif
