/* Keys with per-domain values (schema.h: struct config_domain_type): "50" for every domain,
 * "0=30,1=100" for the domains named, "50,1=30" for both. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config/schema.h"

/* Room for one item ("65535=100000000%") with some slack, so a longer one is an error, not cut. */
#define ITEM_MAX 40

static bool per_domain(const struct config_key *key)
{
	return key->type->format == config_domain_format;
}

struct domain_values *config_key_domain_values(const struct config_key *key, void *object)
{
	if (!per_domain(key))
		return NULL;
	const struct config_domain_type *t = (const struct config_domain_type *)key->type;
	return (struct domain_values *)((char *)object + t->domain_offset);
}

const struct domain_values *config_key_domain_values_const(const struct config_key *key, const void *object)
{
	return config_key_domain_values(key, (void *)object);
}

static uint32_t *all_of(void *object, const struct config_key *key)
{
	return (uint32_t *)((char *)object + key->offset);
}

static struct domain_values *values_of(void *object, const struct config_key *key)
{
	return config_key_domain_values(key, object);
}

static const struct domain_values *const_values_of(const void *object, const struct config_key *key)
{
	return config_key_domain_values_const(key, object);
}

static uint32_t const_all_of(const void *object, const struct config_key *key)
{
	return *(const uint32_t *)((const char *)object + key->offset);
}

/* The value of the domains a setting does not name, when it names no value for all of them. */
static uint32_t default_all(const struct config_key *key)
{
	return key->flags & CONFIG_KEY_ZERO_NONE ? 0 : (uint32_t)key->max;
}

static int parse_number(const char *text, const struct config_key *key, bool percent, uint64_t min, uint64_t *ret,
			struct err *err)
{
	if (!percent)
		return parse_uint(text, min, key->max, ret, err);
	unsigned v;
	int r = parse_percent(text, (unsigned)min, (unsigned)key->max, &v, err);
	if (r == 0)
		*ret = v;
	return r;
}

/* One item, "V" or "ID=V", into *all or *parsed. `alone`: the item is the whole value, whose error
 * must not repeat it. */
static int parse_item(const char *item, bool alone, const struct config_key *key, bool percent, bool *has_all,
		      uint32_t *all, struct domain_values *parsed, struct err *err)
{
	char copy[ITEM_MAX];
	uint64_t id, v;
	struct err why = { "" };
	int r;

	snprintf(copy, sizeof(copy), "%s", item);
	char *eq = strchr(copy, '=');
	if (!eq) {
		if (*has_all)
			return err_set(err, -EINVAL, "the value for every domain is given twice");
		if ((r = parse_number(copy, key, percent, key->min, &v, &why)) < 0)
			return alone ? err_set(err, r, "%s", why.text) : err_set(err, r, "'%s': %s", copy, why.text);
		*has_all = true;
		*all = (uint32_t)v;
		return 0;
	}
	*eq = '\0';
	if ((r = parse_uint(copy, 0, DOMAIN_ID_MAX, &id, &why)) < 0)
		return err_set(err, r, "domain '%s': %s (a domain id as mpamctl discover names it)", copy, why.text);
	uint64_t min = key->flags & CONFIG_KEY_ZERO_NONE ? 0 : key->min;
	if ((r = parse_number(eq + 1, key, percent, min, &v, &why)) < 0)
		return err_set(err, r, "domain %" PRIu64 ": '%s': %s", id, eq + 1, why.text);
	if (domain_values_has(parsed, (uint32_t)id))
		return err_set(err, -EINVAL, "domain %" PRIu64 " is given twice", id);
	if (parsed->count >= DOMAIN_VALUES_MAX)
		return err_set(err, -EINVAL, "at most %d domains have values of their own", DOMAIN_VALUES_MAX);
	parsed->at[parsed->count++] = (struct domain_value){ .domain = (uint32_t)id, .value = (uint32_t)v };
	return 0;
}

static int parse_with(void *object, const struct config_key *key, const char *value, bool percent, struct err *err)
{
	struct domain_values parsed = { 0 };
	uint32_t all = default_all(key);
	bool has_all = false;

	for (const char *p = value;;) {
		p += strspn(p, " \t");
		size_t len = strcspn(p, ",");
		while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
			len--;
		if (len == 0)
			return err_set(err, -EINVAL, "an empty item: expected V, DOMAIN=V or a list of them");
		if (len >= ITEM_MAX)
			return err_set(err, -EINVAL, "'%.20s...' is too long for one item", p);
		char item[ITEM_MAX];
		memcpy(item, p, len);
		item[len] = '\0';
		int r = parse_item(item, !strchr(value, ','), key, percent, &has_all, &all, &parsed, err);
		if (r < 0)
			return r;
		p += strcspn(p, ",");
		if (!*p)
			break;
		p++;
	}
	*all_of(object, key) = all;
	*values_of(object, key) = parsed;
	return 0;
}

int config_domain_percent_parse(void *object, const struct config_key *key, const char *value, struct err *err)
{
	return parse_with(object, key, value, true, err);
}

int config_domain_unsigned_parse(void *object, const struct config_key *key, const char *value, struct err *err)
{
	return parse_with(object, key, value, false, err);
}

/* "50" (or nothing for a ZERO_NONE key at 0) without per-domain values, else "[ALL,]ID=V,...", the
 * value for every domain left out when it is the default. */
bool config_domain_format(const void *object, const struct config_key *key, char *buf, size_t len)
{
	const struct domain_values *v = const_values_of(object, key);
	uint32_t all = const_all_of(object, key);
	size_t used = 0;

	if (v->count == 0)
		return config_unsigned_format(object, key, buf, len);
	buf[0] = '\0';
	if (all != default_all(key))
		used += (size_t)snprintf(buf, len, "%" PRIu32, all);
	for (uint32_t i = 0; i < v->count && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%" PRIu32 "=%" PRIu32, used ? "," : "",
					 v->at[i].domain, v->at[i].value);
	return true;
}

/* A number as before without per-domain values; else {"all": N or null, "domains": {"ID": N}}. */
json_t *config_domain_to_json(const void *object, const struct config_key *key)
{
	const struct domain_values *v = const_values_of(object, key);

	if (v->count == 0)
		return config_unsigned_to_json(object, key);
	json_t *domains = json_object();
	for (uint32_t i = 0; i < v->count; i++) {
		char id[16];
		snprintf(id, sizeof(id), "%" PRIu32, v->at[i].domain);
		json_object_set_new(domains, id, json_integer(v->at[i].value));
	}
	uint32_t all = const_all_of(object, key);
	bool none = (key->flags & CONFIG_KEY_ZERO_NONE) && all == 0;
	return json_pack("{s:o,s:o}", "all", none ? json_null() : json_integer(all), "domains", domains);
}
