/* Deep copies of a configuration and of its partitions. Every keyed value goes through its own key's
 * format and parse (what the writer does, and every valid file round-trips through the writer), so
 * a key added later is copied without a line here; only what no key holds (names, the origin, an
 * automatically picked PARTID) is copied by hand. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/config/config_internal.h"

static int copy_key(const struct config_key *key, void *dst, const void *src, char *value, struct err *err)
{
	if (!key->type->format(src, key, value, CONFIG_VALUE_MAX))
		return 0;
	struct err why = { "" };
	if (key->type->parse(dst, key, value, &why) < 0)
		return err_set(err, -EINVAL, "copying %s = %s: %s", key->name, value, why.text);
	return 0;
}

/* The lines of a key space of `count` keys (0 where there are none). */
static int copy_lines(struct config_origin *dst, const struct config_origin *src, size_t count)
{
	dst->line = src->line;
	dst->key_lines = NULL;
	if (!src->key_lines)
		return 0;
	dst->key_lines = config_origin_copy(src, count);
	return dst->key_lines ? 0 : -ENOMEM;
}

static int copy_partition_keys(const struct config *c, struct partition_config *dst, const struct partition_config *src,
			       char *value, struct err *err)
{
	for (size_t i = 0; i < config_partition_key_count(c); i++) {
		const struct config_ext *owner;
		const struct config_key *key = config_partition_key(c, i, &owner);
		/* A PARTID picked by the simulator formats as nothing: it is copied below. */
		if (!strcmp(key->name, "partid"))
			continue;
		const void *from = config_partition_key_object(c, src, owner);
		if (!from || (owner && from == owner->partition_defaults))
			continue; /* none of its extension's keys set: dst has none either */
		void *to = owner ? config_partition_ext_own(c, dst, owner) : dst;
		if (!to)
			return err_set(err, -ENOMEM, "out of memory");
		int r = copy_key(key, to, from, value, err);
		if (r < 0)
			return r;
	}
	dst->partid = src->partid;
	dst->has_partid = src->has_partid;
	dst->partid_auto = src->partid_auto;
	dst->included = src->included;
	return 0;
}

int config_partition_copy(const struct config *c, struct partition_config *dst, const struct partition_config *src,
			  size_t key_lines, struct err *err)
{
	char *value = malloc(CONFIG_VALUE_MAX);
	int r = value ? 0 : -ENOMEM;

	partition_config_defaults(dst);
	if (r == 0)
		r = copy_partition_keys(c, dst, src, value, err);
	else
		err_set(err, -ENOMEM, "out of memory");
	free(value);
	if (r == 0 && copy_lines(&dst->origin, &src->origin, key_lines) < 0)
		r = err_set(err, -ENOMEM, "out of memory");
	if (r < 0) {
		partition_config_fini(c, dst);
		return r;
	}
	memcpy(dst->name, src->name, sizeof(dst->name));
	return 0;
}

static int copy_section(const struct config_section_def *def, void *dst, const void *src, struct err *err)
{
	char *value = malloc(CONFIG_VALUE_MAX);
	int r = value ? 0 : err_set(err, -ENOMEM, "out of memory");

	for (size_t i = 0; r == 0 && i < def->key_count; i++)
		r = copy_key(&def->keys[i], dst, src, value, err);
	free(value);
	return r;
}

static int copy_exts(struct config *dst, const struct config *src, struct err *err)
{
	for (size_t e = 0; e < src->ext_count; e++) {
		const struct config_ext_data *from = &src->exts[e];
		struct config_ext_data *to = &dst->exts[dst->ext_count++];
		size_t keys = from->def->section ? from->def->section->key_count : 0;
		*to = (struct config_ext_data){ .def = from->def };
		to->data = calloc(1, from->def->size ? from->def->size : 1);
		if (!to->data || copy_lines(&to->origin, &from->origin, keys) < 0)
			return err_set(err, -ENOMEM, "out of memory");
		if (from->def->init)
			from->def->init(to->data);
		int r = from->def->section ? copy_section(from->def->section, to->data, from->data, err) : 0;
		if (r < 0)
			return r;
	}
	return 0;
}

