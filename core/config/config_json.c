#include "core/config/config_json.h"

#include "core/config/config.h"

static json_t *section_to_json(const struct config_section_def *def, const void *object)
{
	json_t *json = json_object();

	for (size_t i = 0; i < def->key_count; i++)
		json_object_set_new(json, def->keys[i].name, def->keys[i].type->to_json(object, &def->keys[i]));
	return json;
}

json_t *partition_config_to_json(const struct config *c, const struct partition_config *p)
{
	json_t *json = json_object();

	json_object_set_new(json, "name", json_string(p->name));
	for (size_t i = 0; i < config_partition_key_count(c); i++) {
		const struct config_ext *owner;
		const struct config_key *key = config_partition_key(c, i, &owner);
		const void *object = owner ? config_partition_ext(c, p, owner) : (const void *)p;
		json_object_set_new(json, key->name, key->type->to_json(object, key));
	}
	json_object_set_new(json, "partid_auto", json_boolean(p->partid_auto));
	json_object_set_new(json, "line", json_integer(p->origin.line));
	return json;
}

json_t *config_to_json(const struct config *c)
{
	json_t *mscs = json_array();
	json_t *partitions = json_array();
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
	return root;
}
