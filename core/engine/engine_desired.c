/* From the running set of partitions to a desired one (a reloaded file, or the file plus the
 * partitions made from [vm-template]s, engine_vms.c), changing only the difference: what stayed the
 * same keeps its slot, its counters' baselines and its policies' memory. Everything is checked before anything is
 * changed, so a refused change leaves all as it was. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/log.h"
#include "core/base/name_index.h"
#include "core/config/config_compare.h"
#include "core/config/config_json.h"
#include "core/engine/engine_internal.h"
#include "core/engine/engine_snapshot.h"

/* [global] keys the running backend can take. Every other key (backend, monitor, resctrl_root,
 * group_prefix, socket, mmio_beside_kernel, cgroup_root, and any key added later until it is listed
 * here) needs the backend opened again, which a reload does not do. */
static const char *const live_global_keys[] = {
	"interval_ms",	"capacity_mbps",  "escalate",	 "record", "record_max_bytes", "metrics_textfile", "include",
	"reconcile_ms", "proc_connector", "persist_dir", NULL,
};

static bool is_live_key(const char *name)
{
	for (const char *const *k = live_global_keys; *k; k++)
		if (!strcmp(*k, name))
			return true;
	return false;
}

#define RESTART_HINT "restart mpamd to apply it; nothing was changed"

/* The first difference of [global], [msc] or an extension's section that a reload cannot apply. */
static int check_globals(const struct engine *e, const struct config *want, struct err *err)
{
	const struct config_section_def *def = &config_global_section;
	char what[96];

	for (size_t i = 0; i < def->key_count; i++) {
		const struct config_key *key = &def->keys[i];
		if (is_live_key(key->name) ||
		    !config_section_diff(&(struct config_section_def){ "global", false, key, 1 },
					 &e->gens.config->global, &want->global))
			continue;
		return err_set(err, -EBUSY,
			       "[global] %s changed: the backend would have to be opened again; " RESTART_HINT,
			       key->name);
	}
	if (config_sections_diff(e->gens.config, want, what, sizeof(what)))
		return err_set(err, -EBUSY, "%s changed: the backend would have to be opened again; " RESTART_HINT,
			       what);
	int r = engine_check_capacity_domains(e, want, err);
	if (r < 0) {
		err_prefix(err, "[global]");
		return r;
	}
	if (want->global.interval_ms != e->gens.config->global.interval_ms)
		return engine_check_interval(e, want->global.interval_ms, err);
	return 0;
}

enum change {
	CHANGE_NONE,  /* the same as what runs */
	CHANGE_GOALS, /* only run-time keys changed: re-applied in place */
	CHANGE_READD, /* how the hardware knows it changed: removed, then added */
	CHANGE_ADD,   /* new */
};

static const char *const change_names[] = { "unchanged", "changed", "readded", "added" };

/* What happens to each of desired's partitions, and to each slot desired no longer has. */
struct diff {
	enum change *change; /* per desired partition */
	long *slot;	     /* per desired partition: the slot of the same name, or -1 */
	bool *keep;	     /* per slot: desired has it */
};

static void diff_fini(struct diff *d)
{
	free(d->change);
	free(d->slot);
	free(d->keep);
}

static enum change change_of(const struct engine_partition *ep, const struct config *want,
			     const struct partition_config *p)
{
	/* Against what the file said before (set's changes are not the file's): a file entry that
	 * stayed the same keeps what set did to it. */
	struct partition_config as_filed = *ep->config;

	if (ep->file_goals)
		as_filed.goals = *ep->file_goals;
	if (config_partition_diff(ep->gen->config, ep->config, want, p, CONFIG_COMPARE_IDENTITY))
		return CHANGE_READD;
	return config_partition_diff(ep->gen->config, &as_filed, want, p, CONFIG_COMPARE_GOALS) ? CHANGE_GOALS
												: CHANGE_NONE;
}

