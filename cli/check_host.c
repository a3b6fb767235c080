/* mpamctl check-config --host: the control's validate and plan for every partition, as mpamd would
 * open them (in order: validate, then partition_open and apply), with the writes recorded, not made. */
#include "cli/check_host.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "backends/contracts/control.h"
#include "backends/shared/hmat_capacity.h"
#include "backends/mmio/msc_set.h"
#include "cli/check_host_classes.h"
#include "core/base/clock.h"
#include "core/engine/capacity_learner.h"
#include "core/engine/domain_limits.h"
#include "core/engine/registry.h"
#include "core/report/json_pct.h"
#include "core/report/record_history.h"

/* A long list of thread ids is cut in the text output; JSON keeps every write. */
#define TEXT_VALUES_MAX 8

/* A ladder for people and scripts: its steps in words, its rungs, its lowest and highest. */
static json_t *ladder_json(const struct ladder *l)
{
	char steps[128];

	if (!ladder_exists(l))
		return json_null();
	ladder_describe(l, steps, sizeof(steps));
	return json_pack("{s:s,s:I,s:o,s:o,s:b}", "steps", steps, "rungs", (json_int_t)l->count, "lowest_pct",
			 json_pct(ladder_pct(l, 0)), "highest_pct", json_pct(ladder_pct(l, ladder_top(l))), "absolute",
			 ladder_absolute(l));
}

static json_t *caps_to_json(const struct control_caps *caps)
{
	json_t *domains = json_array();

	for (unsigned d = 0; d < caps->domain_count; d++)
		json_array_append_new(domains, json_pack("{s:I,s:s,s:o,s:o}", "id", (json_int_t)caps->domains[d].id,
							 "what", caps->domains[d].name, "mb_max",
							 ladder_json(&caps->domains[d].max_ladder), "mb_min",
							 ladder_json(&caps->domains[d].min_ladder)));
	return json_pack("{s:I,s:I,s:o,s:o,s:b,s:I,s:o}", "partitions_max", (json_int_t)caps->partitions_max,
			 "partitions_reserved", (json_int_t)caps->partitions_reserved, "mb_max",
			 ladder_json(&caps->max_ladder), "mb_min", ladder_json(&caps->min_ladder), "has_mb_min",
			 caps->has_mb_min, "cbm_bits", (json_int_t)caps->cbm_bits, "domains", domains);
}

static json_t *hex_json(uint64_t v)
{
	char text[24];

	snprintf(text, sizeof(text), "0x%llx", (unsigned long long)v);
	return json_string(text);
}

/* Each of the first `domains` domains holds the summary's mb_max and mb_min. */
static bool uniform(const struct partition_limits *l, unsigned domains)
{
	for (unsigned d = 0; d < domains; d++)
		if (limits_max_at(l, d) != l->mb_max || limits_min_at(l, d) != l->mb_min)
			return false;
	return true;
}

/* mb_max and mb_min (the highest of the domains'), and each domain's when they differ from them. */
static json_t *limits_to_json(const struct partition_limits *l, const struct control_caps *caps)
{
	json_t *j = json_pack("{s:o,s:o,s:o}", "mb_max", json_pct(l->mb_max), "mb_min", json_pct(l->mb_min), "l3_cbm",
			      l->l3_cbm ? hex_json(l->l3_cbm) : json_null());
	unsigned shown = l->domain_count < caps->domain_count ? l->domain_count : caps->domain_count;

	if (uniform(l, shown)) {
		json_object_set_new(j, "domains", json_null());
		return j;
	}
	json_t *domains = json_array();
	for (unsigned d = 0; d < shown; d++)
		json_array_append_new(domains,
				      json_pack("{s:I,s:o,s:o}", "domain", (json_int_t)caps->domains[d].id, "mb_max",
						json_pct(l->mb_max_at[d]), "mb_min", json_pct(l->mb_min_at[d])));
	json_object_set_new(j, "domains", domains);
	return j;
}

/* Why a bandwidth limit ends up where it does: the nearest rung of the domain's ladder (`d`, or the
 * control-wide one past the domains), the hardware's lowest or highest setting, or no control. */
