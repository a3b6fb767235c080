/* One partition's life in the hardware: opened (its limits applied), closed or removed, and when it
 * could not be opened, tried again with a growing pause until it can: ENOSPC or EBUSY from resctrl,
 * a group removed behind mpamd's back that cannot be made again yet, resctrl unmounted. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/log.h"
#include "core/engine/engine_internal.h"

/* What the hardware answered when the partition was opened or its limits applied: a refusal can
 * change (a CPU comes online, another tool's exclusive group goes, a CLOSID is freed), so only one
 * that says the hardware lacks something (a capability, a PARTID or cache portion it does not have)
 * waits for a reload. mpamd's own checks before that (a goal the composition cannot serve, limits
 * the hardware cannot hold) never change by themselves: they wait for a reload too. */
static bool retry_helps(int r)
{
	return r != -EOPNOTSUPP && r != -ERANGE;
}

/* What a slot's text is when no copy could be made: never freed. */
static char text_lost[] = "out of memory: the text of this error was lost";

void engine_text_free(char **where)
{
	if (*where != text_lost)
		free(*where);
	*where = NULL;
}

void engine_text_set(char **where, const char *text)
{
	char *copy = strdup(text);

	engine_text_free(where);
	*where = copy ? copy : text_lost;
}

void engine_slot_show_failure(struct engine *e, size_t slot)
{
	struct engine_partition *ep = &e->slots.partitions[slot];

	ep->status.failed = ep->failed;
	ep->status.retry_ms = ep->retry_ns ? engine_t_ms(e, ep->retry_ns) : 0;
}

/* `no_room`: refused for want of room (ENOSPC), which only freed room ends (engine_pool.c): tried
 * again then, or after the longest pause. */
static void mark_failed(struct engine *e, size_t slot, uint64_t now_ns, const char *error, bool retry, bool no_room)
{
	struct engine_partition *ep = &e->slots.partitions[slot];
	uint64_t first = e->ticks.interval_ns ? e->ticks.interval_ns : 1000000u;
	/* A retry refused as before is not said again at error level: a host out of RMIDs would log
	 * every refused partition again at each retry (hundreds of lines a minute). */
	bool repeated = ep->failed && ep->error && (no_room ? ep->no_room : !strcmp(ep->error, error));
	enum log_level level = repeated ? LOG_LEVEL_DEBUG : LOG_LEVEL_ERROR;

	engine_slot_close(e, slot, false);
	engine_text_set(&ep->error, error);
	ep->failed = true;
	ep->no_room = no_room;
	ep->attempts++;
	ep->backoff_ns = ep->backoff_ns ? ep->backoff_ns * 2 : first;
	if (ep->backoff_ns > ENGINE_RETRY_MAX_NS || no_room)
		ep->backoff_ns = ENGINE_RETRY_MAX_NS;
	ep->retry_ns = retry ? now_ns + ep->backoff_ns : 0;
	ep->status.reason = ep->error;
	ep->status.valid = false;
	engine_slot_show_failure(e, slot);
	if (retry && no_room)
		log_msg(level,
			"partition %s: %s; trying again when room is freed (a group removed, a reload), or in %.3g s",
			ep->config->name, error, (double)ep->backoff_ns / 1e9);
	else if (retry)
		log_msg(level, "partition %s: %s; trying again in %.3g s", ep->config->name, error,
			(double)ep->backoff_ns / 1e9);
	else
		log_msg(level, "partition %s: %s (not tried again before a reload)", ep->config->name, error);
}

void engine_slot_failed(struct engine *e, size_t slot, uint64_t now_ns, const char *error)
{
	mark_failed(e, slot, now_ns, error, true, false);
}

void engine_slot_apply_failed(struct engine *e, size_t slot, const char *error)
{
	struct engine_partition *ep = &e->slots.partitions[slot];

	if (ep->error && !strcmp(ep->error, error))
		return; /* said already: a lasting refusal must not flood the log at every tick */
	engine_text_set(&ep->error, error);
	log_error("partition %s: %s; the limits in force stay, and it is tried again", ep->config->name, error);
}

void engine_slot_applied(struct engine *e, size_t slot)
{
	struct engine_partition *ep = &e->slots.partitions[slot];
	char text[EVENT_TEXT_MAX];

	if (ep->failed || !ep->error || !ep->error[0])
		return; /* a failed partition's error goes when it opens (engine_slot_open) */
	snprintf(text, sizeof(text), "recovered: limits applied again after: %.150s", ep->error);
	engine_text_free(&ep->error);
	engine_note_event(e, slot, text);
}

