/* The generic key types: numbers, percentages, bitmaps, booleans, enums, paths and strings, each
 * stored at the key's offset in its section's object. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config/config_json.h"
#include "core/config/schema.h"

static void *field_of(void *object, const struct config_key *key)
{
	return (char *)object + key->offset;
}

static const void *const_field_of(const void *object, const struct config_key *key)
{
	return (const char *)object + key->offset;
}

static uint64_t load_number(const void *field, size_t size)
{
	switch (size) {
	case 1:
		return *(const uint8_t *)field;
	case 2:
		return *(const uint16_t *)field;
	case 4:
		return *(const uint32_t *)field;
	default:
		return *(const uint64_t *)field;
	}
}

static void store_number(void *field, size_t size, uint64_t v)
{
	switch (size) {
	case 1:
		*(uint8_t *)field = (uint8_t)v;
		break;
	case 2:
		*(uint16_t *)field = (uint16_t)v;
		break;
	case 4:
		*(uint32_t *)field = (uint32_t)v;
		break;
	default:
		*(uint64_t *)field = v;
		break;
	}
}

/* A key flagged CONFIG_KEY_ZERO_NONE holds no value while it is 0. */
static bool number_is_none(const void *object, const struct config_key *key)
{
	return (key->flags & CONFIG_KEY_ZERO_NONE) && load_number(const_field_of(object, key), key->size) == 0;
}

/* What a parser returned (r): its value v stored in the key's field where r is 0 (v is passed either
 * way, so the callers start it at 0). */
static int stored(void *object, const struct config_key *key, int r, uint64_t v)
{
	if (r == 0)
		store_number(field_of(object, key), key->size, v);
	return r;
}

/* ---- unsigned ---- */

static int unsigned_parse(void *object, const struct config_key *key, const char *value, struct err *err)
{
	uint64_t v = 0;
	int r = parse_uint(value, key->min, key->max, &v, err);

	return stored(object, key, r, v);
}

bool config_unsigned_format(const void *object, const struct config_key *key, char *buf, size_t len)
{
	if (number_is_none(object, key))
		return false;
	snprintf(buf, len, "%" PRIu64, load_number(const_field_of(object, key), key->size));
	return true;
}

json_t *config_unsigned_to_json(const void *object, const struct config_key *key)
{
	uint64_t v = load_number(const_field_of(object, key), key->size);
	char text[24];

	if (number_is_none(object, key))
		return json_null();
	if (v <= INT64_MAX && key->max <= INT64_MAX)
		return json_integer((json_int_t)v);
	/* JSON integers are signed 64-bit: a key that may hold more is carried as a string, always. */
	snprintf(text, sizeof(text), "%" PRIu64, v);
	return json_string(text);
}

const struct config_type config_type_unsigned = { unsigned_parse, config_unsigned_format, config_unsigned_to_json };

/* ---- percent (unsigned fields) ---- */

static int percent_parse(void *object, const struct config_key *key, const char *value, struct err *err)
{
	unsigned v = 0;
	int r = parse_percent(value, (unsigned)key->min, (unsigned)key->max, &v, err);

	return stored(object, key, r, v);
}

const struct config_type config_type_percent = { percent_parse, config_unsigned_format, config_unsigned_to_json };

/* ---- decimal (double fields), bounds in thousandths: key->min / 1000 .. key->max / 1000 ---- */

#define DECIMAL_BOUND_SCALE 1000.0

static int decimal_parse(void *object, const struct config_key *key, const char *value, struct err *err)
{
	double v;
	int r = parse_decimal(value, (double)key->min / DECIMAL_BOUND_SCALE, (double)key->max / DECIMAL_BOUND_SCALE, &v,
			      err);

	if (r == 0)
		*(double *)field_of(object, key) = v;
	return r;
}

static bool decimal_is_none(const void *object, const struct config_key *key)
{
	return (key->flags & CONFIG_KEY_ZERO_NONE) && *(const double *)const_field_of(object, key) == 0;
}

static bool decimal_format(const void *object, const struct config_key *key, char *buf, size_t len)
{
	if (decimal_is_none(object, key))
		return false;
	snprintf(buf, len, "%g", *(const double *)const_field_of(object, key));
	return true;
}

static json_t *decimal_to_json(const void *object, const struct config_key *key)
{
	return decimal_is_none(object, key) ? json_null() : json_real(*(const double *)const_field_of(object, key));
}

const struct config_type config_type_decimal = { decimal_parse, decimal_format, decimal_to_json };

/* ---- hex ---- */

