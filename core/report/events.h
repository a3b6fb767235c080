/* A bounded log of the decisions policies took (throttle, restore, escalate...), newest kept:
 * what `status` and `show` report and the record file's event column carries. */
#ifndef MPAMD_CORE_REPORT_EVENTS_H
#define MPAMD_CORE_REPORT_EVENTS_H

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
	uint64_t t_ms;	  /* since the daemon started, on its (possibly simulated) clock */
	uint64_t wall_ms; /* when it happened: milliseconds since the Unix epoch (CLOCK_REALTIME) */
	char partition[NAME_MAX_LEN + 1];
	char text[EVENT_TEXT_MAX]; /* "action: reason" */
};

/* How many events each partition had of each action, for as long as the daemon runs (a reload
 * keeps them: they are counters). An open-addressed table keyed by partition and action, so that
 * counting stays cheap with a thousand partitions. */
#define EVENT_ACTION_MAX 32

struct event_count {
	char partition[NAME_MAX_LEN + 1];
	char action[EVENT_ACTION_MAX]; /* "throttle", "restore"...: the text before ": " */
	uint64_t count;		       /* 0: an empty slot */
};

struct event_counts {
	struct event_count *slots;
	size_t capacity; /* a power of two, or 0 before the first event */
	size_t used;
};

struct event_log {
	struct event items[EVENTS_KEPT];
	size_t next;  /* where the next event goes */
	size_t count; /* events kept, at most EVENTS_KEPT */
	uint64_t total;
	uint64_t folded; /* events not logged because they only repeated one (policies/policy.h) */
	struct event_counts counts;
};

/* `wall_ms`: the wall clock of the tick (what status, show and top print as the event's time). */
void event_log_add(struct event_log *log, uint64_t tick, uint64_t t_ms, uint64_t wall_ms, const char *partition,
		   const char *text);
/* Frees the counts (the kept events need nothing). */
void event_log_fini(struct event_log *log);

/* The action of an event text: what comes before ": " (all of it when there is no ": "). */
void event_action(const char *text, char *buf, size_t len);

/* The newest `max` events (of `partition`, or all when NULL), oldest first, as a JSON array of
 * {"tick","t_ms","time","partition","action","reason"}, "time" in RFC 3339 (UTC, milliseconds). */
json_t *event_log_to_json(const struct event_log *log, const char *partition, size_t max);

#endif