int engine_slot_open(struct engine *e, size_t slot, uint64_t now_ns)
{
	struct engine_partition *ep = &e->slots.partitions[slot];
	const struct partition_config *p = ep->config;
	struct partition_limits want = engine_config_limits(e, p);
	struct err err = { "" };
	bool was_failed = ep->failed;
	unsigned attempts = ep->attempts;

	/* A limit the hardware cannot hold fails this partition before anything is created for it. */
	int r = engine_check_goals(e, &e->gens.config->global, p, &err);
	if (r == 0)
		r = engine_validate_limits(e, &want, &err);
	bool checked = r == 0; /* what fails from here on is the hardware's answer (or want of memory) */
	if (r == 0)
		r = engine_slot_limits_room(e, slot, &err);
	if (r == 0)
		r = engine_classes_choose(e, slot, &want, &err);
	if (r == 0) {
		ep->hw_open = true; /* also when it fails halfway: what was opened is closed again */
		r = composition_partition_open(&e->hw, slot, p, &ep->ref, &err);
	}
	if (r == 0)
		r = engine_apply_limits(e, slot, &want, &err);
	if (r < 0) {
		mark_failed(e, slot, now_ns, err.text, checked && retry_helps(r), r == -ENOSPC);
		return r;
	}
	ep->failed = ep->no_room = false;
	ep->attempts = 0;
	ep->backoff_ns = ep->retry_ns = 0;
	engine_text_free(&ep->error);
	ep->status.reason = NULL;
	engine_slot_show_failure(e, slot);
	ep->status.open = e->policy.partitions[slot].open = true;
	engine_pmu_open(e, slot);
	if (was_failed) {
		char text[EVENT_TEXT_MAX];
		snprintf(text, sizeof(text), "recovered: open again after %u failed attempt(s)", attempts);
		engine_note_event(e, slot, text);
	}
	return 0;
}

void engine_slot_close(struct engine *e, size_t slot, bool remove)
{
	struct engine_partition *ep = &e->slots.partitions[slot];
	struct err err = { "" };
	/* A removed group of its own is a monitoring id its class has again (a closed one is still there) */
	bool gave_back = remove && ep->hw_open && !ep->ref.unmeasured;

	/* A removal asks the control even for a partition that is not open now (it failed later): the
	 * group mpamd made for it earlier is still there to remove. */
	if (!ep->hw_open && !remove)
		return;
	if (composition_partition_close(&e->hw, slot, remove, &err) < 0)
		log_error("partition %s: %s", ep->config->name, err.text);
	ep->hw_open = false;
	engine_classes_forget(e, slot, gave_back);
	ep->applied_once = false;
	ep->status.open = ep->status.valid = ep->status.pmu_open = false;
	ep->status.mb_max = ep->status.mb_min = 0;
	e->policy.partitions[slot].open = false;
	e->slots.pmu[slot] = (struct pmu_sample){ .open = false };
	ep->status.pmu_reason = NULL; /* the sampler's text is gone with the partition */
}

static bool retry_due(const struct engine_partition *ep, uint64_t now_ns)
{
	return ep->used && ep->failed && ep->retry_ns && ep->retry_ns <= now_ns;
}

/* The control is asked every tick whether its hardware is still there (cheap: resctrl compares its
 * root with the path's). When it went, every open partition is closed at once in every backend, so
 * that no file of the old hardware stays open (an unmounted resctrl lives on, and refuses to be
 * mounted again, while one is), and fails with the control's answer; every failed partition waits
 * for the same answer, which says so. */
static int recover(struct engine *e, uint64_t now_ns)
{
	struct err err = { "" };
	int r = composition_recover(&e->hw, &err);

	if (r < 0) {
		for (size_t i = 0; i < e->slots.count; i++) {
			struct engine_partition *ep = &e->slots.partitions[i];
			if (ep->used && (ep->hw_open || retry_due(ep, now_ns)))
				mark_failed(e, i, now_ns, err.text, true, false);
		}
		return r;
	}
	if (r == 1) {
		log_info("the %s backend is back: opening every partition again", e->hw.control_ops->name);
		for (size_t i = 0; i < e->slots.count; i++) {
			struct engine_partition *ep = &e->slots.partitions[i];
			if (!ep->used || (ep->failed && !ep->retry_ns))
				continue;
			engine_slot_close(e, i, false); /* its files were on the mount that went */
			ep->failed = true;
			ep->retry_ns = now_ns;
		}
	}
	return 0;
}

void engine_heal(struct engine *e, uint64_t now_ns)
{
	if (recover(e, now_ns) < 0)
		return;
	for (size_t i = 0; i < e->slots.count; i++)
		if (retry_due(&e->slots.partitions[i], now_ns))
			engine_slot_open(e, i, now_ns);
}
