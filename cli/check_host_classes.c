/* check-config --host's plan of classes: policies/class_assign run on the configured ceilings, as the
 * engine runs it on the policies' (core/engine/engine_classes.c), with the host's room read before any
 * partition is planned. */
#include "cli/check_host_classes.h"

#include <stdlib.h>
#include <string.h>

#include "core/engine/domain_limits.h"
#include "core/report/json_pct.h"
#include "policies/class_assign.h"

/* Names of a class's partitions said in the text; JSON has them all. */
#define TEXT_NAMES_MAX 8

void classes_host_read(const struct control_ops *ops, struct control *control, const struct control_caps *caps,
		       struct classes_host *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->hardware =
		caps->partitions_max > caps->partitions_reserved ? caps->partitions_max - caps->partitions_reserved : 0;
	/* under the kernel's MB/s controller each partition keeps a class of its own (engine_classes_start) */
	ret->can_share = ops->classes && !caps->mb_kernel_mbps;
	if (ret->can_share)
		ops->classes->room(control, true, &ret->room);
}

bool classes_host_shared(const struct config *config, const struct classes_host *host)
{
	unsigned mode = config->global.classes;

	if (!host->can_share || mode == CLASSES_OWN)
		return false;
	return mode == CLASSES_SHARED || config->partition_count > host->hardware;
}

/* ---- the partitions' configured ceilings ---- */

struct wanted {
	struct class_want *wants;
	double *ceilings;  /* count x domains */
	size_t *config_of; /* the partition each want is */
	size_t count;
	unsigned domains;
};

static void wanted_fini(struct wanted *w)
{
	free(w->wants);
	free(w->ceilings);
	free(w->config_of);
}

/* Partition p's ceiling on each domain, on the rungs the control holds; false where its goals do not
 * fit the host (its own plan says why). */
static bool configured_ceilings(const struct config *config, const struct control_caps *caps,
				const struct partition_config *p, unsigned domains, double *ret)
{
	struct partition_limits l = { 0 };
	struct partition_goals_buf buf;
	struct err err = { "" };

	const struct partition_goals *g = domain_limits_configured(caps, &config->global, &p->goals, &buf, &l, &err);

	if (!g)
		return false;
	for (unsigned d = 0; d < domains; d++)
		ret[d] = caps->domain_count ? limits_max_at(&l, d) : control_snap_max(&caps->max_ladder, g->mb_max);
	return true;
}

static bool wanted_gather(const struct config *config, const struct control_caps *caps, struct wanted *w)
{
	size_t n = config->partition_count ? config->partition_count : 1;

	w->domains = caps->domain_count ? caps->domain_count : 1;
	w->wants = calloc(n, sizeof(*w->wants));
	w->ceilings = calloc(n * w->domains, sizeof(*w->ceilings));
	w->config_of = calloc(n, sizeof(*w->config_of));
	if (!w->wants || !w->ceilings || !w->config_of)
		return false;
	for (size_t i = 0; i < config->partition_count; i++) {
		const struct partition_config *p = &config->partitions[i];
		double *at = &w->ceilings[w->count * w->domains];
		if (!configured_ceilings(config, caps, p, w->domains, at))
			continue;
		w->wants[w->count] = (struct class_want){
			.mb_max_at = at,
			.protected_ = p->goals.class == CLASS_LATENCY_CRITICAL || p->goals.guarantee_mbps > 0,
			.previous = -1,
		};
		w->config_of[w->count++] = i;
	}
	return true;
}

/* ---- the plan ---- */

static json_t *class_json(const struct config *config, const struct wanted *w, const struct class_assignment *a,
			  unsigned k)
{
	json_t *names = json_array(), *limits = json_array();

	for (unsigned d = 0; d < w->domains; d++)
		json_array_append_new(limits, json_pct(a->limits[(size_t)k * w->domains + d]));
	for (size_t j = 0; j < w->count; j++)
		if (a->class_of[j] == (int)k)
			json_array_append_new(names, json_string(config->partitions[w->config_of[j]].name));
	return json_pack("{s:I,s:o,s:o}", "class", (json_int_t)k, "mb_max", limits, "partitions", names);
}

/* What shared classes would need of the RMIDs: one a partition (its monitoring group), one a class
 * group. */
