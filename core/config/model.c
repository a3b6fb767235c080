#include "core/config/model.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config/schema.h"

const char *const partition_class_names[] = { "default", "latency-critical", "best-effort", NULL };
const char *const partition_threads_names[] = { "all", "vcpu", NULL };
const char *const mb_max_mode_names[] = { "soft", "hard", NULL };
const char *const stop_mode_names[] = { "keep", "configured", "reset", NULL };
const char *const classes_mode_names[] = { "own", "shared", "auto", NULL };

void global_config_defaults(struct global_config *g)
{
	memset(g, 0, sizeof(*g)); /* backend: the schema's first (config_load) */
	snprintf(g->monitor, sizeof(g->monitor), "auto");
	g->interval_ms = 100;
	g->reconcile_ms = 2000;
	g->proc_connector = true;
	snprintf(g->group_prefix, sizeof(g->group_prefix), "mpamd-");
}

double domain_values_get(const struct domain_values *v, uint32_t id, double all)
{
	for (uint32_t i = 0; i < v->count && i < DOMAIN_VALUES_MAX; i++)
		if (v->at[i].domain == id)
			return v->at[i].value;
	return all;
}

bool domain_values_has(const struct domain_values *v, uint32_t id)
{
	for (uint32_t i = 0; i < v->count && i < DOMAIN_VALUES_MAX; i++)
		if (v->at[i].domain == id)
			return true;
	return false;
}

int domain_values_copy(struct domain_values *dst, const struct domain_values *src)
{
	*dst = (struct domain_values){ 0 };
	if (!src->count)
		return 0;
	if (!(dst->at = malloc(src->count * sizeof(*dst->at))))
		return -ENOMEM;
	memcpy(dst->at, src->at, src->count * sizeof(*dst->at));
	dst->count = src->count;
	return 0;
}

void domain_values_free(struct domain_values *v)
{
	free(v->at);
	*v = (struct domain_values){ 0 };
}

int partition_goals_copy(struct partition_goals *dst, const struct partition_goals *src)
{
	*dst = *src;
	dst->mb_max_at = dst->mb_min_at = (struct domain_values){ 0 }; /* src's until copied */
	if (domain_values_copy(&dst->mb_max_at, &src->mb_max_at) < 0 ||
	    domain_values_copy(&dst->mb_min_at, &src->mb_min_at) < 0) {
		partition_goals_fini(dst);
		return -ENOMEM;
	}
	return 0;
}

void partition_goals_fini(struct partition_goals *g)
{
	domain_values_free(&g->mb_max_at);
	domain_values_free(&g->mb_min_at);
}

bool cpu_set_has(const struct cpu_set *set, unsigned cpu)
{
	return cpu < CPU_LIMIT && (set->bits[cpu / 64] >> (cpu % 64)) & 1;
}

int cpu_set_format(const struct cpu_set *set, char *buf, size_t len)
{
	size_t used = 0;

	if (len)
		buf[0] = '\0';
	for (unsigned cpu = 0; cpu < CPU_LIMIT; cpu++) {
		if (!cpu_set_has(set, cpu))
			continue;
		unsigned last = cpu;
		while (last + 1 < CPU_LIMIT && cpu_set_has(set, last + 1))
			last++;
		char part[24];
		int n = last == cpu ? snprintf(part, sizeof(part), "%s%u", used ? "," : "", cpu)
				    : snprintf(part, sizeof(part), "%s%u-%u", used ? "," : "", cpu, last);
		if (used + (size_t)n < len)
			memcpy(buf + used, part, (size_t)n + 1);
		used += (size_t)n;
		cpu = last;
	}
	return (int)used;
}

void partition_config_defaults(struct partition_config *p)
{
	memset(p, 0, sizeof(*p));
	p->goals.class = CLASS_DEFAULT;
	p->goals.mb_max = 100;
	p->goals.weight = 100;
}

unsigned config_origin_key_line(const struct config_origin *o, int index)
{
	for (size_t i = 0; index >= 0 && o->key_lines && o->key_lines[i + 1]; i += 2)
		if (o->key_lines[i] == (unsigned)index)
			return o->key_lines[i + 1];
	return 0;
}

/* Room for `set` pairs and the pair that ends them. */
static unsigned *pairs_room(size_t set)
{
	return calloc(2 * set + 2, sizeof(unsigned));
}

unsigned *config_origin_compact(const unsigned *dense, size_t count)
{
	size_t set = 0;

	for (size_t i = 0; dense && i < count; i++)
		set += dense[i] != 0;
	unsigned *out = pairs_room(set), *at = out;
	for (size_t i = 0; out && dense && i < count; i++)
		if (dense[i]) {
			*at++ = (unsigned)i;
			*at++ = dense[i];
		}
	return out;
}

