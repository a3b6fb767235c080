/* The schema of a configuration file: sections, their keys, and the extensions backends add.
 *
 * A key's entry in its table is the single record of that key: the type that parses, formats and
 * describes it, where it lives (its offset in the section's object), its range, and whether
 * `mpamctl set` may change it while mpamd runs (CONFIG_KEY_RUNTIME). The loader, the writer, the
 * JSON view, `set` and the man page checks all read the same entry.
 *
 * Every function of a type takes the whole section object; the generic types (numbers, enums, paths)
 * find their field at key->offset, custom ones know their object. */
#ifndef MPAMD_CORE_CONFIG_SCHEMA_H
#define MPAMD_CORE_CONFIG_SCHEMA_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/diag.h"
#include "core/base/error.h"
#include "core/config/model.h"

/* Long enough for the longest value a key can format (a CPU list of every CPU). */
#define CONFIG_VALUE_MAX (CPU_LIMIT * 6)

struct config_key;

struct config_type {
	/* Stores `value` (never empty) into the object; -EINVAL (or -ERANGE, -ENOMEM) and a reason that
	 * does not repeat the value ("out of range 1..100"), leaving the object as it was. */
	int (*parse)(void *object, const struct config_key *key, const char *value, struct err *err);
	/* The value as a config file would say it; false when the key holds no value (so the writer
	 * leaves it out and summaries say "none"). */
	bool (*format)(const void *object, const struct config_key *key, char *buf, size_t len);
	/* The value as JSON (null when it holds none); a new reference. */
	json_t *(*to_json)(const void *object, const struct config_key *key);
};

enum config_key_flags {
	CONFIG_KEY_RUNTIME = 1u << 0,	/* `mpamctl set` may change it (it lives in partition_goals) */
	CONFIG_KEY_ZERO_NONE = 1u << 1, /* 0 means "not set": not written, null in JSON */
};

struct config_key {
	const char *name;
	const struct config_type *type;
	size_t offset; /* of the field in the section's object (generic types) */
	size_t size;   /* of that field in bytes */
	uint64_t min, max;
	const char *const *names; /* enum names, NULL-terminated */
	unsigned flags;
};

/* The generic types. Numbers store into fields of 1, 2, 4 or 8 bytes (key->size). */
extern const struct config_type config_type_unsigned; /* decimal or 0x hex, key->min..key->max */
extern const struct config_type config_type_percent;  /* an integer percentage, '%' allowed */
/* a decimal number ("0.2") in a double field, key->min / 1000 .. key->max / 1000 */
extern const struct config_type config_type_decimal;
extern const struct config_type config_type_hex;    /* bare or 0x hex, written 0x... */
extern const struct config_type config_type_bitmap; /* hex with at least one bit set (0: none) */
extern const struct config_type config_type_bool;   /* true/false, yes/no, on/off, 1/0 */
extern const struct config_type config_type_enum;   /* one of key->names, stored as unsigned */
extern const struct config_type config_type_path;   /* an absolute path of at most key->max bytes */
extern const struct config_type config_type_string; /* any text without quotes */

/* A number for every domain, with per-domain values: "50", "0=30,1=100" or "50,1=30" (see
 * struct domain_values in model.h). The key's field (offset) holds the value of every domain not
 * named: a uint32_t (size 4) or a double (size 8); its type says where the struct domain_values is.
 * A value not given for every domain is the key's default: 0 for a CONFIG_KEY_ZERO_NONE key, else
 * key->max. Per-domain values of a CONFIG_KEY_ZERO_NONE key may be 0 (none on that domain).
 * A limit (mb_max, mb_min) takes a percent with a fraction ("5.08", '%' allowed) up to key->max,
 * or MB/s ("6000MB/s") for the key's every value, which sets its bool at mbps_offset; 0 only where
 * ZERO_NONE allows it. Declare one with CONFIG_DOMAIN_TYPE or CONFIG_LIMIT_TYPE. */
struct config_domain_type {
	struct config_type type;
	size_t domain_offset; /* of the struct domain_values in the section's object */
	bool limit;
	size_t mbps_offset; /* limit: of its bool "in MB/s" */
};

int config_domain_parse(void *object, const struct config_key *key, const char *value, struct err *err);
bool config_domain_format(const void *object, const struct config_key *key, char *buf, size_t len);
json_t *config_domain_to_json(const void *object, const struct config_key *key);

#define CONFIG_DOMAIN_TYPE(object_type, domain_field)                                 \
	{                                                                             \
		{ config_domain_parse, config_domain_format, config_domain_to_json }, \
			offsetof(object_type, domain_field), false, 0                 \
	}
#define CONFIG_LIMIT_TYPE(object_type, domain_field, mbps_field)                                     \
	{                                                                                            \
		{ config_domain_parse, config_domain_format, config_domain_to_json },                \
			offsetof(object_type, domain_field), true, offsetof(object_type, mbps_field) \
	}