static json_t *bw_rounding(const char *limit, double want, double got, const struct control_caps *caps, unsigned d)
{
	bool max = !strcmp(limit, "mb_max");
	const struct ladder *l = max ? control_max_ladder(caps, d) : control_min_ladder(caps, d);
	json_t *r = json_pack("{s:s,s:o,s:o}", "limit", limit, "from", json_pct(want), "to", json_pct(got));
	char steps[128];

	ladder_describe(l, steps, sizeof(steps));
	if (!ladder_exists(l))
		json_object_set_new(r, "why",
				    json_string(max ? "no bandwidth control" : "no minimum-bandwidth control"));
	else if (got == ladder_pct(l, 0) && got > want)
		json_object_set_new(r, "why", json_sprintf("below the lowest setting, %g%%", got));
	else
		json_object_set_new(r, "why", json_sprintf("%s setting of %s", max ? "nearest" : "next", steps));
	return r;
}

/* Every domain asked the same and got the same: one rounding says it for all. */
static bool per_domain_alike(const struct partition_limits *want, const struct partition_limits *got, unsigned domains)
{
	return uniform(want, domains) && uniform(got, domains);
}

static void domain_rounding(json_t *list, const char *limit, double want, double got, const struct control_caps *caps,
			    unsigned d)
{
	if (want == got)
		return;
	json_t *r = bw_rounding(limit, want, got, caps, d);
	json_object_set_new(r, "domain", json_integer(caps->domains[d].id));
	json_array_append_new(list, r);
}

static json_t *rounding(const struct partition_limits *want, const struct partition_limits *got,
			const struct control_caps *caps)
{
	json_t *list = json_array();

	if (per_domain_alike(want, got, caps->domain_count)) {
		if (want->mb_max != got->mb_max)
			json_array_append_new(list, bw_rounding("mb_max", want->mb_max, got->mb_max, caps, 0));
		if (want->mb_min != got->mb_min)
			json_array_append_new(list, bw_rounding("mb_min", want->mb_min, got->mb_min, caps, 0));
	} else {
		for (unsigned d = 0; d < caps->domain_count; d++) {
			domain_rounding(list, "mb_max", limits_max_at(want, d), limits_max_at(got, d), caps, d);
			domain_rounding(list, "mb_min", limits_min_at(want, d), limits_min_at(got, d), caps, d);
		}
	}
	if (want->l3_cbm != got->l3_cbm)
		json_array_append_new(list,
				      json_pack("{s:s,s:o,s:o,s:s}", "limit", "l3_cbm", "from", hex_json(want->l3_cbm),
						"to", hex_json(got->l3_cbm), "why", "no cache portion control"));
	return list;
}

/* A domain's capacity as the configuration gives it (0: not given). */
static double configured_capacity(const struct config *config, const struct control_caps *caps, unsigned d)
{
	const struct global_config *g = &config->global;

	if (d < caps->domain_count)
		return domain_values_get(&g->capacity_mbps_at, caps->domains[d].id, g->capacity_mbps);
	return g->capacity_mbps;
}

/* The value a rung writes, as the hardware names it: "1024 units", "MBW_MAX 0x7f00"; "" where it is the
 * percent itself. */
static void rung_value_text(const struct ladder *l, uint32_t rung, char *buf, size_t len)
{
	switch (l->kind) {
	case LADDER_UNITS:
		snprintf(buf, len, "%u units", ladder_value(l, rung));
		break;
	case LADDER_MPAM_MAX:
		snprintf(buf, len, "MBW_MAX 0x%04x", ladder_value(l, rung));
		break;
	case LADDER_RESCTRL_MPAM:
		snprintf(buf, len, "written %u, shown %u", ladder_value(l, rung), ladder_shown(l, rung));
		break;
	default:
		buf[0] = '\0';
	}
}

/* The ceiling in force on domain d in the hardware's own units and in MB/s, and whether it can
 * throttle at all: a ceiling at or above what the domain carries holds nothing back (AMD's 50% is
 * 128 GB/s, more than a CCX uses). */
static json_t *ceiling_json(const struct config *config, const struct control_caps *caps, unsigned d, double pct)
{
	const struct ladder *l = control_max_ladder(caps, d);
	double capacity = configured_capacity(config, caps, d);
	char value[64];

	if (!ladder_exists(l))
		return json_null();
	uint32_t rung = ladder_snap(l, pct, LADDER_NEAREST);
	double mbps = ladder_mbps(l, rung, capacity);
	rung_value_text(l, rung, value, sizeof(value));
	json_t *j = json_pack("{s:o,s:s,s:I,s:I,s:o,s:o,s:b}", "pct", json_pct(ladder_pct(l, rung)), "value", value,
			      "rung", (json_int_t)rung, "rungs", (json_int_t)l->count, "mbps",
			      mbps > 0 ? json_real(mbps) : json_null(), "capacity_mbps",
			      capacity > 0 ? json_real(capacity) : json_null(), "absolute", ladder_absolute(l));
	if (mbps > 0 && capacity > 0)
		json_object_set_new(j, "throttles", json_boolean(mbps < capacity));
	return j;
}

