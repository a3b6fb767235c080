#include "core/config/config_compare.h"

#include <stdio.h>
#include <string.h>

#include "core/config/config.h"

static bool key_same(const struct config_key *key, const void *a, const void *b)
{
	static char va[CONFIG_VALUE_MAX],
		vb[CONFIG_VALUE_MAX]; /* the daemon's one thread: no stack of 48 KiB per call */
	bool has_a = key->type->format(a, key, va, sizeof(va));
	bool has_b = key->type->format(b, key, vb, sizeof(vb));

	return has_a == has_b && (!has_a || !strcmp(va, vb));
}

const struct config_key *config_section_diff(const struct config_section_def *def, const void *a, const void *b)
{
	for (size_t i = 0; i < def->key_count; i++)
		if (!key_same(&def->keys[i], a, b))
			return &def->keys[i];
	return NULL;
}

const struct config_key *config_partition_diff(const struct config *ca, const struct partition_config *a,
					       const struct config *cb, const struct partition_config *b,
					       enum config_compare_keys which)
{
	for (size_t i = 0; i < config_partition_key_count(ca); i++) {
		const struct config_ext *owner;
		const struct config_key *key = config_partition_key(ca, i, &owner);
		bool goal = key->flags & CONFIG_KEY_RUNTIME;
		if (goal != (which == CONFIG_COMPARE_GOALS))
			continue;
		const void *oa = config_partition_key_object(ca, a, owner);
		const void *ob = config_partition_key_object(cb, b, owner);
		if (!oa || !ob ? oa != ob : !key_same(key, oa, ob))
			return key;
	}
	return NULL;
}

bool config_sections_diff(const struct config *a, const struct config *b, char *buf, size_t len)
{
	const struct config_key *key;

	if (a->msc_count != b->msc_count) {
		snprintf(buf, len, "[msc] sections (%zu, were %zu)", b->msc_count, a->msc_count);
		return true;
	}
	for (size_t i = 0; i < a->msc_count; i++) {
		if (strcmp(a->mscs[i].name, b->mscs[i].name) ||
		    (key = config_section_diff(&config_msc_section, &a->mscs[i], &b->mscs[i]))) {
			snprintf(buf, len, "[msc \"%s\"]%s%s", b->mscs[i].name, key ? " " : "", key ? key->name : "");
			return true;
		}
	}
	for (size_t e = 0; e < a->ext_count && e < b->ext_count; e++) {
		const struct config_section_def *def = a->exts[e].def->section;
		if (def && a->exts[e].data && b->exts[e].data &&
		    (key = config_section_diff(def, a->exts[e].data, b->exts[e].data))) {
			snprintf(buf, len, "[%s] %s", def->kind, key->name);
			return true;
		}
	}
	return false;
}