/* The running partitions by name, so that matching n desired ones is O(n), not O(n^2). */
static int index_slots(const struct engine *e, struct name_index *names)
{
	for (size_t i = 0; i < e->slots.count; i++)
		if (e->slots.partitions[i].used &&
		    name_index_add(names, e->slots.partitions[i].config->name, i) == -ENOMEM)
			return -ENOMEM;
	return 0;
}

static int diff_make(const struct engine *e, const struct config *want, struct diff *d, struct err *err)
{
	size_t n = want->partition_count;
	struct name_index names;

	name_index_init(&names);
	d->change = calloc(n ? n : 1, sizeof(*d->change));
	d->slot = calloc(n ? n : 1, sizeof(*d->slot));
	d->keep = calloc(e->slots.count ? e->slots.count : 1, sizeof(*d->keep));
	if (!d->change || !d->slot || !d->keep || index_slots(e, &names) < 0) {
		name_index_fini(&names);
		return err_set(err, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		size_t found;
		long slot = name_index_find(&names, want->partitions[i].name, &found) == 0 ? (long)found : -1;
		d->slot[i] = slot;
		d->change[i] =
			slot < 0 ? CHANGE_ADD : change_of(&e->slots.partitions[slot], want, &want->partitions[i]);
		if (slot >= 0 && d->change[i] != CHANGE_READD)
			d->keep[slot] = true;
	}
	name_index_fini(&names);
	return 0;
}

/* What the hardware cannot hold refuses the whole change, before anything is touched. */
static int check_partitions(struct engine *e, const struct config *want, const struct diff *d, struct err *err)
{
	for (size_t i = 0; i < want->partition_count; i++) {
		if (d->change[i] == CHANGE_NONE)
			continue;
		const struct partition_config *p = &want->partitions[i];
		struct partition_limits limits = engine_config_limits(e, p);
		struct err why = { "" };
		int r = engine_check_goals(e, &want->global, p, &why);
		if (r == 0)
			r = engine_validate_limits(e, &limits, &why);
		if (r < 0)
			return err_set(err, r, "partition %s (line %u): %s; nothing was changed", p->name,
				       p->origin.line, why.text);
	}
	return 0;
}

static void report_name(json_t *report, enum change c, const char *name)
{
	json_array_append_new(json_object_get(report, change_names[c]), json_string(name));
}

/* Its group removed, its slot free for the next partition. */
static void remove_slot(struct engine *e, size_t slot)
{
	log_info("partition %s: removed", e->slots.partitions[slot].config->name);
	engine_slot_close(e, slot, true);
	engine_slot_free(e, slot);
	engine_pool_room_freed(e, clock_now(&e->clock)); /* its group may have been what another lacked */
}

static void remove_gone(struct engine *e, const struct diff *d, json_t *report)
{
	for (size_t i = 0; i < e->slots.count; i++) {
		if (!e->slots.partitions[i].used || d->keep[i])
			continue;
		if (report)
			json_array_append_new(json_object_get(report, "removed"),
					      json_string(e->slots.partitions[i].config->name));
		remove_slot(e, i);
	}
}

/* New goals for a partition that stays: the policies get them, the hardware the new limits now. A
 * refusal leaves the partition open with the limits in force, its error shown, and the next tick
 * applies them again (a group removed meanwhile is made again there). */
static void change_goals(struct engine *e, size_t slot, const struct partition_config *p)
{
	struct engine_partition *ep = &e->slots.partitions[slot];
	struct partition_goals goals;
	struct err err = { "" };

	if (partition_goals_copy(&goals, &p->goals) < 0) { /* its config is another generation's: a copy */
		log_error("partition %s: reload: out of memory for its new goals: it keeps the old ones", p->name);
		return;
	}
	partition_goals_fini(&ep->config->goals);
	ep->config->goals = goals;
	engine_slot_forget_file_goals(ep); /* the file's goals are config's again */
	engine_policy_config(e, slot);
	if (!ep->status.open)
		return;
	struct partition_limits want = engine_config_limits(e, ep->config);
	if (engine_apply_limits(e, slot, &want, &err) < 0)
		engine_slot_apply_failed(e, slot, err.text);
	else
		engine_note_event(e, slot, "reload: goals changed in the file");
}

/* A partition added at run time runs with a configuration of its own: held by the whole desired
 * set, each one added to a set of n would keep n partitions alive (n^2/2 for VMs started one by one). */
static int add_new(struct engine *e, const struct config *want, const struct partition_config *want_p,
		   const char *origin, uint64_t now_ns, struct err *err)
{
	struct config *own = NULL;
	struct engine_gen *g;
	size_t slot;
	int r = engine_slot_alloc(e, &slot, err);

	if (r == 0)
		r = config_clone_partition(want, want_p, &own, err);
	if (r < 0)
		return r;
	if (!(g = engine_gen_new(&e->gens, own)))
		return err_set(err, -ENOMEM, "out of memory");
	struct partition_config *p = &own->partitions[0];
	engine_slot_fill(e, slot, g, p, origin);
	log_info("partition %s: added in slot %zu%s%s", p->name, slot, origin ? " from " : "", origin ? origin : "");
	engine_slot_open(e, slot, now_ns); /* a failure is the partition's: it is retried */
	return 0;
}

static void apply_partitions(struct engine *e, struct engine_gen *g, const char *const *origins, const struct diff *d,
			     json_t *report, uint64_t now_ns)
{
	struct config *want = g->config;
	size_t unchanged = 0;

	remove_gone(e, d, report);
	engine_pool_tidy(e, want, now_ns); /* before the new partitions look for room */
	for (size_t i = 0; i < want->partition_count; i++) {
		const char *origin = origins ? origins[i] : NULL;
		enum change c = d->change[i];
		if (report && c != CHANGE_NONE)
			report_name(report, c, want->partitions[i].name);
		unchanged += c == CHANGE_NONE;
		if (c == CHANGE_ADD || c == CHANGE_READD) {
			struct err err = { "" };
			if (add_new(e, want, &want->partitions[i], origin, now_ns, &err) < 0)
				log_error("partition %s: %s", want->partitions[i].name, err.text);
			continue;
		}
		struct engine_partition *ep = &e->slots.partitions[d->slot[i]];
		engine_slot_set_origin(ep, origin);
		if (c == CHANGE_GOALS)
			change_goals(e, (size_t)d->slot[i], &want->partitions[i]);
		if (ep->failed)
			ep->retry_ns = now_ns; /* an operator's reload tries failed partitions at once */
	}
	if (report)
		json_object_set_new(report, "unchanged", json_integer((json_int_t)unchanged));
}

/* The desired configuration is the engine's from now on: global keys that take effect live do. */
static void take_config(struct engine *e, struct engine_gen *g)
{
	struct engine_gen *old = e->gens.current;
	unsigned old_interval = e->gens.config->global.interval_ms;
	bool record_moved = strcmp(e->gens.config->global.record ? e->gens.config->global.record : "",
				   g->config->global.record ? g->config->global.record : "") ||
			    e->gens.config->global.record_max_bytes != g->config->global.record_max_bytes;

	engine_gen_hold(g);
	e->gens.current = g;
	e->gens.config = g->config;
	engine_gen_drop(&e->gens, old);
	for (size_t i = 0; i < e->slots.count; i++)
		if (e->slots.partitions[i].used)
			engine_policy_config(e, i); /* escalate may have changed */
	if (e->gens.config->global.interval_ms != old_interval) {
		e->ticks.interval_ns = (uint64_t)e->gens.config->global.interval_ms * 1000000u;
		log_info("interval_ms %u -> %u: the next tick is one new interval from now", old_interval,
			 e->gens.config->global.interval_ms);
		engine_loop_rearm(e);
	}
	if (record_moved)
		engine_record_reopen(e);
	engine_place_update(e);
}

static json_t *report_new(void)
{
	return json_pack("{s:[],s:[],s:[],s:[]}", "added", "removed", "changed", "readded");
}

int engine_apply_desired(struct engine *e, struct config *desired, const char *const *origins, json_t **ret_report,
			 struct err *err)
{
	struct engine_gen *g = engine_gen_new(&e->gens, desired);
	struct diff d = { 0 };

	if (!g)
		return err_set(err, -ENOMEM, "out of memory");
	engine_gen_hold(g); /* ours until the end: the engine holds it too once it is taken */
	int r = check_globals(e, desired, err);
	if (r == 0)
		r = diff_make(e, desired, &d, err);
	if (r == 0)
		r = check_partitions(e, desired, &d, err);
	if (r == 0) {
		json_t *report = ret_report ? report_new() : NULL;
		apply_partitions(e, g, origins, &d, report, clock_now(&e->clock));
		take_config(e, g);
		if (report)
			json_object_set_new(report, "interval_ms", json_integer(e->gens.config->global.interval_ms));
		if (ret_report)
			*ret_report = report;
		engine_snapshot_changed(e);
	}
	diff_fini(&d);
	engine_gen_drop(&e->gens, g);
	return r;
}

void engine_partition_remove(struct engine *e, size_t index)
{
	if (index >= e->slots.count || !e->slots.partitions[index].used)
		return;
	remove_slot(e, index);
	engine_snapshot_changed(e);
}

/* Each finding as the log and check-config print it: "FILE:LINE: error: message". */
static json_t *findings(const struct diag_list *diags)
{
	json_t *out = json_array();

	for (size_t i = 0; i < diags->count; i++) {
		const struct diag *dg = &diags->items[i];
		unsigned line;
		const char *file = diag_file_of(diags, dg->line, &line);
		char *text = diag_text(diags, dg);
		/* The log says the severity itself; a finding about a whole file (it cannot be read) has
		 * no line. */
		enum log_level level = dg->severity == DIAG_ERROR ? LOG_LEVEL_ERROR : LOG_LEVEL_WARNING;
		if (dg->line)
			log_msg(level, "%s:%u: %s", file, line, dg->message);
		else
			log_msg(level, "%s: %s", diags->file, dg->message);
		json_array_append_new(out, config_json_text(text ? text : dg->message));
		free(text);
	}
	if (diags->out_of_memory)
		json_array_append_new(out, json_sprintf("%s: " DIAG_OUT_OF_MEMORY, diags->file));
	return out;
}

static int reload(struct engine *e, json_t **ret_report, json_t **ret_messages, struct err *err)
{
	struct diag_list diags;
	struct config *fresh = NULL;
	struct engine_schema schema;

	if (!e->opts.config_path)
		return err_set(err, -EOPNOTSUPP, "this mpamd was started without a config file to reload");
	diag_list_init(&diags, e->opts.config_path);
	engine_schema_init(e->registry, &schema);
	int r = config_load_path(e->opts.config_path, &schema.schema, &e->opts.overrides, &fresh, &diags);
	json_t *messages = findings(&diags);
	size_t errors = diag_error_count(&diags);
	diag_list_fini(&diags);
	if (r < 0)
		err_set(err, r, "%s has %zu error(s); the running configuration stays", e->opts.config_path, errors);
	else if ((r = engine_vms_reload(e, fresh, ret_report, err)) < 0)
		log_error("reload refused: %s", err->text);
	engine_metrics_reloaded(e, r == 0);
	if (r == 0) {
		json_object_set_new(*ret_report, "reloaded", json_true());
		json_object_set_new(*ret_report, "messages", messages);
		log_info("reloaded %s: %zu partition(s)", e->opts.config_path, engine_partitions_in_use(e));
	} else if (ret_messages) {
		*ret_messages = messages;
	} else {
		json_decref(messages);
	}
	return r;
}

json_t *engine_reload_report(struct engine *e, json_t **ret_messages, struct err *err)
{
	json_t *report = NULL;

	return reload(e, &report, ret_messages, err) == 0 ? report : NULL;
}

int engine_reload(struct engine *e, struct err *err)
{
	json_t *report = NULL;
	int r = reload(e, &report, NULL, err);

	json_decref(report);
	return r;
}
