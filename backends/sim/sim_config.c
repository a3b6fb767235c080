#include "backends/sim/sim_config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config/config.h"

#define DEMAND_TICK_MAX	 (UINT64_C(1) << 40)
#define SIM_BACKEND	 "sim"
#define SIM_DEFAULT_IIDR 0x0000043bu /* implementer Arm, product 0, as the register model's default */

void sim_config_defaults(struct sim_config *s)
{
	*s = (struct sim_config){
		.mscs = 1,
		.capacity_mbps = 20000,
		.monitors = 16,
		.counter_bits = 44,
		.scale = 0,
		.bwa_wd = 8,
		.nrdy_ticks = 1,
		.nrdy = SIM_NRDY_HARDWARE,
		.iidr = SIM_DEFAULT_IIDR,
		.partid_max = 63,
		.seed = 1,
		.noise_pct = 0,
		.mb_curve = { .count = 0 },
		.mbw_min = true,
	};
}

static void sim_init(void *data)
{
	sim_config_defaults(data);
}

/* MBWU counters are 31 bits, or 44 or 63 bits long (MSMON_MBWU_L). */
static int counter_bits_parse(void *object, const struct config_key *key, const char *value, struct err *err)
{
	uint64_t bits;
	int r = parse_uint(value, 0, 64, &bits, err);

	(void)key;
	if (r == 0 && bits != 31 && bits != 44 && bits != 63)
		r = err_set(err, -EINVAL, "expected 31, 44 or 63 (the MBWU counter widths)");
	if (r == 0)
		((struct sim_config *)object)->counter_bits = (unsigned)bits;
	return r;
}

static const struct config_type counter_bits_type = { counter_bits_parse, config_unsigned_format,
						      config_unsigned_to_json };

/* ---- mb_curve = PCT:FRACTION ... (mb_curve.h) ---- */

static int curve_parse(void *object, const struct config_key *key, const char *value, struct err *err)
{
	(void)key;
	return mb_curve_parse(value, &((struct sim_config *)object)->mb_curve, err);
}

static bool curve_format(const void *object, const struct config_key *key, char *buf, size_t len)
{
	(void)key;
	return mb_curve_format(&((const struct sim_config *)object)->mb_curve, buf, len);
}

static json_t *curve_to_json(const void *object, const struct config_key *key)
{
	const struct mb_curve *c = &((const struct sim_config *)object)->mb_curve;
	json_t *points = json_array();

	(void)key;
	for (size_t i = 0; i < c->count; i++)
		json_array_append_new(
			points, json_pack("{s:f,s:f}", "pct", c->points[i].pct, "fraction", c->points[i].fraction));
	return points;
}

static const struct config_type curve_type = { curve_parse, curve_format, curve_to_json };

#define SIM_FIELD(field) CONFIG_FIELD(struct sim_config, field)

static const char *const sim_nrdy_names[] = { "hardware", "software", NULL };
/* Indexed by enum mpam_max_lim. */
static const char *const sim_max_lim_names[] = { "either", "soft", "hard", NULL };

