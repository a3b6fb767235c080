/* Shared by the loader's parts (config_load.c, config_keys.c, config_check.c); not a public API. */
#ifndef MPAMD_CORE_CONFIG_INTERNAL_H
#define MPAMD_CORE_CONFIG_INTERNAL_H

#include "core/config.h"
#include "core/parse.h"

enum section_kind {
	SECTION_GLOBAL,
	SECTION_SIM,
	SECTION_MSC,
	SECTION_PARTITION,
	SECTION_KIND_COUNT,
};

#define SECTION_MAX_KEYS 16

/* One key of a section: its name and the parser that stores it into the section's object
 * (a struct global_config, sim_config, msc_config or partition_config). */
struct config_key {
	const char *name;
	int (*parse)(void *object, const char *value, struct parse_err *err);
};

struct config_section_def {
	const char *kind;
	bool named; /* [kind "NAME"] */
	const struct config_key *keys;
	size_t key_count;
};

extern const struct config_section_def config_sections[SECTION_KIND_COUNT];

/* Index of `name` among the section's keys, or -1. */
int config_key_index(enum section_kind kind, const char *name);

/* One section as it appeared in the file. Duplicates are parsed into a scratch object (so their
 * keys are still checked) and are not part of the model. */
struct config_section {
	enum section_kind kind;
	void *object;
	bool discarded;
	unsigned line;
	unsigned key_line[SECTION_MAX_KEYS]; /* 0: key not set */
};

/* Cross-section checks and resolution (defaults, PARTID assignment) once every line is read. */
void config_check(struct config *config, struct config_section *sections, size_t section_count,
		  const struct config_overrides *overrides, struct diag_list *diags);

unsigned config_section_key_line(const struct config_section *s, const char *key);

#endif