static void refuse(json_t *entry, const char *reason)
{
	json_object_set_new(entry, "verdict", json_string("refused"));
	json_object_set_new(entry, "reason", json_string(reason));
}

/* A guarantee where some domain's capacity is not known (configured, the hardware's, ACPI HMAT's, the
 * record's): not enforced from the start, and the plan should say so. */
static void note_guarantee(const struct overcommit_domains *domains, const struct partition_config *p, json_t *entry)
{
	bool known = domains->count > 0;

	for (unsigned d = 0; d < domains->count; d++)
		known &= domains->at[d].capacity_mbps > 0;
	if (!p->goals.guarantee_mbps || known)
		return;
	json_t *notes = json_object_get(entry, "notes");
	if (json_is_array(notes))
		json_array_append_new(
			notes,
			json_string("guarantee not enforced at first: a domain's capacity is not known (no "
				    "capacity_mbps, no figure from the hardware, ACPI HMAT or the record), so mpamd "
				    "learns it from the totals seen and enforces the guarantee once the domain shows "
				    "saturation (usually within a second of contention; mpamctl discover suggests a "
				    "capacity_mbps)"));
}

/* With shared classes a partition is a monitoring group in the class its ceilings fall in (the plan of
 * classes says which); what each class group holds, and the moves, are decided at run time. */
static void plan_class_member(const struct control_caps *caps, const struct partition_config *p,
			      const struct partition_limits *asked, const struct partition_limits *want, json_t *entry)
{
	if (p->cpus) {
		refuse(entry, "cpus: a partition in a class (classes = shared) is a monitoring group, and class "
			      "groups have no CPUs; use classes = own for a partition with cpus");
		return;
	}
	json_object_set_new(entry, "rounding", rounding(asked, want, caps));
	json_object_set_new(entry, "effective", limits_to_json(want, caps));
	json_object_set_new(entry, "notes",
			    json_pack("[s]", "classes = shared: a monitoring group (an RMID of its own) in the class "
					     "group its limits fall in (see classes); the groups and their writes are "
					     "made at run time, not planned here"));
	json_object_set_new(entry, "writes", json_null());
}

/* One partition as mpamd would open it: refused by validate or by the plan, or its plan. */
static json_t *check_partition(const struct config *config, const struct control_ops *ops, struct control *control,
			       const struct control_caps *caps, const struct overcommit_domains *domains, size_t index,
			       const struct partition_config *p, bool shared)
{
	struct partition_limits want = { .l3_cbm = p->goals.l3_cbm }, asked = want;
	struct control_plan plan = { 0 };
	struct partition_goals_buf buf;
	struct err err = { "" };
	/* MB/s goals as percents of each domain (what the hardware's rungs are in) */
	const struct partition_goals *g = domain_limits_configured(caps, &config->global, &p->goals, &buf, &want, &err);

	if (g)
		domain_limits_asked(caps, g, g->mb_max, g->mb_min, &asked);
	json_t *entry =
		json_pack("{s:s,s:s,s:o}", "name", p->name, "verdict", "ok", "limits", limits_to_json(&want, caps));
	if (!g || (ops->validate && ops->validate(control, &want, &err) < 0)) {
		refuse(entry, err.text);
		return entry;
	}
	if (shared) {
		plan_class_member(caps, p, &asked, &want, entry);
		note_guarantee(domains, p, entry);
		return entry;
	}
	if (!ops->plan) {
		json_object_set_new(
			entry, "notes",
			json_pack("[s]", "this control cannot plan: the limits are valid, the writes unknown"));
		json_object_set_new(entry, "writes", json_null());
		return entry;
	}
	if (ops->plan(control, index, p, &want, &plan, &err) < 0) {
		refuse(entry, err.text);
		return entry;
	}
	json_object_set_new(entry, "rounding", rounding(&asked, &plan.effective, caps));
	json_object_set_new(entry, "ceiling",
			    ceiling_json(config, caps, 0,
					 caps->domain_count ? plan.effective.mb_max_at[0] : plan.effective.mb_max));
	json_object_set_new(entry, "effective", limits_to_json(&plan.effective, caps));
	json_object_set_new(entry, "notes", json_deep_copy(plan.notes));
	json_object_set_new(entry, "writes", json_incref(plan.writes));
	control_plan_fini(&plan);
	note_guarantee(domains, p, entry);
	return entry;
}

