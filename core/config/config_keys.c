/* The base sections' keys: [global], [msc "NAME"] and [partition "NAME"]. Each table entry is the
 * whole record of a key (see schema.h); the custom types below are the keys whose rules do not fit a
 * generic one. Checks between keys live in config_check.c. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config/config_internal.h"
#include "core/config/config_json.h"

/* ---- backend and monitor: a name; which names exist is the schema's, checked after loading ---- */

static int kind_parse(void *object, const struct config_key *key, const char *value, struct err *err)
{
	if (strlen(value) > key->max)
		return err_set(err, -EINVAL, "at most %" PRIu64 " characters", key->max);
	snprintf((char *)object + key->offset, key->size, "%s", value);
	return 0;
}

static bool kind_format(const void *object, const struct config_key *key, char *buf, size_t len)
{
	snprintf(buf, len, "%s", (const char *)object + key->offset);
	return true;
}

static json_t *kind_to_json(const void *object, const struct config_key *key)
{
	return json_string((const char *)object + key->offset);
}

static const struct config_type kind_type = { kind_parse, kind_format, kind_to_json };

/* ---- group_prefix ---- */

static int prefix_parse(void *object, const struct config_key *key, const char *value, struct err *err)
{
	struct global_config *g = object;

	(void)key;
	if (strlen(value) > GROUP_PREFIX_MAX)
		return err_set(err, -EINVAL, "at most %d characters", GROUP_PREFIX_MAX);
	for (const char *c = value; *c; c++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-", *c))
			return err_set(err, -EINVAL, "only A-Z a-z 0-9 _ . - are allowed");
	snprintf(g->group_prefix, sizeof(g->group_prefix), "%s", value);
	return 0;
}

static const struct config_type prefix_type = { prefix_parse, kind_format, kind_to_json };

/* ---- metrics_textfile: node_exporter's textfile collector reads only *.prom files ---- */

#define TEXTFILE_SUFFIX ".prom"

static int textfile_parse(void *object, const struct config_key *key, const char *value, struct err *err)
{
	const char *slash = strrchr(value, '/');
	size_t len = strlen(value), suffix = strlen(TEXTFILE_SUFFIX);

	if (len < suffix || strcmp(value + len - suffix, TEXTFILE_SUFFIX))
		return err_set(err, -EINVAL,
			       "the file name must end in " TEXTFILE_SUFFIX
			       " (node_exporter's textfile collector reads only *" TEXTFILE_SUFFIX " files)");
	if (slash && strlen(slash + 1) == suffix)
		return err_set(err, -EINVAL, "the file name needs something before " TEXTFILE_SUFFIX);
	return config_type_path.parse(object, key, value, err);
}

static bool textfile_format(const void *object, const struct config_key *key, char *buf, size_t len)
{
	return config_type_path.format(object, key, buf, len);
}

static json_t *textfile_to_json(const void *object, const struct config_key *key)
{
	return config_type_path.to_json(object, key);
}

static const struct config_type textfile_type = { textfile_parse, textfile_format, textfile_to_json };
/* ---- record_max_bytes: a size, "0" or "none" for no cap ---- */

static int size_parse(void *object, const struct config_key *key, const char *value, struct err *err)
{
	uint64_t v = 0;

	if (strcmp(value, "none") && strcmp(value, "0")) {
		int r = parse_size(value, 0, key->max, &v, err);
		if (r < 0)
			return r;
		if (v < key->min)
			return err_set(err, -ERANGE,
				       "at least %" PRIu64
				       "K, so that the file holds a few ticks (or 0 or none: no cap)",
				       key->min / 1024);
	}
	*(uint64_t *)((char *)object + key->offset) = v;
	return 0;
}

/* The largest suffix that writes it exactly: 64M, not 67108864. */
static bool size_format(const void *object, const struct config_key *key, char *buf, size_t len)
{
	static const char suffixes[] = "GMK";
	uint64_t v = *(const uint64_t *)((const char *)object + key->offset);

	if (v == 0)
		return false;
	for (unsigned i = 0; i < 3; i++) {
		unsigned shift = 10 * (3 - i);
		if (v % (UINT64_C(1) << shift) == 0) {
			snprintf(buf, len, "%" PRIu64 "%c", v >> shift, suffixes[i]);
			return true;
		}
	}
	snprintf(buf, len, "%" PRIu64, v);
	return true;
}

static json_t *size_to_json(const void *object, const struct config_key *key)
{
	uint64_t v = *(const uint64_t *)((const char *)object + key->offset);

	return v ? json_integer((json_int_t)v) : json_null();
}

static const struct config_type size_type = { size_parse, size_format, size_to_json };

/* ---- capacity_mbps, mb_min, mb_max: per-domain values ---- */

static const struct config_domain_type capacity_type = CONFIG_DOMAIN_TYPE(struct global_config, capacity_mbps_at);
static const struct config_domain_type mb_min_type =
	CONFIG_LIMIT_TYPE(struct partition_config, goals.mb_min_at, goals.mb_min_mbps);
static const struct config_domain_type mb_max_type =
	CONFIG_LIMIT_TYPE(struct partition_config, goals.mb_max_at, goals.mb_max_mbps);

static const struct config_key global_keys[] = {
	{ "backend", &kind_type, CONFIG_FIELD(struct global_config, backend), 0, CONFIG_KIND_MAX, NULL, 0 },
	{ "monitor", &kind_type, CONFIG_FIELD(struct global_config, monitor), 0, CONFIG_KIND_MAX, NULL, 0 },
	CONFIG_KEY_UNSIGNED("interval_ms", struct global_config, interval_ms, 10, 60000, 0),
	CONFIG_KEY_PATH("resctrl_root", struct global_config, resctrl_root, 4095, 0),
	{ "group_prefix", &prefix_type, CONFIG_FIELD(struct global_config, group_prefix), 0, 0, NULL, 0 },
	CONFIG_KEY_PATH("socket", struct global_config, socket, SOCKET_PATH_MAX, 0),
	CONFIG_KEY_STRING("record", struct global_config, record, 0),
	CONFIG_KEY_STRING("include", struct global_config, include, 0),
	CONFIG_KEY_PATH("persist_dir", struct global_config, persist_dir, 4095, 0),
	{ "record_max_bytes", &size_type, CONFIG_FIELD(struct global_config, record_max_bytes), RECORD_MAX_BYTES_MIN,
	  INT64_MAX, NULL, CONFIG_KEY_ZERO_NONE },
	{ "capacity_mbps", &capacity_type.type, CONFIG_FIELD(struct global_config, capacity_mbps), 1,
	  BANDWIDTH_LIMIT_MBPS, NULL, CONFIG_KEY_ZERO_NONE },
	CONFIG_KEY_BOOL("escalate", struct global_config, escalate, 0),
	{ "metrics_textfile", &textfile_type, CONFIG_FIELD(struct global_config, metrics_textfile), 0, 4095, NULL, 0 },
	CONFIG_KEY_BOOL("mmio_beside_kernel", struct global_config, mmio_beside_kernel, 0),
	CONFIG_KEY_ENUM("mb_max_mode", struct global_config, mb_max_mode, mb_max_mode_names, 0),
	CONFIG_KEY_ENUM("on_stop", struct global_config, on_stop, stop_mode_names, 0),
	CONFIG_KEY_PATH("cgroup_root", struct global_config, cgroup_root, 4095, 0),
	CONFIG_KEY_UNSIGNED("reconcile_ms", struct global_config, reconcile_ms, 100, 3600000, 0),
	CONFIG_KEY_BOOL("proc_connector", struct global_config, proc_connector, 0),
};

/* ---- [msc "NAME"]: a window of physical address space ---- */

#define MSC_ALIGN 4096u

static int window_parse(void *object, const struct config_key *key, const char *value, struct err *err)
{
	uint64_t v;
	int r = parse_uint(value, 0, UINT64_MAX, &v, err);

	if (r == 0 && v == 0)
		r = err_set(err, -EINVAL, "must not be zero");
	if (r == 0 && v % MSC_ALIGN)
		r = err_set(err, -EINVAL, "must be 4 KiB aligned (a multiple of 0x1000)");
	if (r == 0)
		*(uint64_t *)((char *)object + key->offset) = v;
	return r;
}

static bool window_format(const void *object, const struct config_key *key, char *buf, size_t len)
{
	snprintf(buf, len, "0x%" PRIx64, *(const uint64_t *)((const char *)object + key->offset));
	return true;
}

static json_t *window_to_json(const void *object, const struct config_key *key)
{
	char text[24];

	window_format(object, key, text, sizeof(text));
	return json_string(text);
}

static const struct config_type window_type = { window_parse, window_format, window_to_json };

static const struct config_key msc_keys[] = {
	{ "base", &window_type, CONFIG_FIELD(struct msc_config, base), 0, 0, NULL, 0 },
	{ "size", &window_type, CONFIG_FIELD(struct msc_config, size), 0, 0, NULL, 0 },
};

/* ---- [partition "NAME"] ---- */

static int partid_parse(void *object, const struct config_key *key, const char *value, struct err *err)
{
	struct partition_config *p = object;
	uint64_t id;
	int r = parse_uint(value, 0, PARTID_LIMIT, &id, err);

	(void)key;
	if (r == 0) {
		p->partid = (uint16_t)id;
		p->has_partid = true;
		p->partid_auto = false;
	}
	return r;
}

/* A PARTID the simulator picked was not in the file: the writer leaves it out. */
static bool partid_format(const void *object, const struct config_key *key, char *buf, size_t len)
{
	const struct partition_config *p = object;

	(void)key;
	if (!p->has_partid || p->partid_auto)
		return false;
	snprintf(buf, len, "%u", p->partid);
	return true;
}

static json_t *partid_to_json(const void *object, const struct config_key *key)
{
	const struct partition_config *p = object;

	(void)key;
	return p->has_partid ? json_integer(p->partid) : json_null();
}

static const struct config_type partid_type = { partid_parse, partid_format, partid_to_json };

/* A cgroup path relative to the hierarchy root; "." and empty components are dropped so equal paths
 * compare equal. */
static int normalize_cgroup(const char *v, char *out, struct err *err)
{
	size_t used = 0;

	for (const char *c = v; *c;) {
		size_t n = strcspn(c, "/");
		if (n == 2 && !strncmp(c, "..", 2))
			return err_set(err, -EINVAL, "'..' components are not allowed");
		if (n > 0 && !(n == 1 && c[0] == '.')) {
			if (used)
				out[used++] = '/';
			memcpy(out + used, c, n);
			used += n;
		}
		c += n;
		while (*c == '/')
			c++;
	}
	out[used] = '\0';
	return 0;
}

static int cgroup_parse(void *object, const struct config_key *key, const char *value, struct err *err)
{
	struct partition_config *p = object;
	size_t len = strlen(value);

	(void)key;
	if (value[0] == '/')
		return err_set(err, -EINVAL, "must be relative to the cgroup root (drop the leading '/')");
	if (len > 4095)
		return err_set(err, -EINVAL, "path too long");
	if (len >= 2 && value[0] == '"' && value[len - 1] == '"')
		return err_set(err, -EINVAL, "values are written without quotes");
	char *normalized = malloc(len + 1);
	if (!normalized)
		return err_set(err, -ENOMEM, "out of memory");
	int r = normalize_cgroup(value, normalized, err);
	if (r < 0) {
		free(normalized);
		return r;
	}
	free(p->cgroup);
	p->cgroup = normalized;
	return 0;
}

static bool cgroup_format(const void *object, const struct config_key *key, char *buf, size_t len)
{
	const struct partition_config *p = object;

	(void)key;
	if (!p->cgroup)
		return false;
	snprintf(buf, len, "%s", p->cgroup);
	return true;
}

static json_t *cgroup_to_json(const void *object, const struct config_key *key)
{
	const struct partition_config *p = object;

	(void)key;
	return config_json_text(p->cgroup);
}

static const struct config_type cgroup_type = { cgroup_parse, cgroup_format, cgroup_to_json };

/* A VM's name as libvirt and machined give it: one path component of printable characters. */
static int vm_parse(void *object, const struct config_key *key, const char *value, struct err *err)
{
	if (strlen(value) > VM_NAME_MAX)
		return err_set(err, -EINVAL, "at most %d characters", VM_NAME_MAX);
	if (!strcmp(value, ".") || !strcmp(value, ".."))
		return err_set(err, -EINVAL, "'.' and '..' are not VM names");
	for (const char *c = value; *c; c++)
		if (*c == '/' || (unsigned char)*c < 0x20 || *c == 0x7f)
			return err_set(err, -EINVAL, "a VM name has no '/' and no control characters");
	return config_type_string.parse(object, key, value, err);
}

static bool vm_format(const void *object, const struct config_key *key, char *buf, size_t len)
{
	return config_type_string.format(object, key, buf, len);
}

static json_t *vm_to_json(const void *object, const struct config_key *key)
{
	return config_type_string.to_json(object, key);
}

static const struct config_type vm_type = { vm_parse, vm_format, vm_to_json };

static int check_pids_distinct(const uint64_t *values, size_t count, struct err *err)
{
	for (size_t i = 0; i < count; i++)
		for (size_t j = 0; j < i; j++)
			if (values[j] == values[i])
				return err_set(err, -EINVAL, "pid %" PRIu64 " is listed twice", values[i]);
	return 0;
}

static int pids_parse(void *object, const struct config_key *key, const char *value, struct err *err)
{
	struct partition_config *p = object;
	uint64_t *values;
	size_t count;
	int r = parse_uint_list(value, 1, PID_LIMIT, &values, &count, err);

	(void)key;
	if (r < 0)
		return r;
	r = check_pids_distinct(values, count, err);
	pid_t *pids = r == 0 ? calloc(count, sizeof(*pids)) : NULL;
	if (r == 0 && !pids)
		r = err_set(err, -ENOMEM, "out of memory");
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

static bool pids_format(const void *object, const struct config_key *key, char *buf, size_t len)
{
	const struct partition_config *p = object;
	size_t used = 0;

	(void)key;
	if (!p->pid_count)
		return false;
	buf[0] = '\0';
	for (size_t i = 0; i < p->pid_count && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%d", i ? "," : "", (int)p->pids[i]);
	return true;
}

static json_t *pids_to_json(const void *object, const struct config_key *key)
{
	const struct partition_config *p = object;
	json_t *pids = json_array();

	(void)key;
	for (size_t i = 0; i < p->pid_count; i++)
		json_array_append_new(pids, json_integer(p->pids[i]));
	return pids;
}

static const struct config_type pids_type = { pids_parse, pids_format, pids_to_json };

static int cpus_parse(void *object, const struct config_key *key, const char *value, struct err *err)
{
	struct partition_config *p = object;
	struct cpu_set *set = calloc(1, sizeof(*set));

	(void)key;
	if (!set)
		return err_set(err, -ENOMEM, "out of memory");
	int r = parse_cpu_list(value, CPU_LIMIT, set->bits, &set->count, err);
	if (r < 0) {
		free(set);
		return r;
	}
	free(p->cpus);
	p->cpus = set;
	return 0;
}

static bool cpus_format(const void *object, const struct config_key *key, char *buf, size_t len)
{
	const struct partition_config *p = object;

	(void)key;
	if (!p->cpus)
		return false;
	cpu_set_format(p->cpus, buf, len);
	return true;
}

static json_t *cpus_to_json(const void *object, const struct config_key *key)
{
	char buf[CPU_LIMIT * 6];

	return cpus_format(object, key, buf, sizeof(buf)) ? json_string(buf) : json_null();
}

static const struct config_type cpus_type = { cpus_parse, cpus_format, cpus_to_json };

#define GOAL(field) CONFIG_FIELD(struct partition_config, goals.field)
#define RUNTIME	    CONFIG_KEY_RUNTIME

/* The order is the order of check-config's summary and of the writer. */
static const struct config_key partition_keys[] = {
	{ "partid", &partid_type, 0, 0, 0, 0, NULL, 0 },
	{ "class", &config_type_enum, GOAL(class), 0, 0, partition_class_names, RUNTIME },
	{ "mb_min", &mb_min_type.type, GOAL(mb_min), 1, 100, NULL, RUNTIME | CONFIG_KEY_ZERO_NONE },
	{ "mb_max", &mb_max_type.type, GOAL(mb_max), 1, 100, NULL, RUNTIME },
	{ "guarantee_mbps", &config_type_unsigned, GOAL(guarantee_mbps), 1, BANDWIDTH_LIMIT_MBPS, NULL,
	  RUNTIME | CONFIG_KEY_ZERO_NONE },
	{ "target_mbps", &config_type_unsigned, GOAL(target_mbps), 1, BANDWIDTH_LIMIT_MBPS, NULL,
	  RUNTIME | CONFIG_KEY_ZERO_NONE },
	{ "weight", &config_type_unsigned, GOAL(weight), 1, 10000, NULL, RUNTIME },
	/* A decimal in thousandths: 0..0.99 (a drop of all of its IPC would never be seen). */
	{ "ipc_guard", &config_type_decimal, GOAL(ipc_guard), 0, 990, NULL, RUNTIME | CONFIG_KEY_ZERO_NONE },
	{ "l3_cbm", &config_type_bitmap, GOAL(l3_cbm), 0, 0, NULL, RUNTIME | CONFIG_KEY_ZERO_NONE },
	{ "cgroup", &cgroup_type, 0, 0, 0, 0, NULL, 0 },
	{ "vm", &vm_type, CONFIG_FIELD(struct partition_config, vm), 0, 0, NULL, 0 },
	CONFIG_KEY_ENUM("threads", struct partition_config, threads, partition_threads_names, 0),
	{ "pids", &pids_type, 0, 0, 0, 0, NULL, 0 },
	{ "cpus", &cpus_type, 0, 0, 0, 0, NULL, 0 },
};

/* ---- [vm-template "NAME"]: match, then every [partition] key it may hold (config_load.c) ---- */

static const struct config_key template_keys[] = {
	CONFIG_KEY_STRING("match", struct vm_template, match, 0),
};

#define KEYS(table) table, sizeof(table) / sizeof(table[0])

const struct config_section_def config_global_section = { "global", false, KEYS(global_keys) };
const struct config_section_def config_msc_section = { "msc", true, KEYS(msc_keys) };
const struct config_section_def config_partition_section = { "partition", true, KEYS(partition_keys) };
const struct config_section_def config_template_section = { "vm-template", true, KEYS(template_keys) };
