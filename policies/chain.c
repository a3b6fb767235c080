/* The chains of policies the engine can run, and the event text every decision carries. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policies/policy.h"

/* The guard as it behaves on hardware without a bandwidth minimum (x86 resctrl, MPAM through
 * Linux 7.1's resctrl): it defends guarantees by cutting neighbours alone. */
static void guard_without_min(const struct policy_host *host, struct policy_partition *parts, size_t count,
			      struct policy_decision *decisions)
{
	struct policy_host h = *host;

	h.has_mb_min = false;
	policy_guard(&h, parts, count, decisions);
}

static const policy_fn default_fns[] = { policy_static, policy_target, policy_guard, policy_share, policy_escalate };
static const policy_fn static_fns[] = { policy_static };
static const policy_fn without_min_fns[] = { policy_static, policy_target, guard_without_min, policy_share,
					     policy_escalate };

const struct policy_chain policy_chain_default = {
	.name = "mpamd",
	.fns = default_fns,
	.count = sizeof(default_fns) / sizeof(default_fns[0]),
};

const struct policy_chain policy_chain_static = {
	.name = "static",
	.fns = static_fns,
	.count = sizeof(static_fns) / sizeof(static_fns[0]),
};

const struct policy_chain policy_chain_without_min = {
	.name = "mpamd, no MIN",
	.fns = without_min_fns,
	.count = sizeof(without_min_fns) / sizeof(without_min_fns[0]),
};

#define EVENT_SEPARATOR "; "
#define EVENT_ELLIPSIS	"..."

/* The event of a decision whose text could not be allocated (never written to, never freed). */
static char event_lost[] = "an event was lost: out of memory for its text";

const char *policy_decision_event(const struct policy_decision *d)
{
	return d->event ? d->event : "";
}

void policy_decision_clear(struct policy_decision *d)
{
	if (d->event != event_lost)
		free(d->event);
	d->event = NULL;
}

void policy_event(struct policy_decision *d, const char *fmt, ...)
{
	size_t used, room;
	va_list ap;
	int n;

	if (!d->event && !(d->event = calloc(1, POLICY_EVENT_MAX)))
		d->event = event_lost;
	if (d->event == event_lost)
		return;
	used = strnlen(d->event, POLICY_EVENT_MAX - 1);
	d->event[used] = '\0';
	if (used > 0 && used + strlen(EVENT_SEPARATOR) < POLICY_EVENT_MAX) {
		memcpy(d->event + used, EVENT_SEPARATOR, strlen(EVENT_SEPARATOR) + 1);
		used += strlen(EVENT_SEPARATOR);
	}
	room = POLICY_EVENT_MAX - used;
	if (room <= 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(d->event + used, room, fmt, ap);
	va_end(ap);
	/* A cut-off event says so rather than ending mid-word as if complete. */
	if (n >= 0 && (size_t)n >= room)
		memcpy(d->event + POLICY_EVENT_MAX - sizeof(EVENT_ELLIPSIS), EVENT_ELLIPSIS, sizeof(EVENT_ELLIPSIS));
}
