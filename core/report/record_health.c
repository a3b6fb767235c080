/* A record file that fails: each lost tick counted, the file tried again on the next tick and then
 * less and less often while it keeps failing, and one log line per change of state (failing, and
 * why; writing again), never one per tick. */
#include <stdio.h>
#include <string.h>

#include "core/base/log.h"
#include "core/config/config_json.h"
#include "core/report/record_internal.h"

void record_recovery_init(struct record_recovery *rc)
{
	*rc = (struct record_recovery){ .health = { .ok = true }, .backoff = 1 };
}

/* A write or an open that failed: said when the file was fine until now (`why` names it), and the next
 * try put off. */
static void attempt_failed(struct record_recovery *rc, int r, const struct err *why)
{
	if (rc->health.ok)
		log_error("%s; the rows of each tick are lost until it works again (tried again at the next tick, "
			  "then at most every %u ticks; mpamctl status says why)",
			  why->text, RECORD_RETRY_MAX_TICKS);
	rc->health.ok = false;
	rc->code = r;
	snprintf(rc->health.error, sizeof(rc->health.error), "%s", why->text);
	rc->next_try = rc->ticks + rc->backoff;
	rc->backoff = rc->backoff * 2 < RECORD_RETRY_MAX_TICKS ? rc->backoff * 2 : RECORD_RETRY_MAX_TICKS;
}

static void worked(struct record_recovery *rc, const char *path)
{
	if (!rc->health.ok)
		log_info("record file %s: written again, after %llu tick(s) lost", path, (unsigned long long)rc->lost);
	rc->health.ok = true;
	rc->health.error[0] = '\0';
	rc->lost = 0;
	rc->backoff = 1;
	rc->next_try = 0;
}

void record_recovery_tick(struct record_recovery *rc, const char *path, int r, const struct err *why, bool tried)
{
	rc->ticks++;
	if (r >= 0) {
		worked(rc, path);
		return;
	}
	rc->health.errors_total++;
	rc->lost++;
	if (tried)
		attempt_failed(rc, r, why);
}

void record_recovery_opened(struct record_recovery *rc, int r, const struct err *why)
{
	if (r < 0)
		attempt_failed(rc, r, why);
	else if (!rc->health.ok)
		rc->next_try = 0; /* the next tick writes, and says so */
}

bool record_recovery_due(const struct record_recovery *rc)
{
	return rc->ticks + 1 >= rc->next_try; /* the tick being ended is number ticks + 1 */
}

json_t *record_recovery_json(const struct record_recovery *rc, const char *path)
{
	return json_pack("{s:o,s:b,s:I,s:o}", "path", config_json_text(path), "ok", rc->health.ok, "errors_total",
			 (json_int_t)rc->health.errors_total, "error",
			 rc->health.ok ? json_null() : config_json_text(rc->health.error));
}