static const struct config_key sim_keys[] = {
	{ "mscs", &config_type_unsigned, SIM_FIELD(mscs), 1, 64, NULL, 0 },
	{ "capacity_mbps", &config_type_unsigned, SIM_FIELD(capacity_mbps), 1, BANDWIDTH_LIMIT_MBPS, NULL, 0 },
	{ "monitors", &config_type_unsigned, SIM_FIELD(monitors), 0, 65535, NULL, 0 },
	{ "counter_bits", &counter_bits_type, SIM_FIELD(counter_bits), 0, 64, NULL, 0 },
	{ "scale", &config_type_unsigned, SIM_FIELD(scale), 0, 31, NULL, 0 },
	{ "bwa_wd", &config_type_unsigned, SIM_FIELD(bwa_wd), 1, 16, NULL, 0 },
	{ "nrdy_ticks", &config_type_unsigned, SIM_FIELD(nrdy_ticks), 0, 1000, NULL, 0 },
	{ "nrdy", &config_type_enum, SIM_FIELD(nrdy), 0, 0, sim_nrdy_names, 0 },
	{ "iidr", &config_type_hex, SIM_FIELD(iidr), 0, UINT32_MAX, NULL, 0 },
	{ "partid_max", &config_type_unsigned, SIM_FIELD(partid_max), 0, PARTID_LIMIT, NULL, 0 },
	{ "seed", &config_type_unsigned, SIM_FIELD(seed), 0, UINT64_MAX, NULL, 0 },
	{ "noise_pct", &config_type_unsigned, SIM_FIELD(noise_pct), 0, 50, NULL, 0 },
	{ "measure_noise_pct", &config_type_unsigned, SIM_FIELD(measure_noise_pct), 0, SIM_MEASURE_NOISE_PCT_MAX, NULL,
	  0 },
	{ "delay_ticks", &config_type_unsigned, SIM_FIELD(delay_ticks), 0, SIM_DELAY_TICKS_MAX, NULL, 0 },
	{ "mb_curve", &curve_type, 0, 0, 0, 0, NULL, 0 },
	CONFIG_KEY_BOOL("mbw_min", struct sim_config, mbw_min, 0),
	CONFIG_KEY_ENUM("max_lim", struct sim_config, max_lim, sim_max_lim_names, 0),
	CONFIG_KEY_BOOL("mbw_prop", struct sim_config, mbw_prop, 0),
	{ "mbw_pbm_bits", &config_type_unsigned, SIM_FIELD(mbw_pbm_bits), 0, 4096, NULL, 0 },
	{ "partid_nrw", &config_type_unsigned, SIM_FIELD(partid_nrw), 0, PARTID_LIMIT + 1, NULL, 0 },
	{ "preload_mbw_prop", &sim_preload_decimal_type, SIM_FIELD(preload_mbw_prop), 1, 100, NULL, 0 },
	{ "preload_mbw_pbm", &sim_preload_hex_type, SIM_FIELD(preload_mbw_pbm), 0, UINT64_MAX, NULL, 0 },
};

/* ---- sim_demand = MBPS, or MBPS@TICK MBPS@TICK ... with ticks strictly increasing ---- */

static int parse_demand_point(const char *item, struct demand_point *pt, struct err *e)
{
	char buf[64];
	uint64_t v;

	if (strlen(item) >= sizeof(buf))
		return err_set(e, -EINVAL, "demand point too long");
	snprintf(buf, sizeof(buf), "%s", item);
	char *at = strchr(buf, '@');
	if (at)
		*at = '\0';
	int r = parse_uint(buf, 0, BANDWIDTH_LIMIT_MBPS, &v, e);
	if (r < 0)
		return r;
	pt->mbps = (uint32_t)v;
	pt->tick = 0;
	if (at)
		return parse_uint(at + 1, 0, DEMAND_TICK_MAX, &pt->tick, e);
	return 0;
}

/* The next point of `d` from `item`, checked against the points before it. */
static int add_demand_point(struct demand_profile *d, const char *item, bool has_at, struct err *e)
{
	struct demand_point *grown = realloc(d->points, (d->count + 1) * sizeof(*grown));
	struct err inner = { "" };

	if (!grown)
		return err_set(e, -ENOMEM, "out of memory");
	d->points = grown;
	int r = parse_demand_point(item, &d->points[d->count], &inner);
	if (r < 0)
		r = err_set(e, r, "point %zu '%.63s': %.80s", d->count + 1, item, inner.text);
	else if (has_at && !strchr(item, '@'))
		r = err_set(e, -EINVAL, "a profile needs MBPS@TICK at every point");
	else if (d->count > 0 && d->points[d->count].tick <= d->points[d->count - 1].tick)
		r = err_set(e, -EINVAL, "ticks must increase from one point to the next");
	d->count++;
	return r;
}

static int demand_parse(void *object, const struct config_key *key, const char *v, struct err *e)
{
	struct demand_profile d = { 0 };
	bool has_at = strchr(v, '@') != NULL;
	int r = 0;

	(void)key;
	for (const char *p = v + strspn(v, ", \t"); *p && r == 0; p += strspn(p, ", \t")) {
		size_t len = strcspn(p, ", \t");
		char item[64];
		if (len >= sizeof(item)) {
			r = err_set(e, -EINVAL, "a demand point is at most 63 characters");
			break;
		}
		memcpy(item, p, len);
		item[len] = '\0';
		p += len;
		r = add_demand_point(&d, item, has_at, e);
	}
	if (r == 0 && d.count == 0)
		r = err_set(e, -EINVAL, "expected MBPS or MBPS@TICK ...");
	if (r < 0) {
		free(d.points);
		return r;
	}
	struct sim_partition_config *sp = object;
	free(sp->demand.points);
	sp->demand = d;
	return 0;
}