/* More partitions than the hardware has left beside the ones held before mpamd starts. */
static void check_partition_count(const struct config *config, const struct control_caps *caps, json_t *refused)
{
	unsigned usable =
		caps->partitions_max > caps->partitions_reserved ? caps->partitions_max - caps->partitions_reserved : 0;

	if (config->partition_count > usable)
		json_array_append_new(
			refused,
			json_sprintf("%zu partitions, but the hardware has %u CLOSIDs/PARTIDs%s: at most %u "
				     "partitions can be open",
				     config->partition_count, caps->partitions_max,
				     caps->partitions_reserved == 1  ? ", one of them the default group's"
				     : caps->partitions_reserved > 1 ? ", some held by the default group and the kernel"
								     : "",
				     usable));
}

static bool all_hold(json_t *report)
{
	size_t i;
	json_t *p;

	if (json_array_size(json_object_get(report, "refused")))
		return false;
	json_array_foreach(json_object_get(report, "partitions"), i, p)
		if (strcmp(json_string_value(json_object_get(p, "verdict")), "ok"))
			return false;
	return true;
}

/* ACPI HMAT's figure for each of the control's resctrl domains that has none yet. */
static void hmat_domains(const char *sysfs_root, const struct control_caps *caps, struct overcommit_domains *ret)
{
	uint32_t ids[OVERCOMMIT_DOMAINS_MAX];
	double mbps[OVERCOMMIT_DOMAINS_MAX];
	struct hmat_notes notes;

	for (unsigned d = 0; d < ret->count; d++) {
		if (d >= caps->domain_count || strcmp(caps->domains[d].id_space, DOMAIN_SPACE_RESCTRL))
			return;
		ids[d] = caps->domains[d].id;
	}
	hmat_capacity_read(sysfs_root, ids, ret->count, mbps, &notes);
	for (unsigned i = 0; i < notes.count; i++)
		fprintf(stderr, "mpamctl check-config: warning: ACPI HMAT: %s: ignored\n", notes.text[i]);
	for (unsigned d = 0; d < ret->count; d++) {
		if (ret->at[d].capacity_mbps > 0 || !(mbps[d] > 0))
			continue;
		ret->at[d].capacity_mbps = mbps[d];
		ret->at[d].source = "ACPI HMAT";
	}
}

/* The record's peak for each of the control's domains that has no capacity yet, as mpamd starts from
 * it (core/engine/engine_capacity_record.c): the same files, read the same way. */
static void record_domains(const struct config *config, const struct control_caps *caps, struct overcommit_domains *ret)
{
	char ids[OVERCOMMIT_DOMAINS_MAX][16];
	const char *names[OVERCOMMIT_DOMAINS_MAX];
	double mbps[OVERCOMMIT_DOMAINS_MAX];
	struct record_history h;
	bool unknown = false;

	for (unsigned d = 0; d < ret->count; d++)
		unknown |= !(ret->at[d].capacity_mbps > 0);
	if (!config->global.record || !caps->domain_count || !unknown)
		return;
	for (unsigned d = 0; d < ret->count; d++) {
		snprintf(ids[d], sizeof(ids[d]), "%u", ret->at[d].id);
		names[d] = ids[d];
	}
	record_history_read(config->global.record, CAPACITY_SMOOTH_TICKS, names, ret->count, mbps, &h);
	for (unsigned i = 0; i < h.note_count; i++)
		fprintf(stderr, "mpamctl check-config: warning: record file %s: not used for the capacity\n",
			h.notes[i]);
	for (unsigned d = 0; d < ret->count; d++) {
		if (ret->at[d].capacity_mbps > 0 || !(mbps[d] > 0))
			continue;
		ret->at[d].capacity_mbps = mbps[d];
		ret->at[d].source = "record";
	}
}

/* The control's domains and what each carries, in mpamd's order of trust: capacity_mbps, the
 * hardware's figure where it has one (the simulator's MSCs), ACPI HMAT's, the record's peak. */
