/* The mean rate of one partition once the control loop has settled. */
#include "tests/util/settled_mean.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tests/util/engine_util.h"

void settled_mean_on_tick(void *ctx, struct engine *e)
{
	struct settled_mean *m = ctx;
	const struct partition_status *st = engine_find(e, m->partition, NULL);

	if (engine_ticks_done(e) > m->settled && st && st->valid) {
		m->sum += st->mbps;
		m->count++;
	}
}

double settled_mean_mbps(const struct settled_mean *m)
{
	assert_true(m->count > 0);
	return m->sum / m->count;
}