static int copy_mscs(struct config *dst, const struct config *src)
{
	dst->mscs = calloc(src->msc_count ? src->msc_count : 1, sizeof(*dst->mscs));
	if (!dst->mscs)
		return -ENOMEM;
	for (size_t i = 0; i < src->msc_count; i++) {
		dst->mscs[i] = src->mscs[i];
		dst->mscs[i].origin.key_lines = NULL;
		dst->msc_count++;
		if (copy_lines(&dst->mscs[i].origin, &src->mscs[i].origin, config_msc_section.key_count) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int copy_partitions(struct config *dst, const struct config *src, size_t extra, struct err *err)
{
	size_t lines = config_partition_key_count(src);

	dst->partitions = calloc(src->partition_count + extra + 1, sizeof(*dst->partitions));
	if (!dst->partitions)
		return err_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < src->partition_count; i++) {
		int r = config_partition_copy(dst, &dst->partitions[i], &src->partitions[i], lines, err);
		if (r < 0)
			return r;
		dst->partition_count++;
	}
	return 0;
}

static int copy_templates(struct config *dst, const struct config *src, struct err *err)
{
	/* A template's key space: the partition keys, then its own. */
	size_t lines = config_partition_key_count(src) + config_template_section.key_count;

	dst->templates = calloc(src->template_count + 1, sizeof(*dst->templates));
	if (!dst->templates)
		return err_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < src->template_count; i++) {
		struct vm_template *t = &dst->templates[i];
		const struct vm_template *from = &src->templates[i];
		int r = config_partition_copy(dst, &t->partition, &from->partition, lines, err);
		if (r < 0)
			return r;
		memcpy(t->name, from->name, sizeof(t->name));
		dst->template_count++;
		if (from->match && !(t->match = strdup(from->match)))
			return err_set(err, -ENOMEM, "out of memory");
	}
	return 0;
}

/* What every clone has: [global], the [msc]s and the extensions' sections. */
static int clone_sections(struct config *dst, const struct config *src, struct err *err)
{
	dst->global = src->global;
	dst->global.origin.key_lines = NULL;
	int r = global_config_copy_owned(&dst->global, &src->global);
	if (r == 0)
		r = copy_lines(&dst->global.origin, &src->global.origin, config_global_section.key_count);
	if (r == 0)
		r = copy_mscs(dst, src);
	if (r < 0)
		return err_set(err, r, "out of memory");
	return copy_exts(dst, src, err);
}

int config_clone(const struct config *src, size_t extra_partitions, struct config **ret, struct err *err)
{
	struct config *dst = calloc(1, sizeof(*dst));
	int r;

	if (!dst)
		return err_set(err, -ENOMEM, "out of memory");
	r = clone_sections(dst, src, err);
	if (r == 0)
		r = copy_partitions(dst, src, extra_partitions, err);
	if (r == 0)
		r = copy_templates(dst, src, err);
	if (r < 0) {
		config_free(dst);
		return r;
	}
	*ret = dst;
	return 0;
}

int config_clone_partition(const struct config *src, const struct partition_config *p, struct config **ret,
			   struct err *err)
{
	struct config *dst = calloc(1, sizeof(*dst));
	int r;

	if (!dst)
		return err_set(err, -ENOMEM, "out of memory");
	r = clone_sections(dst, src, err);
	if (r == 0 && !(dst->partitions = calloc(2, sizeof(*dst->partitions))))
		r = err_set(err, -ENOMEM, "out of memory");
	if (r == 0)
		r = config_partition_copy(dst, &dst->partitions[0], p, config_partition_key_count(src), err);
	if (r < 0) {
		config_free(dst);
		return r;
	}
	dst->partition_count = 1;
	*ret = dst;
	return 0;
}
