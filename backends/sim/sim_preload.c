#include "backends/sim/sim_preload.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "backends/mpam/mpam_regs.h"
#include "core/base/parse.h"

static struct sim_preloads *preloads_of(void *object, const struct config_key *key)
{
	return (struct sim_preloads *)((char *)object + key->offset);
}

static const struct sim_preloads *preloads_of_const(const void *object, const struct config_key *key)
{
	return (const struct sim_preloads *)((const char *)object + key->offset);
}

/* One "PARTID:VALUE", added to `list` unless its PARTID is there already. */
static int parse_item(const char *item, const struct config_key *key, struct sim_preloads *list, struct err *err)
{
	char buf[64];
	uint64_t partid, value;

	if (strlen(item) >= sizeof(buf))
		return err_set(err, -EINVAL, "'%.40s...' is too long", item);
	snprintf(buf, sizeof(buf), "%s", item);
	char *colon = strchr(buf, ':');
	if (!colon)
		return err_set(err, -EINVAL, "'%s': expected PARTID:VALUE", item);
	*colon = '\0';
	int r = parse_uint(buf, 0, PARTID_LIMIT, &partid, err);
	if (r == 0)
		r = parse_uint(colon + 1, key->min, key->max, &value, err);
	if (r < 0) {
		err_prefix(err, "'%s'", item);
		return r;
	}
	for (unsigned i = 0; i < list->count; i++)
		if (list->at[i].partid == partid)
			return err_set(err, -EINVAL, "PARTID %" PRIu64 " is named twice", partid);
	if (list->count == SIM_PRELOAD_MAX)
		return err_set(err, -EINVAL, "at most %d PARTIDs", SIM_PRELOAD_MAX);
	list->at[list->count++] = (struct sim_preload){ .partid = (uint16_t)partid, .value = value };
	return 0;
}

static int preload_parse(void *object, const struct config_key *key, const char *value, struct err *err)
{
	struct sim_preloads list = { .count = 0 };
	int r = 0;

	for (const char *p = value + strspn(value, ", \t"); *p && r == 0; p += strspn(p, ", \t")) {
		char item[80];
		size_t len = strcspn(p, ", \t");
		snprintf(item, sizeof(item), "%.*s", (int)(len < sizeof(item) ? len : sizeof(item) - 1), p);
		r = parse_item(item, key, &list, err);
		p += len;
	}
	if (r == 0 && list.count == 0)
		r = err_set(err, -EINVAL, "expected PARTID:VALUE ...");
	if (r == 0)
		*preloads_of(object, key) = list;
	return r;
}

static bool preload_format(const void *object, const struct config_key *key, char *buf, size_t len, bool hex)
{
	const struct sim_preloads *list = preloads_of_const(object, key);
	size_t used = 0;

	if (!list->count)
		return false;
	buf[0] = '\0';
	for (unsigned i = 0; i < list->count && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, hex ? "%s%u:0x%" PRIx64 : "%s%u:%" PRIu64,
					 i ? " " : "", list->at[i].partid, list->at[i].value);
	return true;
}

static bool decimal_format(const void *object, const struct config_key *key, char *buf, size_t len)
{
	return preload_format(object, key, buf, len, false);
}

static bool hex_format(const void *object, const struct config_key *key, char *buf, size_t len)
{
	return preload_format(object, key, buf, len, true);
}

static json_t *preload_to_json(const void *object, const struct config_key *key)
{
	const struct sim_preloads *list = preloads_of_const(object, key);
	json_t *items = json_array();

	for (unsigned i = 0; i < list->count; i++)
		json_array_append_new(items, json_pack("{s:I,s:I}", "partid", (json_int_t)list->at[i].partid, "value",
						       (json_int_t)list->at[i].value));
	return items;
}

const struct config_type sim_preload_decimal_type = { preload_parse, decimal_format, preload_to_json };
const struct config_type sim_preload_hex_type = { preload_parse, hex_format, preload_to_json };

uint16_t sim_preload_stridem1(uint64_t pct, unsigned bwa_wd)
{
	uint64_t stride = pct ? (200 / pct + 1) / 2 : 1; /* round(100 / pct) */
	uint64_t top = mpam_counter_mask(bwa_wd);	 /* STRIDEM1 is BWA_WD bits wide */

	return (uint16_t)(stride - 1 > top ? top : stride - 1);
}
