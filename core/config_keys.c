/* The schema: every section's keys and the parser of each. A parser sees one value and stores it;
 * checks that involve several keys or sections live in config_check.c. */
#include "core/config_internal.h"
#include "core/suggest.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SOCKET_PATH_MAX 107 /* sizeof(sockaddr_un.sun_path) - 1 */
#define DEMAND_TICK_MAX (UINT64_C(1) << 40)

static int fail(struct parse_err *err, const char *text)
{
	snprintf(err->text, sizeof(err->text), "%s", text);
	return -EINVAL;
}

static int store_string(char **dst, const char *value, struct parse_err *err)
{
	size_t len = strlen(value);

	if (len == 0)
		return fail(err, "empty value");
	if (len >= 2 && value[0] == '"' && value[len - 1] == '"')
		return fail(err, "values are written without quotes");
	char *copy = strdup(value);
	if (!copy)
		return fail(err, "out of memory");
	free(*dst);
	*dst = copy;
	return 0;
}

static int store_absolute_path(char **dst, const char *value, size_t max_len, struct parse_err *err)
{
	if (value[0] != '/' && value[0] != '\0' && value[0] != '"')
		return fail(err, "must be an absolute path");
	if (strlen(value) > max_len) {
		snprintf(err->text, sizeof(err->text), "path longer than %zu characters", max_len);
		return -EINVAL;
	}
	return store_string(dst, value, err);
}

static int store_u32(uint32_t *dst, const char *value, uint64_t min, uint64_t max, struct parse_err *err)
{
	uint64_t v;
	int r = parse_uint(value, min, max, &v, err);

	if (r == 0)
		*dst = (uint32_t)v;
	return r;
}

static int store_unsigned(unsigned *dst, const char *value, uint64_t min, uint64_t max, struct parse_err *err)
{
	uint64_t v;
	int r = parse_uint(value, min, max, &v, err);

	if (r == 0)
		*dst = (unsigned)v;
	return r;
}

_Static_assert(sizeof(enum backend_kind) == sizeof(unsigned) && sizeof(enum monitor_kind) == sizeof(unsigned) &&
		       sizeof(enum partition_class) == sizeof(unsigned),
	       "store_enum stores enums as unsigned");

static int store_enum(void *dst, const char *value, const char *const *names, struct parse_err *err)
{
	unsigned v;
	int r = parse_enum(value, names, &v, err);

	if (r == 0)
		memcpy(dst, &v, sizeof(v)); /* every enum here has int size */
	return r;
}

/* ---- [global] ---- */

static int key_backend(void *o, const char *v, struct parse_err *e)
{
	return store_enum(&((struct global_config *)o)->backend, v, backend_kind_names, e);
}

static int key_monitor(void *o, const char *v, struct parse_err *e)
{
	return store_enum(&((struct global_config *)o)->monitor, v, monitor_kind_names, e);
}

static int key_interval_ms(void *o, const char *v, struct parse_err *e)
{
	return store_unsigned(&((struct global_config *)o)->interval_ms, v, 10, 60000, e);
}

static int key_resctrl_root(void *o, const char *v, struct parse_err *e)
{
	return store_absolute_path(&((struct global_config *)o)->resctrl_root, v, 4095, e);
}

static int key_socket(void *o, const char *v, struct parse_err *e)
{
	return store_absolute_path(&((struct global_config *)o)->socket, v, SOCKET_PATH_MAX, e);
}

static int key_record(void *o, const char *v, struct parse_err *e)
{
	return store_string(&((struct global_config *)o)->record, v, e);
}