unsigned *config_origin_copy(const struct config_origin *o, size_t count)
{
	size_t set = 0;

	for (const unsigned *p = o->key_lines; p && p[1]; p += 2)
		set += p[0] < count;
	unsigned *out = pairs_room(set), *at = out;
	for (const unsigned *p = o->key_lines; out && p && p[1]; p += 2)
		if (p[0] < count) {
			*at++ = p[0];
			*at++ = p[1];
		}
	return out;
}

void partition_config_fini(const struct config *config, struct partition_config *p)
{
	for (size_t e = 0; config && e < config->ext_count; e++) {
		const struct config_ext *ext = config->exts[e].def;
		if (p->ext[e] && ext->partition_fini)
			ext->partition_fini(p->ext[e]);
		free(p->ext[e]);
	}
	partition_goals_fini(&p->goals);
	free(p->cgroup);
	free(p->vm);
	free(p->pids);
	free(p->cpus);
	free(p->origin.key_lines);
	memset(p, 0, sizeof(*p));
}

/* Every string a [global] section holds: one list, so that a new string key is freed and copied
 * everywhere. */
static const size_t global_strings[] = {
	offsetof(struct global_config, resctrl_root),	  offsetof(struct global_config, socket),
	offsetof(struct global_config, record),		  offsetof(struct global_config, include),
	offsetof(struct global_config, metrics_textfile), offsetof(struct global_config, cgroup_root),
	offsetof(struct global_config, persist_dir),
};

#define GLOBAL_STRINGS (sizeof(global_strings) / sizeof(global_strings[0]))

static char **global_string(struct global_config *g, size_t i)
{
	return (char **)((char *)g + global_strings[i]);
}

void global_config_fini_owned(struct global_config *g)
{
	for (size_t i = 0; i < GLOBAL_STRINGS; i++)
		free(*global_string(g, i));
	domain_values_free(&g->capacity_mbps_at);
}

int global_config_copy_owned(struct global_config *dst, const struct global_config *src)
{
	int r = 0;

	for (size_t i = 0; i < GLOBAL_STRINGS; i++) {
		const char *from = *global_string((struct global_config *)src, i);
		char **to = global_string(dst, i);
		*to = from ? strdup(from) : NULL;
		if (from && !*to)
			r = -ENOMEM; /* the others are still set, so that fini frees what was copied */
	}
	if (domain_values_copy(&dst->capacity_mbps_at, &src->capacity_mbps_at) < 0)
		r = -ENOMEM;
	return r;
}

void vm_template_fini(const struct config *config, struct vm_template *t)
{
	free(t->match);
	partition_config_fini(config, &t->partition);
	memset(t, 0, sizeof(*t));
}

void config_free(struct config *config)
{
	if (!config)
		return;
	global_config_fini_owned(&config->global);
	free(config->global.origin.key_lines);
	for (size_t i = 0; i < config->partition_count; i++)
		partition_config_fini(config, &config->partitions[i]);
	for (size_t i = 0; i < config->template_count; i++)
		vm_template_fini(config, &config->templates[i]);
	for (size_t i = 0; i < config->msc_count; i++)
		free(config->mscs[i].origin.key_lines);
	for (size_t e = 0; e < config->ext_count; e++) {
		struct config_ext_data *x = &config->exts[e];
		if (x->data && x->def->fini)
			x->def->fini(x->data);
		free(x->data);
		free(x->origin.key_lines);
	}
	for (size_t i = 0; i < config->persisted_count; i++)
		free(config->persisted[i].file);
	free(config->persisted);
	free(config->partitions);
	free(config->templates);
	free(config->mscs);
	free(config);
}

static long ext_index(const struct config *config, const struct config_ext *ext)
{
	for (size_t e = 0; e < config->ext_count; e++)
		if (config->exts[e].def == ext)
			return (long)e;
	return -1;
}

void *config_ext_data(const struct config *config, const struct config_ext *ext)
{
	long e = ext_index(config, ext);

	return e < 0 ? NULL : config->exts[e].data;
}

const void *config_partition_ext(const struct config *config, const struct partition_config *p,
				 const struct config_ext *ext)
{
	long e = ext_index(config, ext);

	if (e < 0)
		return NULL;
	return p->ext[e] ? p->ext[e] : ext->partition_defaults;
}

void *config_partition_ext_own(const struct config *config, struct partition_config *p, const struct config_ext *ext)
{
	long e = ext_index(config, ext);

	if (e < 0)
		return NULL;
	if (!p->ext[e] && (p->ext[e] = calloc(1, ext->partition_size ? ext->partition_size : 1)) && ext->partition_init)
		ext->partition_init(p->ext[e]);
	return p->ext[e];
}

const struct partition_config *config_find_partition(const struct config *config, const char *name)
{
	for (size_t i = 0; i < config->partition_count; i++)
		if (!strcmp(config->partitions[i].name, name))
			return &config->partitions[i];
	return NULL;
}
