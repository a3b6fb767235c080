/* mpamctl set: run-time changes of one partition, checked like the configuration file and against
 * the hardware, applied together or not at all. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/log.h"
#include "core/config/config_persist.h"
#include "core/engine/engine_internal.h"
#include "core/engine/engine_snapshot.h"
#include "core/report/json_pct.h"

#define SET_KEY_MAX 64

/* How long a set lasts (engine_apply_desired keeps the goals of an unchanged entry, and replaces all
 * of them with the file's when the entry changed): said with every set, so that nobody takes it for a
 * change of the file. */
#define SET_LASTS                                                                                         \
	"until a reload that changes the partition's entry in the configuration (the file's values then " \
	"replace every set of it) or until mpamd restarts; set --persist makes it last"
#define SET_PERSISTED_LASTS "across reloads and restarts: persisted in %s until that file is removed"

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

static json_t *set_result(const struct engine *e, size_t index, const char *const *settings, size_t count, bool limits,
			  const char *persisted)
{
	const struct partition_config *p = e->slots.partitions[index].config;
	const struct partition_status *st = &e->slots.partitions[index].status;
	json_t *asked = json_array(), *rounded = json_array();

	for (size_t s = 0; s < count; s++)
		json_array_append_new(asked, json_string(settings[s]));
	if (limits && st->open) {
		struct partition_goals_buf buf;
		const struct partition_goals *g = engine_goals_pct(e, &p->goals, &buf);
		add_rounding(rounded, "mb_max", g->mb_max, p->goals.mb_max_mbps ? p->goals.mb_max : 0, st->mb_max,
			     &e->hw.caps.max_ladder);
		add_rounding(rounded, "mb_min", g->mb_min, p->goals.mb_min_mbps ? p->goals.mb_min : 0, st->mb_min,
			     &e->hw.caps.min_ladder);
	}
	char lasts[PATH_MAX + 96];
	snprintf(lasts, sizeof(lasts), persisted ? SET_PERSISTED_LASTS : SET_LASTS, persisted);
	return json_pack("{s:s,s:o,s:b,s:{s:o,s:o},s:o,s:s,s:o}", "name", p->name, "settings", asked, "applied",
			 limits && st->open, "in_force", "mb_max", json_pct(st->mb_max), "mb_min", json_pct(st->mb_min),
			 "rounded", rounded, "lasts", lasts, "persisted",
			 persisted ? json_string(persisted) : json_null());
}

/* "VERB: KEY=VALUE... by WHO" (all of them), or NULL when out of memory. */
static char *set_text(const char *verb, const char *const *settings, size_t count, const char *who)
{
	size_t len = strlen(verb) + 2 + (who ? strlen(" by ") + strlen(who) : 0);

	for (size_t s = 0; s < count; s++)
		len += 1 + strlen(settings[s]);
	char *text = malloc(len);
	if (!text)
		return NULL;
	size_t used = (size_t)snprintf(text, len, "%s:", verb);
	for (size_t s = 0; s < count; s++)
		used += (size_t)snprintf(text + used, len - used, " %s", settings[s]);
	if (who)
		snprintf(text + used, len - used, " by %s", who);
	return text;
}

/* The set's own event: what was asked and by whom, logged once in full. An event too long for the
 * event log counts the settings there instead (never cut half-way: the log has them all). */
static void note_set(struct engine *e, size_t index, const char *verb, const char *const *settings, size_t count,
		     const char *who)
{
	char brief[EVENT_TEXT_MAX];
	char *full = set_text(verb, settings, count, who);

	snprintf(brief, sizeof(brief), "%s: %zu setting%s%s%s (listed in the log)", verb, count, count == 1 ? "" : "s",
		 who ? " by " : "", who ? who : "");
	if (full && strlen(full) < sizeof(brief))
		engine_note_event(e, index, full);
	else
		engine_note_event_logged_as(e, index, brief, full ? full : brief);
	free(full);
}

/* set --persist keeps changes of the main file's partitions: a template's partition lives while its VM
 * runs, and an included file belongs to whoever writes it (a libvirt hook), who may remove it. */