static void host_domains(const struct config *config, const struct control_ops *ops, struct control *control,
			 const struct control_caps *caps, const char *sysfs_root, struct overcommit_domains *ret)
{
	struct control_shared shared = { 0 };

	if (ops->share)
		ops->share(control, &shared);
	ret->known = true;
	ret->simulated = ops->simulated;
	ret->count = caps->domain_count ? caps->domain_count : 1;
	if (ret->count > OVERCOMMIT_DOMAINS_MAX)
		ret->count = OVERCOMMIT_DOMAINS_MAX;
	for (unsigned d = 0; d < ret->count; d++) {
		struct overcommit_domain *od = &ret->at[d];
		od->id = caps->domain_count ? caps->domains[d].id : 0;
		od->capacity_mbps = configured_capacity(config, caps, d);
		od->source = od->capacity_mbps > 0 ? "capacity_mbps" : NULL;
		if (!od->source && shared.mscs && od->id < shared.mscs->count &&
		    shared.mscs->mscs[od->id].capacity_mbps > 0) {
			od->capacity_mbps = shared.mscs->mscs[od->id].capacity_mbps;
			od->source = ops->simulated ? "[sim] capacity_mbps" : "the hardware's";
		}
	}
	hmat_domains(sysfs_root, caps, ret);
	record_domains(config, caps, ret);
}

/* {"domain", "capacity_mbps" (null: unknown), "source" (null: learned from the totals seen)} each. */
static json_t *capacity_json(const struct overcommit_domains *domains)
{
	json_t *list = json_array();

	for (unsigned d = 0; domains->known && d < domains->count; d++) {
		const struct overcommit_domain *od = &domains->at[d];
		json_array_append_new(list,
				      json_pack("{s:I,s:o,s:o}", "domain", (json_int_t)od->id, "capacity_mbps",
						od->capacity_mbps > 0 ? json_real(od->capacity_mbps) : json_null(),
						"source", od->source ? json_string(od->source) : json_null()));
	}
	return list;
}

/* The control, opened only to plan where its open would change something. */
static int open_control(const struct control_ops *ops, const struct config *config, struct clock *clock,
			struct control **ret, struct err *err)
{
	if (!ops)
		return err_set(err, -EOPNOTSUPP, "backend %s is not available in this build", config->global.backend);
	return ops->open_to_plan ? ops->open_to_plan(config, clock, ret, err) : ops->open(config, clock, ret, err);
}

int check_host(const struct config *config, const char *sysfs_root, struct overcommit_domains *domains, json_t **ret)
{
	const struct control_ops *ops = engine_registry_control(&engine_registry_default, config->global.backend);
	json_t *report = json_pack("{s:s,s:b}", "backend", config->global.backend, "can_hold", 0);
	struct control *control = NULL;
	struct control_caps caps;
	struct classes_host classes;
	struct clock clock;
	struct err err = { "" };

	*ret = report;
	memset(domains, 0, sizeof(*domains));
	clock_init_monotonic(&clock);
	if (open_control(ops, config, &clock, &control, &err) < 0) {
		json_object_set_new(report, "error", json_string(err.text));
		return -1;
	}
	ops->probe(control, &caps);
	host_domains(config, ops, control, &caps, sysfs_root, domains);
	classes_host_read(ops, control, &caps, &classes); /* before the plans count their groups in */
	bool shared = classes_host_shared(config, &classes);
	json_t *partitions = json_array(), *refused = json_array();
	for (size_t i = 0; i < config->partition_count; i++)
		json_array_append_new(partitions, check_partition(config, ops, control, &caps, domains, i,
								  &config->partitions[i], shared));
	if (!shared)
		check_partition_count(config, &caps, refused);
	json_object_set_new(report, "classes", classes_plan(config, &caps, &classes, refused));
	if (domain_ids_check(&caps, &config->global.capacity_mbps_at, "capacity_mbps", &err) < 0)
		json_array_append_new(refused, json_string(err.text));
	ops->free(control);
	json_object_set_new(report, "hardware", caps_to_json(&caps));
	json_object_set_new(report, "capacity", capacity_json(domains));
	json_object_set_new(report, "partitions", partitions);
	json_object_set_new(report, "refused", refused);
	json_object_set_new(report, "can_hold", json_boolean(all_hold(report)));
	return all_hold(report) ? 0 : -1;
}