/* The per-domain values of a key of such a type; NULL for any other key. */
struct domain_values *config_key_domain_values(const struct config_key *key, void *object);
const struct domain_values *config_key_domain_values_const(const struct config_key *key, const void *object);

#define CONFIG_FIELD(type, field) offsetof(type, field), sizeof(((type *)0)->field)

#define CONFIG_KEY_UNSIGNED(name, type, field, lo, hi, flags)                               \
	{                                                                                   \
		name, &config_type_unsigned, CONFIG_FIELD(type, field), lo, hi, NULL, flags \
	}
#define CONFIG_KEY_PERCENT(name, type, field, lo, hi, flags)                               \
	{                                                                                  \
		name, &config_type_percent, CONFIG_FIELD(type, field), lo, hi, NULL, flags \
	}
#define CONFIG_KEY_BOOL(name, type, field, flags)                                     \
	{                                                                             \
		name, &config_type_bool, CONFIG_FIELD(type, field), 0, 1, NULL, flags \
	}
#define CONFIG_KEY_ENUM(name, type, field, list, flags)                               \
	{                                                                             \
		name, &config_type_enum, CONFIG_FIELD(type, field), 0, 0, list, flags \
	}
#define CONFIG_KEY_PATH(name, type, field, max_len, flags)                                  \
	{                                                                                   \
		name, &config_type_path, CONFIG_FIELD(type, field), 0, max_len, NULL, flags \
	}
#define CONFIG_KEY_STRING(name, type, field, flags)                                     \
	{                                                                               \
		name, &config_type_string, CONFIG_FIELD(type, field), 0, 0, NULL, flags \
	}
/* A key whose type knows its object (several fields, lists, rules of its own). */
#define CONFIG_KEY_CUSTOM(name, custom_type, flags)        \
	{                                                  \
		name, custom_type, 0, 0, 0, 0, NULL, flags \
	}

/* The generic formatting of a number field, for custom types that only parse differently. */
bool config_unsigned_format(const void *object, const struct config_key *key, char *buf, size_t len);
json_t *config_unsigned_to_json(const void *object, const struct config_key *key);

/* Parses one key alone, as the loader does: for tests and for `mpamctl set`. */
int config_key_parse(const struct config_key *key, void *object, const char *value, struct err *err);

struct config_section_def {
	const char *kind; /* "global", "partition"... */
	bool named;	  /* [kind "NAME"]: any number of them; otherwise at most one */
	const struct config_key *keys;
	size_t key_count;
};

/* What a backend adds to the file: a section of its own (unnamed, at most one, always present in the
 * model with its defaults), keys of [partition] sections, and the rules that need the whole file. */
struct config_ext {
	const char *name;			  /* for messages and lookups */
	const struct config_section_def *section; /* or NULL */
	size_t size;				  /* of the section's object */
	void (*init)(void *data);		  /* defaults */
	void (*fini)(void *data);		  /* frees what parsing allocated; NULL: nothing */
	const struct config_key *partition_keys;  /* stored into the partition's data of this extension */
	size_t partition_key_count;
	/* A partition's data of this extension (partition_size bytes) is made, and partition_init'ed, when
	 * one of the extension's keys is set for it: the others read partition_defaults instead (required
	 * with partition_size), so that a host that does not use the extension keeps nothing for it. */
	size_t partition_size;
	const void *partition_defaults;
	void (*partition_init)(void *data);
	void (*partition_fini)(void *data);
	/* Cross-key rules and resolution once the whole file is read: findings go to `diags` with the
	 * lines config_*_key_line() tell. NULL: none. */
	void (*check)(struct config *config, struct diag_list *diags);
};

/* Everything a loader needs to know beyond the base sections: which controls (the backend key) and
 * monitors (the monitor key, besides "auto") exist, and the extensions. The engine builds it from its
 * table of backends (core/engine/registry.h); tests may build their own. */
struct config_schema {
	const char *const *backends; /* NULL-terminated; the first is the backend key's default */
	/* NULL-terminated (NULL: none): the backends that drive no hardware (the simulator), whose [msc]
	 * windows are mapped nowhere and so not held to the kernel's pages. */
	const char *const *simulated;
	const char *const *monitors; /* NULL-terminated, without "auto" */
	const struct config_ext *const *exts;
	size_t ext_count;
};

/* The base sections' definitions (for documentation checks and tools). */
extern const struct config_section_def config_global_section;
extern const struct config_section_def config_msc_section;
extern const struct config_section_def config_partition_section;
/* [vm-template "NAME"]: its own keys (match); it also takes [partition] keys, except those
 * config_template_refuses() names. */
extern const struct config_section_def config_template_section;

#endif