static int check_persistable(const struct engine *e, size_t i, struct err *err)
{
	const struct engine_partition *ep = &e->slots.partitions[i];
	const char *name = ep->config->name;

	if (ep->origin)
		return err_set(err, -EPERM,
			       "partition %s is made by [vm-template \"%s\"] while its VM runs: persist the change in "
			       "the template; set --persist keeps changes of the main file's partitions",
			       name, ep->origin);
	if (ep->config->included)
		return err_set(err, -EPERM,
			       "partition %s is defined in a file the include key names, not in the main file: "
			       "change it in that file; set --persist keeps changes of the main file's partitions",
			       name);
	if (!e->gens.config->global.persist_dir)
		return err_set(err, -EOPNOTSUPP,
			       "no persist_dir in [global]: set --persist writes its files there (the shipped "
			       "configuration has persist_dir = /var/lib/mpamd/persist, mpamd.ini(5))");
	return 0;
}

/* The goals the file will give partition i at the next start or reload, the persisted keys with the
 * file's others (not with the sets that are not persisted): refused now if they would be then. *ret
 * is the caller's (partition_goals_fini). */
static int persisted_goals(struct engine *e, size_t i, const char *const *settings, size_t count,
			   struct partition_goals *ret, struct err *err)
{
	const struct engine_partition *ep = &e->slots.partitions[i];
	struct partition_config filed = *ep->config; /* shares all but its goals, which are its own */
	bool limits;

	if (partition_goals_copy(&filed.goals, ep->file_goals ? ep->file_goals : &ep->config->goals) < 0)
		return err_set(err, -ENOMEM, "out of memory");
	int r = parse_settings(e, &filed, settings, count, &limits, err);
	if (r == 0)
		r = engine_check_goals(e, &e->gens.config->global, &filed, err);
	if (r < 0) {
		partition_goals_fini(&filed.goals);
		err_prefix(err, "with the file's other keys of %s, as the next start would read them", filed.name);
		return r;
	}
	*ret = filed.goals;
	return 0;
}

/* Writes partition `name`'s persist_dir file with `settings` added; *ret_old (NULL: there was none)
 * is what to put back if the set fails after. */
static int persist_write(const struct engine *e, const char *name, const char *const *settings, size_t count,
			 char **ret_old, char *path, size_t path_len, struct err *err)
{
	const char *dir = e->gens.config->global.persist_dir;
	char file[NAME_MAX_LEN + 8], *text = NULL;
	int r = config_persist_read(dir, name, ret_old, err);

	config_persist_file(name, file, sizeof(file));
	snprintf(path, path_len, "%s/%s", dir, file);
	if (r == 0 && (r = config_persist_text(*ret_old, name, settings, count, &text, err)) < 0)
		err_prefix(err, "%s", path);
	if (r == 0 && (r = config_persist_write(dir, name, text, err)) < 0 &&
	    (r == -EROFS || r == -EACCES || r == -EPERM))
		err_prefix(err, "mpamd cannot write persist_dir (under systemd it may write its StateDirectory, "
				"/var/lib/mpamd; another directory needs ReadWritePaths=)");
	free(text);
	if (r < 0) {
		free(*ret_old);
		*ret_old = NULL;
		err_prefix(err, "set --persist, nothing was changed");
	}
	return r;
}

/* One set as it goes through: what was asked, and what checking it found. */
struct set_request {
	const char *const *settings;
	size_t count;
	bool persist;
	bool limits;		      /* a limit key is among the settings */
	struct partition_config copy; /* the partition with them (shares all but its goals, its own) */
	struct partition_limits want; /* its limits */
	char path[PATH_MAX];	      /* persist: the file written */
};

/* Parses and checks the settings of partition i into q: 0, or why they cannot be set. */
static int set_check(struct engine *e, size_t i, struct set_request *q, struct err *err)
{
	/* All or nothing: change a copy, check it whole, then keep its goals (the only part `set` can
	 * change: the copy shares the rest with the live partition and must not be freed; its goals are
	 * its own, which set_partition frees). */
	const struct partition_config *p = e->slots.partitions[i].config;
	q->copy = *p;
	if (partition_goals_copy(&q->copy.goals, &p->goals) < 0)
		return err_set(err, -ENOMEM, "out of memory");
	int r = check_duplicates(q->settings, q->count, err);
	if (r == 0)
		r = parse_settings(e, &q->copy, q->settings, q->count, &q->limits, err);
	q->want = engine_config_limits(e, &q->copy);
	if (r == 0)
		r = engine_check_goals(e, &e->gens.config->global, &q->copy, err);
	if (r == 0 && q->limits)
		r = engine_validate_limits(e, &q->want, err);
	return r;
}