static int key_group_prefix(void *o, const char *v, struct parse_err *e)
{
	struct global_config *g = o;

	if (strlen(v) > GROUP_PREFIX_MAX)
		return fail(e, "at most 32 characters");
	for (const char *c = v; *c; c++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-", *c))
			return fail(e, "only A-Z a-z 0-9 _ . - are allowed");
	snprintf(g->group_prefix, sizeof(g->group_prefix), "%s", v);
	return 0;
}

static int key_global_capacity(void *o, const char *v, struct parse_err *e)
{
	return store_u32(&((struct global_config *)o)->capacity_mbps, v, 1, BANDWIDTH_LIMIT_MBPS, e);
}

static int key_escalate(void *o, const char *v, struct parse_err *e)
{
	return parse_bool(v, &((struct global_config *)o)->escalate, e);
}

static const struct config_key global_keys[] = {
	{ "backend", key_backend },
	{ "monitor", key_monitor },
	{ "interval_ms", key_interval_ms },
	{ "resctrl_root", key_resctrl_root },
	{ "socket", key_socket },
	{ "record", key_record },
	{ "group_prefix", key_group_prefix },
	{ "capacity_mbps", key_global_capacity },
	{ "escalate", key_escalate },
};

/* ---- [sim] ---- */

static int key_mscs(void *o, const char *v, struct parse_err *e)
{
	return store_unsigned(&((struct sim_config *)o)->mscs, v, 1, 64, e);
}

static int key_sim_capacity(void *o, const char *v, struct parse_err *e)
{
	return store_u32(&((struct sim_config *)o)->capacity_mbps, v, 1, BANDWIDTH_LIMIT_MBPS, e);
}

static int key_monitors(void *o, const char *v, struct parse_err *e)
{
	return store_unsigned(&((struct sim_config *)o)->monitors, v, 0, 65535, e);
}

static int key_counter_bits(void *o, const char *v, struct parse_err *e)
{
	unsigned bits;
	int r = store_unsigned(&bits, v, 0, 64, e);

	if (r == 0 && bits != 31 && bits != 44 && bits != 63)
		r = fail(e, "expected 31, 44 or 63 (the MBWU counter widths)");
	if (r == 0)
		((struct sim_config *)o)->counter_bits = bits;
	return r;
}

static int key_scale(void *o, const char *v, struct parse_err *e)
{
	return store_unsigned(&((struct sim_config *)o)->scale, v, 0, 31, e);
}

static int key_bwa_wd(void *o, const char *v, struct parse_err *e)
{
	return store_unsigned(&((struct sim_config *)o)->bwa_wd, v, 1, 16, e);
}

static int key_nrdy_ticks(void *o, const char *v, struct parse_err *e)
{
	return store_unsigned(&((struct sim_config *)o)->nrdy_ticks, v, 0, 1000, e);
}

static int key_partid_max(void *o, const char *v, struct parse_err *e)
{
	return store_unsigned(&((struct sim_config *)o)->partid_max, v, 0, PARTID_LIMIT, e);
}

static int key_seed(void *o, const char *v, struct parse_err *e)
{
	return parse_uint(v, 0, UINT64_MAX, &((struct sim_config *)o)->seed, e);
}

static int key_noise_pct(void *o, const char *v, struct parse_err *e)
{
	return store_unsigned(&((struct sim_config *)o)->noise_pct, v, 0, 50, e);
}

static const struct config_key sim_keys[] = {
	{ "mscs", key_mscs },
	{ "capacity_mbps", key_sim_capacity },
	{ "monitors", key_monitors },
	{ "counter_bits", key_counter_bits },
	{ "scale", key_scale },
	{ "bwa_wd", key_bwa_wd },
	{ "nrdy_ticks", key_nrdy_ticks },
	{ "partid_max", key_partid_max },
	{ "seed", key_seed },
	{ "noise_pct", key_noise_pct },
};

/* ---- [msc "NAME"] ---- */

#define MSC_ALIGN 4096u

static int store_window_value(uint64_t *dst, const char *value, struct parse_err *e)
{
	uint64_t v;
	int r = parse_uint(value, 0, UINT64_MAX, &v, e);

	if (r == 0 && v == 0)
		r = fail(e, "must not be zero");
	if (r == 0 && v % MSC_ALIGN)
		r = fail(e, "must be 4 KiB aligned (a multiple of 0x1000)");
	if (r == 0)
		*dst = v;
	return r;
}

static int key_base(void *o, const char *v, struct parse_err *e)
{
	return store_window_value(&((struct msc_config *)o)->base, v, e);
}

static int key_size(void *o, const char *v, struct parse_err *e)
{
	return store_window_value(&((struct msc_config *)o)->size, v, e);
}

static const struct config_key msc_keys[] = {
	{ "base", key_base },
	{ "size", key_size },
};

/* ---- [partition "NAME"] ---- */

static int key_partid(void *o, const char *v, struct parse_err *e)
{
	struct partition_config *p = o;
	uint64_t id;
	int r = parse_uint(v, 0, PARTID_LIMIT, &id, e);

	if (r == 0) {
		p->partid = (uint16_t)id;
		p->has_partid = true;
	}
	return r;
}

static int key_class(void *o, const char *v, struct parse_err *e)
{
	return store_enum(&((struct partition_config *)o)->class, v, partition_class_names, e);
}

/* A cgroup path relative to the hierarchy root; "." and empty components are dropped so
 * equal paths compare equal. */
static int key_cgroup(void *o, const char *v, struct parse_err *e)
{
	struct partition_config *p = o;
	size_t len = strlen(v);

	if (v[0] == '/')
		return fail(e, "must be relative to the cgroup root (drop the leading '/')");
	if (len > 4095)
		return fail(e, "path too long");
	char *normalized = calloc(1, len + 1);
	if (!normalized)
		return fail(e, "out of memory");
	size_t out = 0;
	for (const char *c = v; *c;) {
		size_t n = strcspn(c, "/");
		if (n == 2 && !strncmp(c, "..", 2)) {
			free(normalized);
			return fail(e, "'..' components are not allowed");
		}
		if (n > 0 && !(n == 1 && c[0] == '.')) {
			if (out)
				normalized[out++] = '/';
			memcpy(normalized + out, c, n);
			out += n;
		}
		c += n;
		while (*c == '/')
			c++;
	}
	int r = store_string(&p->cgroup, out ? normalized : "", e);
	free(normalized);
	return r;
}

static int key_pids(void *o, const char *v, struct parse_err *e)
{
	struct partition_config *p = o;
	uint64_t *values;
	size_t count;
	int r = parse_uint_list(v, 1, PID_LIMIT, &values, &count, e);

	if (r < 0)
		return r;
	for (size_t i = 0; i < count && r == 0; i++) {
		for (size_t j = 0; j < i && r == 0; j++) {
			if (values[j] == values[i]) {
				snprintf(e->text, sizeof(e->text), "pid %llu is listed twice",
					 (unsigned long long)values[i]);
				r = -EINVAL;
			}
		}
	}
	pid_t *pids = r == 0 ? calloc(count, sizeof(*pids)) : NULL;
	if (r == 0 && !pids)
		r = fail(e, "out of memory");
	for (size_t i = 0; pids && i < count; i++)
		pids[i] = (pid_t)values[i];
	free(values);
	if (r < 0)
		return r;
	free(p->pids);
	p->pids = pids;
	p->pid_count = count;
	return 0;
}

static int key_cpus(void *o, const char *v, struct parse_err *e)
{
	struct partition_config *p = o;
	struct cpu_set *set = calloc(1, sizeof(*set));

	if (!set)
		return fail(e, "out of memory");
	int r = parse_cpu_list(v, CPU_LIMIT, set->bits, &set->count, e);
	if (r < 0) {
		free(set);
		return r;
	}
	free(p->cpus);
	p->cpus = set;
	return 0;
}

static int key_mb_min(void *o, const char *v, struct parse_err *e)
{
	return parse_percent(v, 1, 100, &((struct partition_config *)o)->mb_min, e);
}

static int key_mb_max(void *o, const char *v, struct parse_err *e)
{
	return parse_percent(v, 1, 100, &((struct partition_config *)o)->mb_max, e);
}

static int key_guarantee(void *o, const char *v, struct parse_err *e)
{
	return store_u32(&((struct partition_config *)o)->guarantee_mbps, v, 1, BANDWIDTH_LIMIT_MBPS, e);
}

static int key_target(void *o, const char *v, struct parse_err *e)
{
	return store_u32(&((struct partition_config *)o)->target_mbps, v, 1, BANDWIDTH_LIMIT_MBPS, e);
}

static int key_weight(void *o, const char *v, struct parse_err *e)
{
	return store_unsigned(&((struct partition_config *)o)->weight, v, 1, 10000, e);
}

static int key_l3_cbm(void *o, const char *v, struct parse_err *e)
{
	uint64_t cbm;
	int r = parse_hex(v, 0, UINT64_MAX, &cbm, e);

	if (r == 0 && cbm == 0)
		r = fail(e, "a cache bitmap needs at least one bit set");
	if (r == 0)
		((struct partition_config *)o)->l3_cbm = cbm;
	return r;
}

/* "MBPS" or "MBPS@TICK MBPS@TICK ..." with ticks strictly increasing. */
static int parse_demand_point(const char *item, struct demand_point *pt, struct parse_err *e)
{
	char buf[64];
	uint64_t v;

	if (strlen(item) >= sizeof(buf))
		return fail(e, "demand point too long");
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

static int key_sim_demand(void *o, const char *v, struct parse_err *e)
{
	struct demand_profile d = { 0 };
	bool has_at = strchr(v, '@') != NULL;
	int r = 0;

	for (const char *p = v + strspn(v, ", \t"); *p && r == 0; p += strspn(p, ", \t")) {
		size_t len = strcspn(p, ", \t");
		char item[64];
		if (len >= sizeof(item)) {
			r = fail(e, "a demand point is at most 63 characters");
			break;
		}
		memcpy(item, p, len);
		item[len] = '\0';
		p += len;
		struct demand_point *grown = realloc(d.points, (d.count + 1) * sizeof(*grown));
		if (!grown) {
			r = fail(e, "out of memory");
			break;
		}
		d.points = grown;
		struct parse_err inner;
		r = parse_demand_point(item, &d.points[d.count], &inner);
		if (r < 0)
			snprintf(e->text, sizeof(e->text), "point %zu '%.63s': %.80s", d.count + 1, item, inner.text);
		else if (has_at && !strchr(item, '@'))
			r = fail(e, "a profile needs MBPS@TICK at every point");
		else if (d.count > 0 && d.points[d.count].tick <= d.points[d.count - 1].tick)
			r = fail(e, "ticks must increase from one point to the next");
		d.count++;
	}
	if (r == 0 && d.count == 0)
		r = fail(e, "expected MBPS or MBPS@TICK ...");
	if (r < 0) {
		free(d.points);
		return r;
	}
	struct partition_config *p = o;
	free(p->sim_demand.points);
	p->sim_demand = d;
	return 0;
}

static const struct config_key partition_keys[] = {
	{ "partid", key_partid },      { "class", key_class },
	{ "cgroup", key_cgroup },      { "pids", key_pids },
	{ "cpus", key_cpus },	       { "mb_min", key_mb_min },
	{ "mb_max", key_mb_max },      { "guarantee_mbps", key_guarantee },
	{ "target_mbps", key_target }, { "l3_cbm", key_l3_cbm },
	{ "weight", key_weight },      { "sim_demand", key_sim_demand },
};

#define KEYS(table) table, sizeof(table) / sizeof(table[0])

const struct config_section_def config_sections[SECTION_KIND_COUNT] = {
	[SECTION_GLOBAL] = { "global", false, KEYS(global_keys) },
	[SECTION_SIM] = { "sim", false, KEYS(sim_keys) },
	[SECTION_MSC] = { "msc", true, KEYS(msc_keys) },
	[SECTION_PARTITION] = { "partition", true, KEYS(partition_keys) },
};

int config_key_index(enum section_kind kind, const char *name)
{
	const struct config_section_def *def = &config_sections[kind];

	for (size_t i = 0; i < def->key_count; i++)
		if (!strcmp(def->keys[i].name, name))
			return (int)i;
	return -1;
}

/* Keys that only change a partition's limits and goals: these `set` may change at run time. The
 * others decide which tasks and hardware a partition is (partid, cgroup, pids, cpus, sim_demand)
 * and take a reload. */
static const char *const runtime_keys[] = { "class",	   "mb_min", "mb_max", "guarantee_mbps",
					    "target_mbps", "l3_cbm", "weight", NULL };

int config_partition_set(struct partition_config *p, const char *key, const char *value, struct err *err)
{
	int index = config_key_index(SECTION_PARTITION, key);
	struct parse_err perr = { "" };
	bool runtime = false;

	for (size_t i = 0; runtime_keys[i]; i++)
		runtime |= !strcmp(runtime_keys[i], key);
	if (index < 0) {
		const char *names[SECTION_MAX_KEYS];
		for (size_t i = 0; i < config_sections[SECTION_PARTITION].key_count; i++)
			names[i] = config_sections[SECTION_PARTITION].keys[i].name;
		const char *near = suggest_nearest(key, names, config_sections[SECTION_PARTITION].key_count);
		return err_set(err, -EINVAL, "unknown key '%s'%s%s%s", key, near ? "; did you mean '" : "",
			       near ? near : "", near ? "'?" : "");
	}
	if (!runtime)
		return err_set(err, -EPERM, "%s cannot be changed at run time: edit the file and reload", key);
	if (!*value)
		return err_set(err, -EINVAL, "%s: empty value", key);
	if (config_sections[SECTION_PARTITION].keys[index].parse(p, value, &perr) < 0)
		return err_set(err, -EINVAL, "%s = %s: %s", key, value, perr.text);
	return 0;
}
