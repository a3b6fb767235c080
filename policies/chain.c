/* The chains of policies the engine can run, and the event text every decision carries. */
#include <stdarg.h>
#include <stdio.h>
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

void policy_event(struct policy_decision *d, const char *fmt, ...)
{
	size_t used = strnlen(d->event, sizeof(d->event) - 1);
	size_t room;
	va_list ap;
	int n;

	d->event[used] = '\0';
	if (used > 0 && used + strlen(EVENT_SEPARATOR) < sizeof(d->event)) {
		memcpy(d->event + used, EVENT_SEPARATOR, strlen(EVENT_SEPARATOR) + 1);
		used += strlen(EVENT_SEPARATOR);
	}
	room = sizeof(d->event) - used;
	if (room <= 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(d->event + used, room, fmt, ap);
	va_end(ap);
	/* A cut-off event says so rather than ending mid-word as if complete. */
	if (n >= 0 && (size_t)n >= room)
		memcpy(d->event + sizeof(d->event) - sizeof(EVENT_ELLIPSIS), EVENT_ELLIPSIS, sizeof(EVENT_ELLIPSIS));
}