/* The goals the file gave, kept before the first set changes the config's (a reload compares the file
 * with them): 0 or -ENOMEM. */
static int keep_file_goals(struct engine_partition *ep, struct err *err)
{
	if (ep->file_goals)
		return 0;
	struct partition_goals *kept = malloc(sizeof(*kept));

	if (!kept || partition_goals_copy(kept, &ep->config->goals) < 0) {
		free(kept);
		return err_set(err, -ENOMEM, "out of memory");
	}
	ep->file_goals = kept;
	return 0;
}

/* A checked set of partition i made persistent (when asked), then put in force. All or nothing: a
 * failure after the file was written puts the file back. The goals left in q->copy (the new ones
 * after a failure, else the old) are the caller's to free. */
static int set_apply(struct engine *e, size_t i, struct set_request *q, struct err *err)
{
	struct partition_config *found = e->slots.partitions[i].config;
	struct partition_goals filed = { 0 }, before = found->goals;
	char *old = NULL;
	int r = keep_file_goals(&e->slots.partitions[i], err);

	if (r == 0 && q->persist && (r = check_persistable(e, i, err)) == 0 &&
	    (r = persisted_goals(e, i, q->settings, q->count, &filed, err)) == 0)
		r = persist_write(e, found->name, q->settings, q->count, &old, q->path, sizeof(q->path), err);
	if (r < 0) {
		partition_goals_fini(&filed);
		return r;
	}
	found->goals = q->copy.goals;
	/* A limit is in force when `set` answers, so the reply can say what the hardware took. */
	if (q->limits && e->slots.partitions[i].status.open && (r = engine_apply_limits(e, i, &q->want, err)) < 0) {
		found->goals = before;
		struct err undo = { "" };
		if (q->persist && config_persist_write(e->gens.config->global.persist_dir, found->name, old, &undo) < 0)
			log_error("partition %s: set --persist failed and %s could not be put back: %s", found->name,
				  q->path, undo.text);
	} else {
		q->copy.goals = before;
		if (q->persist) { /* a reload of the same file keeps the other sets */
			partition_goals_fini(e->slots.partitions[i].file_goals);
			*e->slots.partitions[i].file_goals = filed;
			filed = (struct partition_goals){ 0 };
		}
	}
	partition_goals_fini(&filed);
	free(old);
	return r;
}

static int set_partition(struct engine *e, const char *name, struct set_request *q, const char *who,
			 json_t **ret_result, struct err *err)
{
	long slot = engine_slot_by_name(e, name);

	if (slot < 0)
		return err_set(err, -ENOENT, "no partition named '%s'", name);
	if (q->count == 0)
		return err_set(err, -EINVAL, "nothing to set: give key=value");
	size_t i = (size_t)slot;
	int r = set_check(e, i, q, err);
	if (r == 0) /* a target it did not have: the controller's memory first, or the set is refused */
		r = engine_target_room(e, i, &q->copy.goals, err);
	if (r == 0)
		r = set_apply(e, i, q, err);
	partition_goals_fini(&q->copy.goals);
	if (r < 0)
		return r;
	engine_policy_config(e, i);
	engine_snapshot_changed(e); /* list shows the goals at once, not from the next tick */
	note_set(e, i, q->persist ? "set --persist" : "set", q->settings, q->count, who);
	if (ret_result)
		*ret_result = set_result(e, i, q->settings, q->count, q->limits, q->persist ? q->path : NULL);
	return 0;
}

int engine_set(struct engine *e, const char *name, const char *const *settings, size_t count, const char *who,
	       json_t **ret_result, struct err *err)
{
	struct set_request q = { .settings = settings, .count = count };

	return set_partition(e, name, &q, who, ret_result, err);
}

int engine_set_persist(struct engine *e, const char *name, const char *const *settings, size_t count, const char *who,
		       json_t **ret_result, struct err *err)
{
	struct set_request q = { .settings = settings, .count = count, .persist = true };

	return set_partition(e, name, &q, who, ret_result, err);
}
