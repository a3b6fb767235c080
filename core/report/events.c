#include "core/report/events.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/rfc3339.h"

#define COUNTS_INITIAL 64

void event_action(const char *text, char *buf, size_t len)
{
	const char *colon = strstr(text, ": ");
	size_t n = colon ? (size_t)(colon - text) : strlen(text);

	snprintf(buf, len, "%.*s", (int)n, text);
}

/* FNV-1a over the partition, a separator that names cannot hold, and the action. */
static uint64_t count_hash(const char *partition, const char *action)
{
	uint64_t h = 14695981039346656037ull;

	for (const char *s = partition; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	h = (h ^ 0xffu) * 1099511628211ull;
	for (const char *s = action; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* The slot of (partition, action): its own, or the empty one where it would go. */
static struct event_count *count_slot(struct event_count *slots, size_t capacity, const char *partition,
				      const char *action)
{
	size_t i = (size_t)count_hash(partition, action) & (capacity - 1);

	while (slots[i].count && (strcmp(slots[i].partition, partition) || strcmp(slots[i].action, action)))
		i = (i + 1) & (capacity - 1);
	return &slots[i];
}

/* Doubles the table, keeping it at most half full so that probes stay short. */
static int counts_grow(struct event_counts *c)
{
	size_t capacity = c->capacity ? c->capacity * 2 : COUNTS_INITIAL;
	struct event_count *slots = calloc(capacity, sizeof(*slots));

	if (!slots)
		return -1;
	for (size_t i = 0; i < c->capacity; i++)
		if (c->slots[i].count)
			*count_slot(slots, capacity, c->slots[i].partition, c->slots[i].action) = c->slots[i];
	free(c->slots);
	c->slots = slots;
	c->capacity = capacity;
	return 0;
}

static void counts_add(struct event_counts *c, const char *partition, const char *text)
{
	struct event_count key = { .count = 0 };

	snprintf(key.partition, sizeof(key.partition), "%s", partition);
	event_action(text, key.action, sizeof(key.action));
	if ((c->used + 1) * 2 > c->capacity && counts_grow(c) < 0)
		return; /* out of memory: the event is still logged and kept, only not counted */
	struct event_count *slot = count_slot(c->slots, c->capacity, key.partition, key.action);
	if (!slot->count) {
		*slot = key;
		c->used++;
	}
	slot->count++;
}

void event_log_fini(struct event_log *log)
{
	free(log->counts.slots);
	log->counts = (struct event_counts){ .slots = NULL };
}

void event_log_add(struct event_log *log, uint64_t tick, uint64_t t_ms, uint64_t wall_ms, const char *partition,
		   const char *text)
{
	struct event *e = &log->items[log->next];

	e->tick = tick;
	e->t_ms = t_ms;
	e->wall_ms = wall_ms;
	snprintf(e->partition, sizeof(e->partition), "%s", partition);
	snprintf(e->text, sizeof(e->text), "%s", text);
	log->next = (log->next + 1) % EVENTS_KEPT;
	if (log->count < EVENTS_KEPT)
		log->count++;
	log->total++;
	counts_add(&log->counts, partition, text);
}

/* "throttle: victim web below guarantee" -> action "throttle", reason "victim web below guarantee". */
static json_t *event_to_json(const struct event *e)
{
	char action[EVENT_TEXT_MAX], time[RFC3339_MS_LEN + 1];
	const char *colon = strstr(e->text, ": ");

	event_action(e->text, action, sizeof(action));
	/* a clock past year 9999 (never a real one) gives null, not a made-up time */
	bool dated = e->wall_ms <= INT64_MAX && rfc3339_format_ms((int64_t)e->wall_ms, time, sizeof(time));
	return json_pack("{s:I,s:I,s:o,s:s,s:s,s:s}", "tick", (json_int_t)e->tick, "t_ms", (json_int_t)e->t_ms, "time",
			 dated ? json_string(time) : json_null(), "partition", e->partition, "action", action, "reason",
			 colon ? colon + 2 : "");
}

json_t *event_log_to_json(const struct event_log *log, const char *partition, size_t max)
{
	json_t *list = json_array();
	size_t picked = 0, first = (log->next + EVENTS_KEPT - log->count) % EVENTS_KEPT;
	size_t matching = 0;

	for (size_t i = 0; i < log->count; i++)
		matching += !partition || !strcmp(log->items[(first + i) % EVENTS_KEPT].partition, partition);
	size_t skip = matching > max ? matching - max : 0;
	for (size_t i = 0; i < log->count && picked < max; i++) {
		const struct event *e = &log->items[(first + i) % EVENTS_KEPT];
		if (partition && strcmp(e->partition, partition))
			continue;
		if (skip) {
			skip--;
			continue;
		}
		json_array_append_new(list, event_to_json(e));
		picked++;
	}
	return list;
}