static bool demand_format(const void *object, const struct config_key *key, char *buf, size_t len)
{
	const struct demand_profile *d = &((const struct sim_partition_config *)object)->demand;
	size_t used = 0;

	(void)key;
	if (!d->count)
		return false;
	buf[0] = '\0';
	for (size_t i = 0; i < d->count && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%" PRIu32 "@%" PRIu64, i ? "," : "",
					 d->points[i].mbps, d->points[i].tick);
	return true;
}

static json_t *demand_to_json(const void *object, const struct config_key *key)
{
	const struct demand_profile *d = &((const struct sim_partition_config *)object)->demand;
	json_t *points = json_array();

	(void)key;
	for (size_t i = 0; i < d->count; i++)
		json_array_append_new(points, json_pack("{s:I,s:I}", "tick", (json_int_t)d->points[i].tick, "mbps",
							(json_int_t)d->points[i].mbps));
	return points;
}

static const struct config_type demand_type = { demand_parse, demand_format, demand_to_json };

/* ---- sim_domains = D,D,... : a set of domain ids below SIM_DOMAINS_MAX ---- */

static int domains_parse(void *object, const struct config_key *key, const char *v, struct err *e)
{
	uint64_t *ids = NULL, mask = 0;
	size_t count = 0;
	int r = parse_uint_list(v, 0, SIM_DOMAINS_MAX - 1, &ids, &count, e);

	(void)key;
	for (size_t i = 0; r == 0 && i < count; i++) {
		if (mask & (UINT64_C(1) << ids[i]))
			r = err_set(e, -EINVAL, "domain %" PRIu64 " is named twice", ids[i]);
		mask |= UINT64_C(1) << ids[i];
	}
	if (r == 0 && count == 0)
		r = err_set(e, -EINVAL, "expected a list of domain ids");
	free(ids);
	if (r == 0)
		((struct sim_partition_config *)object)->domains = mask;
	return r;
}

static bool domains_format(const void *object, const struct config_key *key, char *buf, size_t len)
{
	uint64_t mask = ((const struct sim_partition_config *)object)->domains;
	size_t used = 0;

	(void)key;
	if (!mask)
		return false;
	buf[0] = '\0';
	for (unsigned d = 0; d < SIM_DOMAINS_MAX && used < len; d++)
		if (mask & (UINT64_C(1) << d))
			used += (size_t)snprintf(buf + used, len - used, "%s%u", used ? "," : "", d);
	return true;
}

static json_t *domains_to_json(const void *object, const struct config_key *key)
{
	uint64_t mask = ((const struct sim_partition_config *)object)->domains;

	(void)key;
	if (!mask)
		return json_null(); /* every domain */
	json_t *ids = json_array();
	for (unsigned d = 0; d < SIM_DOMAINS_MAX; d++)
		if (mask & (UINT64_C(1) << d))
			json_array_append_new(ids, json_integer(d));
	return ids;
}

static const struct config_type domains_type = { domains_parse, domains_format, domains_to_json };

/* ---- sim_burst = PERIOD_MS:DUTY[:PHASE_MS] (burst.h) ---- */

static int burst_key_parse(void *object, const struct config_key *key, const char *v, struct err *e)
{
	(void)key;
	return burst_parse(v, &((struct sim_partition_config *)object)->burst, e);
}

static bool burst_key_format(const void *object, const struct config_key *key, char *buf, size_t len)
{
	(void)key;
	return burst_format(&((const struct sim_partition_config *)object)->burst, buf, len);
}

static json_t *burst_to_json(const void *object, const struct config_key *key)
{
	const struct burst *b = &((const struct sim_partition_config *)object)->burst;

	(void)key;
	if (!b->period_ms)
		return json_null();
	return json_pack("{s:I,s:f,s:I}", "period_ms", (json_int_t)b->period_ms, "duty", b->duty, "phase_ms",
			 (json_int_t)b->phase_ms);
}

static const struct config_type burst_type = { burst_key_parse, burst_key_format, burst_to_json };

#define SIM_PART_FIELD(field) CONFIG_FIELD(struct sim_partition_config, field)