static json_t *rmids_json(const struct classes_host *host, size_t partitions, unsigned classes)
{
	const struct class_room *r = &host->room;

	if (!r->monitors_counted)
		return json_null();
	return json_pack("{s:I,s:I,s:I}", "total", (json_int_t)r->monitors, "left",
			 (json_int_t)(r->monitors > r->monitors_used ? r->monitors - r->monitors_used : 0), "needed",
			 (json_int_t)(partitions + classes));
}

static bool rmids_enough(json_t *rmids)
{
	return !json_is_object(rmids) || json_integer_value(json_object_get(rmids, "needed")) <=
						 json_integer_value(json_object_get(rmids, "left"));
}

/* classes = own (or auto) with more partitions than CLOSIDs left: what shared classes would do. */
static json_t *advice(const struct config *config, bool shared, unsigned left, unsigned used, json_t *rmids)
{
	if (shared || config->partition_count <= left)
		return json_null();
	if (!rmids_enough(rmids))
		return json_sprintf(
			"classes = %s: %zu partitions, %u CLOSIDs left; classes = shared would need "
			"%lld RMIDs (a monitoring group each, and the class groups), the host has %lld left",
			classes_mode_names[config->global.classes], config->partition_count, left,
			json_integer_value(json_object_get(rmids, "needed")),
			json_integer_value(json_object_get(rmids, "left")));
	return json_sprintf("classes = %s: %zu partitions, %u CLOSIDs left, so %zu cannot open; classes = shared "
			    "would open them all, in %u shared classes, each partition measured by itself",
			    classes_mode_names[config->global.classes], config->partition_count, left,
			    config->partition_count - left, used);
}

static json_t *plan_json(const struct config *config, const struct classes_host *host, const struct wanted *w,
			 unsigned distinct, const struct class_assignment *a, unsigned budget)
{
	bool shared = classes_host_shared(config, host);
	json_t *classes = json_array(), *rmids = rmids_json(host, w->count, a->classes_used);

	for (unsigned k = 0; shared && k < budget; k++)
		if (a->used[k])
			json_array_append_new(classes, class_json(config, w, a, k));
	json_t *plan = json_pack("{s:s,s:b,s:I,s:I,s:I,s:I,s:I}", "mode", classes_mode_names[config->global.classes],
				 "shared", shared, "closids", (json_int_t)host->hardware, "classes_left",
				 (json_int_t)budget, "partitions", (json_int_t)w->count, "distinct_limits",
				 (json_int_t)distinct, "classes_used", (json_int_t)a->classes_used);
	json_object_set_new(plan, "sharing", json_boolean(w->count > a->classes_used));
	json_object_set_new(plan, "quantised", json_boolean(distinct > budget));
	json_object_set_new(plan, "deviation_pct_points", json_pct(a->deviation));
	json_object_set_new(plan, "domains", json_integer(w->domains));
	json_object_set_new(plan, "advice", advice(config, shared, budget, a->classes_used, rmids));
	json_object_set_new(plan, "rmids", rmids);
	json_object_set_new(plan, "classes", classes);
	return plan;
}

/* The distinct ceilings (classes enough for each its own), then the assignment into `budget`. */
static int assign(const struct wanted *w, unsigned budget, unsigned *distinct, struct class_assignment *a)
{
	struct class_assignment all = { 0 };
	struct err err = { "" };
	int r = class_assign(w->wants, w->count, w->domains, (unsigned)w->count, NULL, 0, &all, &err);

	*distinct = all.classes_used;
	class_assignment_fini(&all);
	if (r == 0)
		r = class_assign(w->wants, w->count, w->domains, budget, NULL, 0, a, &err);
	return r;
}

