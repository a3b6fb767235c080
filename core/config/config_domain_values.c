/* Keys with per-domain values (schema.h: struct config_domain_type): "50" for every domain,
 * "0=30,1=100" for the domains named, "50,1=30" for both. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/base/decimal_text.h"
#include "core/base/parse.h"
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

static const struct config_domain_type *domain_type(const struct config_key *key)
{
	return (const struct config_domain_type *)key->type;
}

/* The value of every domain not named: a uint32_t field (capacity_mbps) or a double (a limit). */
static double all_get(const void *object, const struct config_key *key)
{
	const char *field = (const char *)object + key->offset;

	return key->size == sizeof(double) ? *(const double *)field : *(const uint32_t *)field;
}

static void all_set(void *object, const struct config_key *key, double v)
{
	char *field = (char *)object + key->offset;

	if (key->size == sizeof(double))
		*(double *)field = v;
	else
		*(uint32_t *)field = (uint32_t)v;
}

/* A limit key's flag: its values are MB/s, not percents. */
static bool *mbps_flag(void *object, const struct config_key *key)
{
	return domain_type(key)->limit ? (bool *)((char *)object + domain_type(key)->mbps_offset) : NULL;
}

static bool const_mbps(const void *object, const struct config_key *key)
{
	const bool *flag = mbps_flag((void *)object, key);

	return flag && *flag;
}

static struct domain_values *values_of(void *object, const struct config_key *key)
{
	return config_key_domain_values(key, object);
}

static const struct domain_values *const_values_of(const void *object, const struct config_key *key)
{
	return config_key_domain_values_const(key, object);
}

/* The value of the domains a setting does not name, when it names no value for all of them. */
static double default_all(const struct config_key *key)
{
	return key->flags & CONFIG_KEY_ZERO_NONE ? 0 : (double)key->max;
}

/* "6000MB/s": the number's length before the unit, or 0 when there is no such unit. */
static size_t before_mbps(const char *text)
{
	size_t len = strlen(text);

	return len > 4 && strcasecmp(text + len - 4, "MB/s") == 0 ? len - 4 : 0;
}

/* A limit: a percent with a fraction ("5.08", "5.08%") or MB/s ("6000MB/s"). `min` 0 allows 0 (none). */
static int parse_limit(const char *text, const struct config_key *key, uint64_t min, double *ret, bool *ret_mbps,
		       struct err *err)
{
	char number[ITEM_MAX];
	size_t digits = before_mbps(text);
	int r;

	*ret_mbps = digits > 0;
	if (*ret_mbps) {
		uint64_t v;
		snprintf(number, sizeof(number), "%.*s", (int)digits, text);
		if ((r = parse_uint(number, min ? 1 : 0, BANDWIDTH_LIMIT_MBPS, &v, err)) == 0)
			*ret = (double)v;
		return r;
	}
	size_t len = strlen(text);
	struct err why = { "" };
	snprintf(number, sizeof(number), "%.*s", (int)(len && text[len - 1] == '%' ? len - 1 : len), text);
	if (parse_decimal(number, 0, INFINITY, ret, &why) < 0)
		return err_set(err, -EINVAL, "%s (a percent such as 50 or 5.08, or MB/s such as 6000MB/s)", why.text);
	if (*ret <= (double)key->max && (*ret > 0 || !min))
		return 0;
	const char *zero = key->flags & CONFIG_KEY_ZERO_NONE ? " (for none, leave the key out)"
							     : " (0% would stop all traffic: check-config --host names "
							       "the hardware's lowest setting)";
	return err_set(err, -ERANGE, "out of range: a percent above 0 and at most %" PRIu64 "%s", key->max,
		       *ret ? "" : zero);
}

static int parse_number(const char *text, const struct config_key *key, uint64_t min, double *ret, bool *ret_mbps,
			struct err *err)
{
	uint64_t v;
	int r;

	*ret_mbps = false;
	if (domain_type(key)->limit)
		return parse_limit(text, key, min, ret, ret_mbps, err);
	if ((r = parse_uint(text, min, key->max, &v, err)) == 0)
		*ret = (double)v;
	return r;
}

/* What the items of one value have said so far (at: the domains named, in `named`). */
struct parsed_value {
	bool has_all, unit_known, mbps;
	double all;
	struct domain_values at;
	struct domain_value named[DOMAIN_VALUES_MAX];
};

/* Every item of a limit is in one unit: the policies compare a domain's value with the key's. */
static int same_unit(struct parsed_value *pv, bool mbps, struct err *err)
{
	if (pv->unit_known && pv->mbps != mbps)
		return err_set(err, -EINVAL, "mixes percents and MB/s: give every value in one unit");
	pv->unit_known = true;
	pv->mbps = mbps;
	return 0;
}

/* One item, "V" or "ID=V", into pv. `alone`: the item is the whole value, whose error must not repeat
 * it. */
static int parse_item(const char *item, bool alone, const struct config_key *key, struct parsed_value *pv,
		      struct err *err)
{
	char copy[ITEM_MAX];
	uint64_t id;
	double v;
	bool mbps;
	struct err why = { "" };
	int r;