/* Decimal bounds are in thousandths: sim_ipc 0.01..16, sim_ipc_sensitivity 0..1. */
static const struct config_key sim_partition_keys[] = {
	{ "sim_demand", &demand_type, 0, 0, 0, 0, NULL, 0 },
	{ "sim_ipc", &config_type_decimal, SIM_PART_FIELD(ipc), 10, 16000, NULL, 0 },
	{ "sim_ipc_sensitivity", &config_type_decimal, SIM_PART_FIELD(ipc_sensitivity), 0, 1000, NULL, 0 },
	{ "sim_domains", &domains_type, 0, 0, 0, 0, NULL, 0 },
	{ "sim_burst", &burst_type, 0, 0, 0, 0, NULL, 0 },
};

/* What a partition that sets no simulator key has (it has no data of its own). */
static const struct sim_partition_config sim_partition_defaults = {
	.ipc = SIM_IPC_DEFAULT,
	.ipc_sensitivity = SIM_IPC_SENSITIVITY_DEFAULT,
};

static void sim_partition_init(void *data)
{
	*(struct sim_partition_config *)data = sim_partition_defaults;
}

static void sim_partition_fini(void *data)
{
	free(((struct sim_partition_config *)data)->demand.points);
}

/* The simulator needs a PARTID for every partition: give the lowest free one from 1 up (PARTID 0 is
 * the default partition that everything else runs in). One pass over a table of the PARTIDs in use. */
static void assign_partids(struct config *c, const struct sim_config *s, struct diag_list *d)
{
	bool *used = calloc(UINT16_MAX + 1u, sizeof(*used));
	unsigned next = 1;

	if (!used) {
		diag_add(d, DIAG_ERROR, 0, "out of memory assigning PARTIDs");
		return;
	}
	for (size_t i = 0; i < c->partition_count; i++)
		if (c->partitions[i].has_partid)
			used[c->partitions[i].partid] = true;
	for (size_t i = 0; i < c->partition_count; i++) {
		struct partition_config *p = &c->partitions[i];
		if (p->has_partid)
			continue;
		while (next <= sim_config_partid_usable(s) && used[next])
			next++;
		if (next > sim_config_partid_usable(s)) {
			diag_add(d, DIAG_ERROR, p->origin.line, "no free PARTID for partition \"%s\" (%s is %u)",
				 p->name, s->partid_nrw ? "the last intPARTID" : "partid_max",
				 sim_config_partid_usable(s));
			continue;
		}
		used[next] = true;
		p->partid = (uint16_t)next;
		p->has_partid = true;
		p->partid_auto = true;
	}
	free(used);
}

/* Domains are the simulated MSCs: a partition cannot send traffic to one that is not there. */
static void check_domains(const struct config *c, const struct partition_config *p, const struct sim_config *s,
			  struct diag_list *d)
{
	uint64_t domains = sim_partition_of(c, p)->domains;
	uint64_t present = s->mscs >= SIM_DOMAINS_MAX ? UINT64_MAX : (UINT64_C(1) << s->mscs) - 1;

	if (domains & ~present)
		diag_add(d, DIAG_ERROR, config_partition_key_line(c, p, "sim_domains"),
			 "sim_domains of partition \"%s\" names domain %d, but [sim] mscs = %u makes domains 0..%u",
			 p->name, __builtin_ctzll(domains & ~present), s->mscs, s->mscs - 1);
}

unsigned sim_config_partid_usable(const struct sim_config *s)
{
	return s->partid_nrw && s->partid_nrw - 1 < s->partid_max ? s->partid_nrw - 1 : s->partid_max;
}

/* Preloads name PARTIDs an earlier owner could have configured, on controls the MSCs have. */
static void check_preloads(const struct config *c, const struct sim_config *s, const struct sim_preloads *list,
			   const char *key, bool present, const char *needs, struct diag_list *d)
{
	unsigned line = config_ext_key_line(c, &sim_config_ext, key);

	if (list->count && !present)
		diag_add(d, DIAG_ERROR, line, "%s needs %s", key, needs);
	for (unsigned i = 0; i < list->count; i++)
		if (list->at[i].partid > sim_config_partid_usable(s))
			diag_add(d, DIAG_ERROR, line, "%s names PARTID %u, above the simulated %s %u", key,
				 list->at[i].partid, s->partid_nrw ? "last intPARTID" : "partid_max",
				 sim_config_partid_usable(s));
}

