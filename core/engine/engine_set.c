/* mpamctl set: run-time changes of one partition, checked like the configuration file and against
 * the hardware, applied together or not at all. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine/engine_internal.h"
#include "core/engine/engine_snapshot.h"
#include "core/report/json_pct.h"

#define SET_KEY_MAX 64

/* How long a set lasts (engine_apply_desired keeps the goals of an unchanged entry): said with every
 * set, so that nobody takes it for a change of the file. */
#define SET_LASTS                                                                                           \
	"until a reload changes the partition's entry in the configuration file (an unchanged entry keeps " \
	"it); lost when mpamd restarts"

static int split_setting(const char *setting, char *key, size_t len, const char **ret_value, struct err *err)
{
	const char *eq = strchr(setting, '=');

	if (!eq || eq == setting)
		return err_set(err, -EINVAL, "'%s' is not key=value", setting);
	if ((size_t)(eq - setting) >= len)
		return err_set(err, -EINVAL, "'%.*s...' is not a key", SET_KEY_MAX / 2, setting);
	snprintf(key, len, "%.*s", (int)(eq - setting), setting);
	*ret_value = eq + 1;
	return 0;
}

static bool same_key(const char *a, const char *b)
{
	size_t la = strcspn(a, "="), lb = strcspn(b, "=");

	return la == lb && !strncmp(a, b, la);
}

/* "mb_max=20 mb_max=30" would leave which one in force to the order: refused. */
static int check_duplicates(const char *const *settings, size_t count, struct err *err)
{
	for (size_t i = 0; i < count; i++)
		for (size_t j = 0; j < i; j++)
			if (same_key(settings[i], settings[j]))
				return err_set(err, -EINVAL, "%.*s is given twice", (int)strcspn(settings[i], "="),
					       settings[i]);
	return 0;
}

/* Keys whose value goes to the hardware as it is: mb_max, mb_min, l3_cbm, and under the kernel's
 * mba_MBps controller target_mbps (each domain's MB/s ceiling). */
static bool is_limit_key(const struct engine *e, const char *key)
{
	if (e->hw.caps.mb_kernel_mbps && !strcmp(key, "target_mbps"))
		return true;
	return !strcmp(key, "mb_max") || !strcmp(key, "mb_min") || !strcmp(key, "l3_cbm");
}

/* Parses every setting into a copy of the partition; *ret_limits: whether a limit key is among them. */
static int parse_settings(struct engine *e, struct partition_config *copy, const char *const *settings, size_t count,
			  bool *ret_limits, struct err *err)
{
	char key[SET_KEY_MAX];
	const char *value = NULL;

	*ret_limits = false;
	for (size_t s = 0; s < count; s++) {
		int r = split_setting(settings[s], key, sizeof(key), &value, err);
		if (r == 0)
			r = config_partition_set(e->gens.config, copy, key, value, err);
		if (r < 0)
			return r;
		*ret_limits |= is_limit_key(e, key);
	}
	return config_partition_check(copy, err);
}

/* One "rounded" entry when the hardware holds a limit other than the one asked for: what it took,
 * and the steps it has (core/base/ladder.h). */
static void add_rounding(json_t *rounded, const char *key, double asked, double asked_mbps, double held,
			 const struct ladder *l)
{
	char steps[128];

	if (asked == held)
		return;
	ladder_describe(l, steps, sizeof(steps));
	json_t *entry = json_pack("{s:s,s:o,s:o,s:s}", "key", key, "requested", json_pct(asked), "in_force",
				  json_pct(held), "steps", steps);
	if (asked_mbps > 0) /* asked in MB/s: "requested" is that in percent of the domain */
		json_object_set_new(entry, "requested_mbps", json_real(asked_mbps));
	json_array_append_new(rounded, entry);
}