/* ---- text ---- */

static long long num(json_t *obj, const char *key)
{
	return (long long)json_integer_value(json_object_get(obj, key));
}

static const char *str(json_t *obj, const char *key)
{
	const char *s = json_string_value(json_object_get(obj, key));

	return s ? s : "";
}

static void print_hardware(FILE *out, const char *backend, json_t *hw)
{
	fprintf(out, "host: %s: %lld CLOSIDs/PARTIDs", backend, num(hw, "partitions_max"));
	if (num(hw, "partitions_reserved") == 1)
		fprintf(out, " (1 held by the default group)");
	else if (num(hw, "partitions_reserved") > 1) /* resctrl's io_alloc holds one for devices */
		fprintf(out, " (%lld held by the default group and the kernel)", num(hw, "partitions_reserved"));
	json_t *mb = json_object_get(hw, "mb_max");
	if (json_is_object(mb))
		fprintf(out, ", MB in %s, %s", str(mb, "steps"),
			json_is_true(json_object_get(hw, "has_mb_min")) ? "with a minimum (mb_min)" : "no mb_min");
	else
		fprintf(out, ", no MB control");
	if (num(hw, "cbm_bits"))
		fprintf(out, ", %lld cache portion bits\n", num(hw, "cbm_bits"));
	else
		fprintf(out, ", no cache portion control\n");
}

/* "capacity: domain 0 30000 MB/s (ACPI HMAT), domain 1 unknown (learned from the totals seen)". */
static void print_capacity(FILE *out, json_t *capacity)
{
	json_t *d;
	size_t i;

	json_array_foreach(capacity, i, d) {
		fprintf(out, "%s domain %lld ", i ? "," : "capacity:", num(d, "domain"));
		if (json_is_number(json_object_get(d, "capacity_mbps")))
			fprintf(out, "%.0f MB/s (%s)", json_number_value(json_object_get(d, "capacity_mbps")),
				str(d, "source"));
		else
			fprintf(out, "unknown (learned from the totals seen)");
	}
	if (json_array_size(capacity))
		fprintf(out, "\n");
}

static void print_rounding(FILE *out, json_t *r)
{
	json_t *from = json_object_get(r, "from"), *to = json_object_get(r, "to");

	if (json_is_string(from))
		fprintf(out, "  %s %s -> %s (%s)", str(r, "limit"), json_string_value(from), json_string_value(to),
			str(r, "why"));
	else
		fprintf(out, "  %s %g%% -> %g%% (%s)", str(r, "limit"), json_number_value(from), json_number_value(to),
			str(r, "why"));
	if (json_object_get(r, "domain"))
		fprintf(out, " on domain %lld", num(r, "domain"));
	fprintf(out, "\n");
}

/* Writes that follow each other to one file for one process (its threads' ids, to tasks). */
static bool same_run(json_t *a, json_t *b)
{
	return a && b && !strcmp(str(a, "what"), str(b, "what")) && !strcmp(str(a, "path"), str(b, "path")) &&
	       json_equal(json_object_get(a, "pid"), json_object_get(b, "pid"));
}

static void print_value_lines(FILE *out, const char *path, const char *value)
{
	const char *nl = strchr(value, '\n');

	if (!nl) {
		fprintf(out, "  write %s: %s\n", path, value);
		return;
	}
	/* schemata: several lines in one write */
	fprintf(out, "  write %s:\n", path);
	for (const char *line = value; line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		fprintf(out, "    %.*s\n", nl ? (int)(nl - line) : (int)strlen(line), line);
	}
}

/* One write, or a run of them as one line: "write .../tasks: 42 43 44 (3 threads of pid 42, ...)". */
static size_t print_file_writes(FILE *out, json_t *writes, size_t first)
{
	json_t *w = json_array_get(writes, first);
	json_t *pid = json_object_get(w, "pid");
	size_t n = 1;

	while (same_run(w, json_array_get(writes, first + n)))
		n++;
	if (!pid) {
		print_value_lines(out, str(w, "path"), str(w, "value"));
		return 1;
	}
	fprintf(out, "  write %s:", str(w, "path"));
	for (size_t i = 0; i < n && i < TEXT_VALUES_MAX; i++)
		fprintf(out, " %s", str(json_array_get(writes, first + i), "value"));
	fprintf(out, "%s (%zu thread%s of pid %lld%s)\n", n > TEXT_VALUES_MAX ? " ..." : "", n, n == 1 ? "" : "s",
		(long long)json_integer_value(pid), n == 1 ? "" : ", one write each");
	return n;
}