/* The simulated MSCs' features fit together. */
static void check_msc_features(const struct config *c, const struct sim_config *s, struct diag_list *d)
{
	if (s->partid_nrw > s->partid_max + 1u)
		diag_add(d, DIAG_ERROR, config_ext_key_line(c, &sim_config_ext, "partid_nrw"),
			 "partid_nrw = %u: an MSC narrows PARTIDs 0..%u to fewer intPARTIDs, at most %u", s->partid_nrw,
			 s->partid_max, s->partid_max + 1);
	check_preloads(c, s, &s->preload_mbw_prop, "preload_mbw_prop", s->mbw_prop, "mbw_prop = yes", d);
	check_preloads(c, s, &s->preload_mbw_pbm, "preload_mbw_pbm", s->mbw_pbm_bits > 0, "mbw_pbm_bits", d);
}

static void sim_check(struct config *c, struct diag_list *d)
{
	const struct sim_config *s = sim_config_of(c);

	if (strcmp(c->global.backend, SIM_BACKEND))
		return;
	check_msc_features(c, s, d);
	if (c->msc_count > 0)
		diag_add(d, DIAG_WARNING, c->mscs[0].origin.line,
			 "[msc] sections are not used with backend = sim ([sim] mscs sets the simulated MSCs)");
	for (size_t i = 0; i < c->partition_count; i++) {
		const struct partition_config *p = &c->partitions[i];
		if (p->has_partid && p->partid > sim_config_partid_usable(s))
			diag_add(d, DIAG_ERROR, config_partition_key_line(c, p, "partid"),
				 "partid %u is above the simulated %s %u", p->partid,
				 s->partid_nrw ? "last intPARTID (partid_nrw)" : "partid_max",
				 sim_config_partid_usable(s));
		check_domains(c, p, s, d);
	}
	for (size_t i = 0; i < c->template_count; i++)
		diag_add(d, DIAG_ERROR, c->templates[i].partition.origin.line,
			 "vm-template \"%s\" needs backend = resctrl: the simulator's PARTIDs are picked when the "
			 "file is read, before any VM runs",
			 c->templates[i].name);
	assign_partids(c, s, d);
}

static const struct config_section_def sim_section = { "sim", false, sim_keys, sizeof(sim_keys) / sizeof(sim_keys[0]) };

const struct config_ext sim_config_ext = {
	.name = "sim",
	.section = &sim_section,
	.size = sizeof(struct sim_config),
	.init = sim_init,
	.partition_keys = sim_partition_keys,
	.partition_key_count = sizeof(sim_partition_keys) / sizeof(sim_partition_keys[0]),
	.partition_size = sizeof(struct sim_partition_config),
	.partition_defaults = &sim_partition_defaults,
	.partition_init = sim_partition_init,
	.partition_fini = sim_partition_fini,
	.check = sim_check,
};

const struct sim_config *sim_config_of(const struct config *config)
{
	return config_ext_data(config, &sim_config_ext);
}

const struct demand_profile *sim_partition_demand(const struct config *config, const struct partition_config *p)
{
	return &sim_partition_of(config, p)->demand;
}

const struct sim_partition_config *sim_partition_of(const struct config *config, const struct partition_config *p)
{
	const struct sim_partition_config *sp = config_partition_ext(config, p, &sim_config_ext);

	return sp ? sp : &sim_partition_defaults; /* a schema without the simulator */
}

double sim_ipc_model(const struct sim_partition_config *sp, double demanded_mbps, double served_mbps)
{
	double shortfall = demanded_mbps > 0 ? 1 - served_mbps / demanded_mbps : 0;

	shortfall = shortfall < 0 ? 0 : (shortfall > 1 ? 1 : shortfall);
	return sp->ipc * (1 - sp->ipc_sensitivity * shortfall);
}

uint32_t demand_profile_at(const struct demand_profile *d, uint64_t tick)
{
	uint32_t mbps = 0;

	for (size_t i = 0; i < d->count && d->points[i].tick <= tick; i++)
		mbps = d->points[i].mbps;
	return mbps;
}

unsigned sim_partition_domain_count(const struct sim_partition_config *sp, unsigned count)
{
	uint64_t present = count >= SIM_DOMAINS_MAX ? UINT64_MAX : (UINT64_C(1) << count) - 1;

	return sp->domains ? (unsigned)__builtin_popcountll(sp->domains & present) : count;
}