static json_t *set_result(const struct engine *e, size_t index, const char *const *settings, size_t count, bool limits)
{
	const struct partition_config *p = e->slots.partitions[index].config;
	const struct partition_status *st = &e->slots.partitions[index].status;
	json_t *asked = json_array(), *rounded = json_array();

	for (size_t s = 0; s < count; s++)
		json_array_append_new(asked, json_string(settings[s]));
	if (limits && st->open) {
		struct partition_goals buf;
		const struct partition_goals *g = engine_goals_pct(e, &p->goals, &buf);
		add_rounding(rounded, "mb_max", g->mb_max, p->goals.mb_max_mbps ? p->goals.mb_max : 0, st->mb_max,
			     &e->hw.caps.max_ladder);
		add_rounding(rounded, "mb_min", g->mb_min, p->goals.mb_min_mbps ? p->goals.mb_min : 0, st->mb_min,
			     &e->hw.caps.min_ladder);
	}
	return json_pack("{s:s,s:o,s:b,s:{s:o,s:o},s:o,s:s}", "name", p->name, "settings", asked, "applied",
			 limits && st->open, "in_force", "mb_max", json_pct(st->mb_max), "mb_min", json_pct(st->mb_min),
			 "rounded", rounded, "lasts", SET_LASTS);
}

/* "set: KEY=VALUE... by WHO" (all of them), or NULL when out of memory. */
static char *set_text(const char *const *settings, size_t count, const char *who)
{
	size_t len = sizeof("set:") + (who ? strlen(" by ") + strlen(who) : 0);

	for (size_t s = 0; s < count; s++)
		len += 1 + strlen(settings[s]);
	char *text = malloc(len);
	if (!text)
		return NULL;
	size_t used = (size_t)snprintf(text, len, "set:");
	for (size_t s = 0; s < count; s++)
		used += (size_t)snprintf(text + used, len - used, " %s", settings[s]);
	if (who)
		snprintf(text + used, len - used, " by %s", who);
	return text;
}

/* The set's own event: what was asked and by whom, logged once in full. An event too long for the
 * event log counts the settings there instead (never cut half-way: the log has them all). */
static void note_set(struct engine *e, size_t index, const char *const *settings, size_t count, const char *who)
{
	char brief[EVENT_TEXT_MAX];
	char *full = set_text(settings, count, who);

	snprintf(brief, sizeof(brief), "set: %zu setting%s%s%s (listed in the log)", count, count == 1 ? "" : "s",
		 who ? " by " : "", who ? who : "");
	if (full && strlen(full) < sizeof(brief))
		engine_note_event(e, index, full);
	else
		engine_note_event_logged_as(e, index, brief, full ? full : brief);
	free(full);
}

/* The goals the file gave, kept before the first set changes the config's (a reload compares the file
 * with them): 0 or -ENOMEM. */
static int keep_file_goals(struct engine_partition *ep, struct err *err)
{
	if (ep->file_goals)
		return 0;
	if (!(ep->file_goals = malloc(sizeof(*ep->file_goals))))
		return err_set(err, -ENOMEM, "out of memory");
	*ep->file_goals = ep->config->goals;
	return 0;
}

int engine_set(struct engine *e, const char *name, const char *const *settings, size_t count, const char *who,
	       json_t **ret_result, struct err *err)
{
	long slot = engine_slot_by_name(e, name);
	bool limits = false;

	if (slot < 0)
		return err_set(err, -ENOENT, "no partition named '%s'", name);
	if (count == 0)
		return err_set(err, -EINVAL, "nothing to set: give key=value");
	size_t i = (size_t)slot;
	struct partition_config *found = e->slots.partitions[i].config;
	/* All or nothing: change a copy, check it whole, then keep its goals (the only part `set` can
	 * change: the copy shares the rest with the live partition and must not be freed). */
	struct partition_config copy = *found;
	int r = check_duplicates(settings, count, err);
	if (r == 0)
		r = parse_settings(e, &copy, settings, count, &limits, err);
	struct partition_limits want = engine_config_limits(e, &copy);
	if (r == 0)
		r = engine_check_goals(e, &e->gens.config->global, &copy, err);
	if (r == 0 && limits)
		r = engine_validate_limits(e, &want, err);
	if (r == 0)
		r = keep_file_goals(&e->slots.partitions[i], err);
	if (r < 0)
		return r;
	struct partition_goals before = found->goals;
	found->goals = copy.goals;
	/* A limit is in force when `set` answers, so the reply can say what the hardware took. */
	if (limits && e->slots.partitions[i].status.open && (r = engine_apply_limits(e, i, &want, err)) < 0) {
		found->goals = before;
		return r;
	}
	engine_policy_config(e, i);
	engine_snapshot_changed(e); /* list shows the goals at once, not from the next tick */
	note_set(e, i, settings, count, who);
	if (ret_result)
		*ret_result = set_result(e, i, settings, count, limits);
	return 0;
}