static int hex_parse(void *object, const struct config_key *key, const char *value, struct err *err)
{
	uint64_t v = 0;
	int r = parse_hex(value, key->min, key->max, &v, err);

	return stored(object, key, r, v);
}

static bool hex_format(const void *object, const struct config_key *key, char *buf, size_t len)
{
	if (number_is_none(object, key))
		return false;
	snprintf(buf, len, "0x%" PRIx64, load_number(const_field_of(object, key), key->size));
	return true;
}

static json_t *hex_to_json(const void *object, const struct config_key *key)
{
	char text[24];

	return hex_format(object, key, text, sizeof(text)) ? json_string(text) : json_null();
}

const struct config_type config_type_hex = { hex_parse, hex_format, hex_to_json };

static int bitmap_parse(void *object, const struct config_key *key, const char *value, struct err *err)
{
	uint64_t v = 0;
	int r = parse_hex(value, 0, key->max ? key->max : UINT64_MAX, &v, err);

	if (r == 0 && v == 0)
		r = err_set(err, -EINVAL, "a cache bitmap needs at least one bit set");
	return stored(object, key, r, v);
}

const struct config_type config_type_bitmap = { bitmap_parse, hex_format, hex_to_json };

/* ---- bool ---- */

static int bool_parse(void *object, const struct config_key *key, const char *value, struct err *err)
{
	return parse_bool(value, field_of(object, key), err);
}

static bool bool_format(const void *object, const struct config_key *key, char *buf, size_t len)
{
	snprintf(buf, len, "%s", *(const bool *)const_field_of(object, key) ? "true" : "false");
	return true;
}

static json_t *bool_to_json(const void *object, const struct config_key *key)
{
	return json_boolean(*(const bool *)const_field_of(object, key));
}

const struct config_type config_type_bool = { bool_parse, bool_format, bool_to_json };

/* ---- enum (stored as unsigned) ---- */

static int enum_parse(void *object, const struct config_key *key, const char *value, struct err *err)
{
	unsigned v = 0;
	int r = parse_enum(value, key->names, &v, err);

	return stored(object, key, r, v);
}

static bool enum_format(const void *object, const struct config_key *key, char *buf, size_t len)
{
	snprintf(buf, len, "%s", key->names[load_number(const_field_of(object, key), key->size)]);
	return true;
}

static json_t *enum_to_json(const void *object, const struct config_key *key)
{
	return json_string(key->names[load_number(const_field_of(object, key), key->size)]);
}

const struct config_type config_type_enum = { enum_parse, enum_format, enum_to_json };

/* ---- strings (char * fields, malloc'ed) ---- */

static int store_string(char **dst, const char *value, struct err *err)
{
	size_t len = strlen(value);

	if (len >= 2 && value[0] == '"' && value[len - 1] == '"')
		return err_set(err, -EINVAL, "values are written without quotes");
	char *copy = strdup(value);
	if (!copy)
		return err_set(err, -ENOMEM, "out of memory");
	free(*dst);
	*dst = copy;
	return 0;
}

static int string_parse(void *object, const struct config_key *key, const char *value, struct err *err)
{
	return store_string(field_of(object, key), value, err);
}

static bool string_format(const void *object, const struct config_key *key, char *buf, size_t len)
{
	const char *s = *(char *const *)const_field_of(object, key);

	if (!s)
		return false;
	snprintf(buf, len, "%s", s);
	return true;
}

static json_t *string_to_json(const void *object, const struct config_key *key)
{
	const char *s = *(char *const *)const_field_of(object, key);

	return config_json_text(s);
}

const struct config_type config_type_string = { string_parse, string_format, string_to_json };

static int path_parse(void *object, const struct config_key *key, const char *value, struct err *err)
{
	if (value[0] != '/' && value[0] != '"')
		return err_set(err, -EINVAL, "must be an absolute path");
	if (strlen(value) > key->max)
		return err_set(err, -EINVAL, "path longer than %" PRIu64 " characters", key->max);
	return string_parse(object, key, value, err);
}

const struct config_type config_type_path = { path_parse, string_format, string_to_json };

int config_key_parse(const struct config_key *key, void *object, const char *value, struct err *err)
{
	if (!*value)
		return err_set(err, -EINVAL, "empty value");
	/* "none" clears a key whose 0 means not set (mpamctl set mb_min=none), and says so in a file. */
	if ((key->flags & CONFIG_KEY_ZERO_NONE) && !strcmp(value, "none")) {
		store_number(field_of(object, key), key->size, 0);
		struct domain_values *at = config_key_domain_values(key, object);
		if (at) /* none on every domain */
			domain_values_free(at);
		return 0;
	}
	return key->type->parse(object, key, value, err);
}
