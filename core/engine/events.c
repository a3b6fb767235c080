#include "core/engine/events.h"

#include <stdio.h>
#include <string.h>

void event_log_add(struct event_log *log, uint64_t tick, uint64_t t_ms, const char *partition, const char *text)
{
	struct event *e = &log->items[log->next];

	e->tick = tick;
	e->t_ms = t_ms;
	snprintf(e->partition, sizeof(e->partition), "%s", partition);
	snprintf(e->text, sizeof(e->text), "%s", text);
	log->next = (log->next + 1) % EVENTS_KEPT;
	if (log->count < EVENTS_KEPT)
		log->count++;
	log->total++;
}

/* "throttle: victim web below guarantee" -> action "throttle", reason "victim web below guarantee". */
static json_t *event_to_json(const struct event *e)
{
	char action[EVENT_TEXT_MAX];
	const char *colon = strstr(e->text, ": ");
	size_t len = colon ? (size_t)(colon - e->text) : strlen(e->text);

	snprintf(action, sizeof(action), "%.*s", (int)len, e->text);
	return json_pack("{s:I,s:I,s:s,s:s,s:s}", "tick", (json_int_t)e->tick, "t_ms", (json_int_t)e->t_ms, "partition",
			 e->partition, "action", action, "reason", colon ? colon + 2 : "");
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
