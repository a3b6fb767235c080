/* The key space of each section under a schema (base keys, then extension keys), the lines keys were
 * set on, and run-time `set` of a partition's goals. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/base/suggest.h"
#include "core/config/config_internal.h"

int config_section_key_index(const struct config_section_def *def, const char *name)
{
	for (size_t i = 0; i < def->key_count; i++)
		if (!strcmp(def->keys[i].name, name))
			return (int)i;
	return -1;
}

size_t config_partition_key_count(const struct config *config)
{
	size_t n = config_partition_section.key_count;

	for (size_t e = 0; e < config->ext_count; e++)
		n += config->exts[e].def->partition_key_count;
	return n;
}

const struct config_key *config_partition_key(const struct config *config, size_t index,
					      const struct config_ext **ret_owner)
{
	if (ret_owner)
		*ret_owner = NULL;
	if (index < config_partition_section.key_count)
		return &config_partition_section.keys[index];
	index -= config_partition_section.key_count;
	for (size_t e = 0; e < config->ext_count; e++) {
		const struct config_ext *ext = config->exts[e].def;
		if (index < ext->partition_key_count) {
			if (ret_owner)
				*ret_owner = ext;
			return &ext->partition_keys[index];
		}
		index -= ext->partition_key_count;
	}
	return NULL;
}

int config_partition_key_find(const struct config *config, const char *name, int *ret_ext)
{
	size_t base = config_partition_section.key_count;
	int i = config_section_key_index(&config_partition_section, name);

	*ret_ext = -1;
	if (i >= 0)
		return i;
	for (size_t e = 0; e < config->ext_count; e++) {
		const struct config_ext *ext = config->exts[e].def;
		for (size_t k = 0; k < ext->partition_key_count; k++) {
			if (!strcmp(ext->partition_keys[k].name, name)) {
				*ret_ext = (int)e;
				return (int)(base + k);
			}
		}
		base += ext->partition_key_count;
	}
	return -1;
}

static unsigned origin_line(const struct config_origin *o, int index)
{
	return config_origin_key_line(o, index);
}

unsigned config_global_key_line(const struct config *config, const char *key)
{
	return origin_line(&config->global.origin, config_section_key_index(&config_global_section, key));
}

unsigned config_partition_key_line(const struct config *config, const struct partition_config *p, const char *key)
{
	int ext;

	return origin_line(&p->origin, config_partition_key_find(config, key, &ext));
}

unsigned config_ext_key_line(const struct config *config, const struct config_ext *ext, const char *key)
{
	for (size_t e = 0; e < config->ext_count; e++)
		if (config->exts[e].def == ext && ext->section)
			return origin_line(&config->exts[e].origin, config_section_key_index(ext->section, key));
	return 0;
}

void config_names_list(const char *const *names, char *buf, size_t len)
{
	size_t used = 0;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; names[i] && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? " | " : "", names[i]);
}

static int unknown_partition_key(const struct config *config, const char *key, struct err *err)
{
	const char *names[64];
	size_t count = config_partition_key_count(config);

	count = count < 64 ? count : 64;
	for (size_t i = 0; i < count; i++)
		names[i] = config_partition_key(config, i, NULL)->name;
	const char *near = suggest_nearest(key, names, count);
	return err_set(err, -EINVAL, "unknown key '%s'%s%s%s", key, near ? "; did you mean '" : "", near ? near : "",
		       near ? "'?" : "");
}

int config_partition_set(const struct config *config, struct partition_config *p, const char *key, const char *value,
			 struct err *err)
{
	int ext;
	int index = config_partition_key_find(config, key, &ext);

	if (index < 0)
		return unknown_partition_key(config, key, err);
	const struct config_key *k = config_partition_key(config, (size_t)index, NULL);
	if (!(k->flags & CONFIG_KEY_RUNTIME))
		return err_set(err, -EPERM, "%s cannot be changed at run time: edit the file and reload", key);
	if (!*value)
		return err_set(err, -EINVAL, "%s: empty value", key);
	struct err reason = { "" };
	if (config_key_parse(k, p, value, &reason) < 0)
		return err_set(err, -EINVAL, "%s = %s: %s", key, value, reason.text);
	return 0;
}
