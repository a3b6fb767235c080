/* See burst.h. */
#include "backends/sim/burst.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/decimal_text.h"
#include "core/base/parse.h"

#define NS_PER_MS 1000000u
#define TEXT_MAX  64

static int parse_fields(char *buf, struct burst *b, struct err *err)
{
	char *duty = strchr(buf, ':'), *phase;
	uint64_t v;
	struct err inner = { "" };

	if (!duty)
		return err_set(err, -EINVAL, "expected PERIOD_MS:DUTY or PERIOD_MS:DUTY:PHASE_MS");
	*duty++ = '\0';
	phase = strchr(duty, ':');
	if (phase)
		*phase++ = '\0';
	if (parse_uint(buf, 1, BURST_PERIOD_MS_MAX, &v, &inner) < 0)
		return err_set(err, -EINVAL, "PERIOD_MS: %.80s", inner.text);
	b->period_ms = (uint32_t)v;
	if (parse_decimal(duty, 0, 1, &b->duty, &inner) < 0)
		return err_set(err, -EINVAL, "DUTY: %.80s", inner.text);
	b->phase_ms = 0;
	if (phase && parse_uint(phase, 0, b->period_ms - 1, &v, &inner) < 0)
		return err_set(err, -EINVAL, "PHASE_MS: %.80s (it is within the period)", inner.text);
	if (phase)
		b->phase_ms = (uint32_t)v;
	return 0;
}

int burst_parse(const char *text, struct burst *ret, struct err *err)
{
	char buf[TEXT_MAX];
	struct burst b;

	if (strlen(text) >= sizeof(buf))
		return err_set(err, -EINVAL, "at most %d characters", TEXT_MAX - 1);
	snprintf(buf, sizeof(buf), "%s", text);
	int r = parse_fields(buf, &b, err);
	if (r == 0)
		*ret = b;
	return r;
}

bool burst_format(const struct burst *b, char *buf, size_t len)
{
	char duty[32];

	if (!b->period_ms)
		return false;
	decimal_text(b->duty, duty, sizeof(duty));
	if (b->phase_ms)
		snprintf(buf, len, "%" PRIu32 ":%s:%" PRIu32, b->period_ms, duty, b->phase_ms);
	else
		snprintf(buf, len, "%" PRIu32 ":%s", b->period_ms, duty);
	return true;
}

static uint64_t period_ns(const struct burst *b)
{
	return (uint64_t)b->period_ms * NS_PER_MS;
}

/* How long the demand is on in each period, rounded to the nanosecond. */
static uint64_t on_ns(const struct burst *b)
{
	return (uint64_t)llround(b->duty * (double)period_ns(b));
}

/* Where t_ns falls within its period, counted from the start of the on window. */
static uint64_t since_on(const struct burst *b, uint64_t t_ns)
{
	uint64_t period = period_ns(b), phase = (uint64_t)b->phase_ms * NS_PER_MS;

	return (t_ns % period + period - phase) % period;
}

static bool always_same(const struct burst *b)
{
	uint64_t on = b->period_ms ? on_ns(b) : 0;

	return !b->period_ms || on == 0 || on >= period_ns(b);
}

bool burst_on(const struct burst *b, uint64_t t_ns)
{
	if (always_same(b))
		return !b->period_ms || on_ns(b) > 0;
	return since_on(b, t_ns) < on_ns(b);
}

uint64_t burst_next_edge(const struct burst *b, uint64_t t_ns)
{
	if (always_same(b))
		return UINT64_MAX;
	uint64_t into = since_on(b, t_ns), on = on_ns(b);
	uint64_t wait = into < on ? on - into : period_ns(b) - into;

	return t_ns > UINT64_MAX - wait ? UINT64_MAX : t_ns + wait;
}
