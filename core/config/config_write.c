#include "core/config/config_write.h"

#include <errno.h>

#include "core/config/config.h"

static void write_key(const struct config_key *key, const void *object, FILE *out)
{
	char value[CONFIG_VALUE_MAX];

	if (key->type->format(object, key, value, sizeof(value)))
		fprintf(out, "%s = %s\n", key->name, value);
}

static void write_section(const struct config_section_def *def, const void *object, FILE *out)
{
	for (size_t i = 0; i < def->key_count; i++)
		write_key(&def->keys[i], object, out);
}

static void write_partition_keys(const struct config *c, const struct partition_config *p, FILE *out)
{
	for (size_t i = 0; i < config_partition_key_count(c); i++) {
		const struct config_ext *owner;
		const struct config_key *key = config_partition_key(c, i, &owner);
		write_key(key, config_partition_key_object(c, p, owner), out);
	}
}

static void write_partition(const struct config *c, const struct partition_config *p, FILE *out)
{
	fprintf(out, "\n[partition \"%s\"]\n", p->name);
	write_partition_keys(c, p, out);
}

/* A template holds none of the keys config_template_refuses names: they format as nothing. */
static void write_template(const struct config *c, const struct vm_template *t, FILE *out)
{
	fprintf(out, "\n[vm-template \"%s\"]\n", t->name);
	write_section(&config_template_section, t, out);
	write_partition_keys(c, &t->partition, out);
}

int config_write_ini(const struct config *c, FILE *out)
{
	fprintf(out, "[global]\n");
	write_section(&config_global_section, &c->global, out);
	for (size_t e = 0; e < c->ext_count; e++) {
		const struct config_section_def *def = c->exts[e].def->section;
		if (!def)
			continue;
		fprintf(out, "\n[%s]\n", def->kind);
		write_section(def, c->exts[e].data, out);
	}
	for (size_t i = 0; i < c->msc_count; i++) {
		fprintf(out, "\n[msc \"%s\"]\n", c->mscs[i].name);
		write_section(&config_msc_section, &c->mscs[i], out);
	}
	for (size_t i = 0; i < c->partition_count; i++)
		write_partition(c, &c->partitions[i], out);
	for (size_t i = 0; i < c->template_count; i++)
		write_template(c, &c->templates[i], out);
	return ferror(out) ? -EIO : 0;
}
