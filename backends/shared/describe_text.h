/* Reading a control's description (its describe JSON) back for people: what the backends' describe_print
 * functions share. */
#ifndef MPAMD_BACKENDS_SHARED_DESCRIBE_TEXT_H
#define MPAMD_BACKENDS_SHARED_DESCRIBE_TEXT_H

#include <jansson.h>

static inline const char *describe_yes_no(json_t *v)
{
	return json_is_true(v) ? "yes" : "no";
}

/* The integer at `key` of `obj` (0 when absent). */
static inline long long describe_num(json_t *obj, const char *key)
{
	return (long long)json_integer_value(json_object_get(obj, key));
}

/* The string at `key` of `obj` ("" when absent). */
static inline const char *describe_str(json_t *obj, const char *key)
{
	const char *s = json_string_value(json_object_get(obj, key));

	return s ? s : "";
}

#endif