static void print_writes(FILE *out, json_t *writes)
{
	for (size_t i = 0; i < json_array_size(writes);) {
		json_t *w = json_array_get(writes, i);
		if (json_object_get(w, "msc")) {
			fprintf(out, "  msc %s RIS %lld PARTID %lld", str(w, "msc"), num(w, "ris"), num(w, "partid"));
			if (json_object_get(w, "intpartid"))
				fprintf(out, " (intPARTID %lld)", num(w, "intpartid"));
			fprintf(out, ": %s = %s\n", str(w, "what"), str(w, "value"));
			i++;
		} else if (!strcmp(str(w, "what"), "mkdir")) {
			fprintf(out, "  mkdir %s\n", str(w, "path"));
			i++;
		} else {
			i += print_file_writes(out, writes, i);
		}
	}
	if (json_is_array(writes) && !json_array_size(writes))
		fprintf(out, "  nothing to write\n");
}

/* "  mb_max 50% = 1024 units = 128000 MB/s a domain: no throttling expected on this host (it carries
 * 40000 MB/s)": said where the hardware's units or MB/s add something to the percent. */
static void print_ceiling(FILE *out, json_t *c)
{
	json_t *mbps = json_object_get(c, "mbps"), *cap = json_object_get(c, "capacity_mbps");
	const char *value = str(c, "value");
	double pct = json_number_value(json_object_get(c, "pct"));

	/* No limit on a relative ladder says nothing new; on an absolute one it says how much that is. */
	if (!json_is_object(c) || (pct >= 100 && !json_is_true(json_object_get(c, "absolute"))) ||
	    (!value[0] && !json_is_number(mbps)))
		return;
	fprintf(out, "  mb_max %g%%", pct);
	if (value[0])
		fprintf(out, " = %s", value);
	if (json_is_number(mbps))
		fprintf(out, " = %.0f MB/s a domain", json_number_value(mbps));
	if (json_is_false(json_object_get(c, "throttles")))
		fprintf(out, ": no throttling expected on this host (a domain carries %.0f MB/s)",
			json_number_value(cap));
	fputc('\n', out);
}

static void print_partition(FILE *out, json_t *p)
{
	size_t i;
	json_t *item;

	if (!strcmp(str(p, "verdict"), "refused")) {
		fprintf(out, "partition %s: refused: %s\n", str(p, "name"), str(p, "reason"));
		return;
	}
	fprintf(out, "partition %s: ok\n", str(p, "name"));
	json_array_foreach(json_object_get(p, "rounding"), i, item)
		print_rounding(out, item);
	print_ceiling(out, json_object_get(p, "ceiling"));
	json_array_foreach(json_object_get(p, "notes"), i, item)
		fprintf(out, "  %s\n", json_string_value(item));
	print_writes(out, json_object_get(p, "writes"));
}

static void print_result(FILE *out, json_t *report)
{
	size_t i, refused = 0;
	json_t *p;

	json_array_foreach(json_object_get(report, "partitions"), i, p)
		refused += strcmp(str(p, "verdict"), "ok") != 0;
	if (json_is_true(json_object_get(report, "can_hold"))) {
		fprintf(out, "result: the host can hold every partition; nothing was written\n");
		return;
	}
	fprintf(out, "result: refused:");
	if (refused)
		fprintf(out, " %zu of %zu partitions", refused, json_array_size(json_object_get(report, "partitions")));
	if (json_array_size(json_object_get(report, "refused")))
		fprintf(out, "%s the partition count", refused ? " and" : "");
	fprintf(out, "; nothing was written\n");
}

void check_host_print(FILE *out, json_t *report)
{
	size_t i;
	json_t *item;

	print_hardware(out, str(report, "backend"), json_object_get(report, "hardware"));
	print_capacity(out, json_object_get(report, "capacity"));
	json_array_foreach(json_object_get(report, "partitions"), i, item)
		print_partition(out, item);
	classes_plan_print(out, json_object_get(report, "classes"));
	json_array_foreach(json_object_get(report, "refused"), i, item)
		fprintf(out, "host: refused: %s\n", json_string_value(item));
	print_result(out, report);
}
