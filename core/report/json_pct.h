/* A percent limit in JSON: an integer when it is a whole percent (as every limit was before rungs),
 * else the exact fraction (34.375). Readers take either with json_number_value. */
#ifndef MPAMD_CORE_REPORT_JSON_PCT_H
#define MPAMD_CORE_REPORT_JSON_PCT_H

#include <jansson.h>
#include <math.h>

static inline json_t *json_pct(double pct)
{
	return pct == floor(pct) && fabs(pct) < 1e15 ? json_integer((json_int_t)pct) : json_real(pct);
}

#endif
