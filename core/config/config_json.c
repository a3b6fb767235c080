#include "core/config/config_json.h"

#include <stdlib.h>

#include "core/base/utf8.h"
#include "core/config/config.h"

json_t *config_json_text(const char *s)
{
	if (!s)
		return json_null();
	json_t *j = json_string(s);
	if (j)
		return j;
	char *escaped = utf8_escape(s);
	j = escaped ? json_string(escaped) : NULL;
	free(escaped);
	return j;
}

static json_t *section_to_json(const struct config_section_def *def, const void *object)
{
	json_t *json = json_object();

	for (size_t i = 0; i < def->key_count; i++)
		json_object_set_new(json, def->keys[i].name, def->keys[i].type->to_json(object, &def->keys[i]));
	return json;
}

static void partition_keys_to_json(const struct config *c, const struct partition_config *p, json_t *json)
{
	for (size_t i = 0; i < config_partition_key_count(c); i++) {
		const struct config_ext *owner;
		const struct config_key *key = config_partition_key(c, i, &owner);
		const void *object = config_partition_key_object(c, p, owner);
		json_object_set_new(json, key->name, key->type->to_json(object, key));
	}
}

json_t *partition_config_to_json(const struct config *c, const struct partition_config *p)
{
	json_t *json = json_object();

	json_object_set_new(json, "name", json_string(p->name));
	partition_keys_to_json(c, p, json);
	json_object_set_new(json, "partid_auto", json_boolean(p->partid_auto));
	json_object_set_new(json, "line", json_integer(p->origin.line));
	return json;
}

/* A template: its name and match, and the partition keys each VM's partition gets (those it may not
 * hold are null). */
static json_t *template_to_json(const struct config *c, const struct vm_template *t)
{
	json_t *json = section_to_json(&config_template_section, t);

	json_object_set_new(json, "name", json_string(t->name));
	partition_keys_to_json(c, &t->partition, json);
	json_object_set_new(json, "line", json_integer(t->partition.origin.line));
	return json;
}

json_t *config_to_json(const struct config *c)
{
	json_t *mscs = json_array();
	json_t *partitions = json_array();
	json_t *templates = json_array();
	json_t *root = json_object();

	for (size_t i = 0; i < c->msc_count; i++) {
		json_t *msc = section_to_json(&config_msc_section, &c->mscs[i]);
		json_object_set_new(msc, "name", json_string(c->mscs[i].name));
		json_object_set_new(msc, "line", json_integer(c->mscs[i].origin.line));
		json_array_append_new(mscs, msc);
	}
	for (size_t i = 0; i < c->partition_count; i++)
		json_array_append_new(partitions, partition_config_to_json(c, &c->partitions[i]));
	json_object_set_new(root, "global", section_to_json(&config_global_section, &c->global));
	for (size_t e = 0; e < c->ext_count; e++)
		if (c->exts[e].def->section)
			json_object_set_new(root, c->exts[e].def->section->kind,
					    section_to_json(c->exts[e].def->section, c->exts[e].data));
	json_object_set_new(root, "msc", mscs);
	json_object_set_new(root, "partitions", partitions);
	for (size_t i = 0; i < c->template_count; i++)
		json_array_append_new(templates, template_to_json(c, &c->templates[i]));
	json_object_set_new(root, "vm_templates", templates);
	return root;
}