json_t *classes_plan(const struct config *config, const struct control_caps *caps, const struct classes_host *host,
		     json_t *refused)
{
	struct wanted w = { 0 };
	struct class_assignment a = { 0 };
	unsigned distinct = 0, budget = host->room.left;
	json_t *plan = NULL;

	if (!host->can_share)
		return json_null();
	if (!wanted_gather(config, caps, &w))
		plan = json_pack("{s:s}", "error", "out of memory");
	else if (!w.count || !budget || assign(&w, budget, &distinct, &a) < 0)
		plan = json_pack("{s:s,s:b,s:I,s:I,s:I}", "mode", classes_mode_names[config->global.classes], "shared",
				 classes_host_shared(config, host), "closids", (json_int_t)host->hardware,
				 "classes_left", (json_int_t)budget, "partitions", (json_int_t)w.count);
	else
		plan = plan_json(config, host, &w, distinct, &a, budget);
	json_t *rmids = json_object_get(plan, "rmids");
	if (json_is_true(json_object_get(plan, "shared")) && !rmids_enough(rmids))
		json_array_append_new(refused,
				      json_sprintf("classes = shared: %zu partitions and %lld class groups need %lld "
						   "RMIDs, the host has %lld left: the partitions past them cannot be "
						   "measured and do not open",
						   w.count, json_integer_value(json_object_get(plan, "classes_used")),
						   json_integer_value(json_object_get(rmids, "needed")),
						   json_integer_value(json_object_get(rmids, "left"))));
	class_assignment_fini(&a);
	wanted_fini(&w);
	return plan;
}

/* ---- text ---- */

static long long num(json_t *obj, const char *key)
{
	return (long long)json_integer_value(json_object_get(obj, key));
}

/* "20%" where every domain holds the same, else "30%,50%" in the domains' order. */
static void print_limits(FILE *out, json_t *limits)
{
	bool uniform = true;
	json_t *v;
	size_t i;

	json_array_foreach(limits, i, v)
		uniform &= json_equal(v, json_array_get(limits, 0));
	json_array_foreach(limits, i, v) {
		if (uniform && i)
			break;
		fprintf(out, "%s%.4g%%", i ? "," : "", json_number_value(v));
	}
}

static void print_class(FILE *out, json_t *c)
{
	json_t *names = json_object_get(c, "partitions"), *name;
	size_t i;

	fprintf(out, "  class %lld: mb_max ", num(c, "class"));
	print_limits(out, json_object_get(c, "mb_max"));
	fprintf(out, ": %zu partition%s:", json_array_size(names), json_array_size(names) == 1 ? "" : "s");
	json_array_foreach(names, i, name) {
		if (i == TEXT_NAMES_MAX) {
			fprintf(out, " ...");
			break;
		}
		fprintf(out, " %s", json_string_value(name));
	}
	fputc('\n', out);
}

static void print_shared(FILE *out, json_t *plan)
{
	long long partitions = num(plan, "partitions"), used = num(plan, "classes_used");
	json_t *rmids = json_object_get(plan, "rmids"), *c;
	size_t i;

	fprintf(out,
		"classes: shared (classes = %s): %lld partitions, %lld distinct ceilings, %lld of %lld classes left",
		json_string_value(json_object_get(plan, "mode")), partitions, num(plan, "distinct_limits"),
		num(plan, "classes_left"), num(plan, "closids"));
	if (json_is_true(json_object_get(plan, "sharing")))
		fprintf(out, "\n  partitions share %lld class%s", used, used == 1 ? "" : "es");
	else
		fprintf(out, "\n  each partition in a class of its own (%lld)", used);
	/* the deviation is summed over domains: said for one domain, as a ceiling is */
	double domains = num(plan, "domains") > 0 ? (double)num(plan, "domains") : 1;
	double points = json_number_value(json_object_get(plan, "deviation_pct_points")) / domains;
	if (json_is_true(json_object_get(plan, "quantised")))
		fprintf(out,
			"; quantised: held %.1f percentage points from the ceilings asked (a domain), %.2f a partition",
			points, partitions ? points / (double)partitions : 0);
	fputc('\n', out);
	json_array_foreach(json_object_get(plan, "classes"), i, c)
		print_class(out, c);
	if (json_is_object(rmids))
		fprintf(out, "  RMIDs: %lld needed (%lld partitions, %lld class groups), %lld left of %lld\n",
			num(rmids, "needed"), partitions, used, num(rmids, "left"), num(rmids, "total"));
}

void classes_plan_print(FILE *out, json_t *plan)
{
	json_t *advice = json_object_get(plan, "advice");

	if (!json_is_object(plan))
		return;
	if (json_is_true(json_object_get(plan, "shared")) && json_object_get(plan, "classes_used"))
		print_shared(out, plan);
	else
		fprintf(out,
			"classes: own (classes = %s): each partition a class of its own, %lld of %lld CLOSIDs left\n",
			json_string_value(json_object_get(plan, "mode")), num(plan, "classes_left"),
			num(plan, "closids"));
	if (json_is_string(advice))
		fprintf(out, "  %s\n", json_string_value(advice));
}