	snprintf(copy, sizeof(copy), "%s", item);
	char *eq = strchr(copy, '=');
	if (!eq) {
		if (pv->has_all)
			return err_set(err, -EINVAL, "the value for every domain is given twice");
		if ((r = parse_number(copy, key, key->min, &v, &mbps, &why)) < 0)
			return alone ? err_set(err, r, "%s", why.text) : err_set(err, r, "'%s': %s", copy, why.text);
		pv->has_all = true;
		pv->all = v;
		return same_unit(pv, mbps, err);
	}
	*eq = '\0';
	if ((r = parse_uint(copy, 0, DOMAIN_ID_MAX, &id, &why)) < 0)
		return err_set(err, r, "domain '%s': %s (a domain id as mpamctl discover names it)", copy, why.text);
	uint64_t min = key->flags & CONFIG_KEY_ZERO_NONE ? 0 : key->min;
	if ((r = parse_number(eq + 1, key, min, &v, &mbps, &why)) < 0)
		return err_set(err, r, "domain %" PRIu64 ": '%s': %s", id, eq + 1, why.text);
	if (domain_values_has(&pv->at, (uint32_t)id))
		return err_set(err, -EINVAL, "domain %" PRIu64 " is given twice", id);
	if (pv->at.count >= DOMAIN_VALUES_MAX)
		return err_set(err, -EINVAL, "at most %d domains have values of their own", DOMAIN_VALUES_MAX);
	pv->at.at[pv->at.count++] = (struct domain_value){ .domain = (uint32_t)id, .value = v };
	return same_unit(pv, mbps, err);
}

/* The parsed value into the object, in place of what it held: 0 or -ENOMEM (the object as it was). */
static int store_value(void *object, const struct config_key *key, const struct parsed_value *pv, struct err *err)
{
	struct domain_values at;

	if (domain_values_copy(&at, &pv->at) < 0)
		return err_set(err, -ENOMEM, "out of memory");
	all_set(object, key, pv->all);
	domain_values_free(values_of(object, key));
	*values_of(object, key) = at;
	if (mbps_flag(object, key))
		*mbps_flag(object, key) = pv->mbps;
	return 0;
}

int config_domain_parse(void *object, const struct config_key *key, const char *value, struct err *err)
{
	struct parsed_value pv = { .all = default_all(key) };

	pv.at.at = pv.named;

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
		int r = parse_item(item, !strchr(value, ','), key, &pv, err);
		if (r < 0)
			return r;
		p += strcspn(p, ",");
		if (!*p)
			break;
		p++;
	}
	if (pv.mbps && !pv.has_all && !(key->flags & CONFIG_KEY_ZERO_NONE))
		return err_set(err, -EINVAL,
			       "MB/s on some domains needs a value in MB/s for the others too "
			       "(\"6000MB/s,1=4000MB/s\")");
	return store_value(object, key, &pv, err);
}

/* One value as the file writes it: 6000MB/s, 34.375 or 50. */
static void number_text(double v, bool mbps, char *buf, size_t len)
{
	char digits[40];

	decimal_text(v, digits, sizeof(digits));
	snprintf(buf, len, "%s%s", digits, mbps ? "MB/s" : "");
}

/* "50" (or nothing for a ZERO_NONE key at 0) without per-domain values, else "[ALL,]ID=V,...", the
 * value for every domain left out when it is the default (in MB/s it is always written). */
bool config_domain_format(const void *object, const struct config_key *key, char *buf, size_t len)
{
	const struct domain_values *v = const_values_of(object, key);
	double all = all_get(object, key);
	bool mbps = const_mbps(object, key);
	char text[48];
	size_t used = 0;

	buf[0] = '\0';
	if (v->count == 0 && all == 0 && (key->flags & CONFIG_KEY_ZERO_NONE))
		return false;
	if (v->count == 0 || (mbps && all != 0) || all != default_all(key)) {
		number_text(all, mbps, text, sizeof(text));
		used += (size_t)snprintf(buf, len, "%s", text);
	}
	for (uint32_t i = 0; i < v->count && used < len; i++) {
		number_text(v->at[i].value, mbps, text, sizeof(text));
		used += (size_t)snprintf(buf + used, len - used, "%s%" PRIu32 "=%s", used ? "," : "", v->at[i].domain,
					 text);
	}
	return true;
}

/* A whole number as an integer, a fraction (34.375) as a real. */
static json_t *number_json(double v)
{
	return v == floor(v) && fabs(v) < 1e15 ? json_integer((json_int_t)v) : json_real(v);
}

/* N (null for a ZERO_NONE key at 0) without per-domain values; else {"all": N or null, "domains":
 * {"ID": N}}. A limit in MB/s is {"mbps": that}. */
json_t *config_domain_to_json(const void *object, const struct config_key *key)
{
	const struct domain_values *v = const_values_of(object, key);
	double all = all_get(object, key);
	bool none = (key->flags & CONFIG_KEY_ZERO_NONE) && all == 0;
	json_t *j;

	if (v->count == 0) {
		j = none ? json_null() : number_json(all);
	} else {
		json_t *domains = json_object();
		for (uint32_t i = 0; i < v->count; i++) {
			char id[16];
			snprintf(id, sizeof(id), "%" PRIu32, v->at[i].domain);
			json_object_set_new(domains, id, number_json(v->at[i].value));
		}
		j = json_pack("{s:o,s:o}", "all", none ? json_null() : number_json(all), "domains", domains);
	}
	return const_mbps(object, key) && !json_is_null(j) ? json_pack("{s:o}", "mbps", j) : j;
}
