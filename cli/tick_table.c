#include "cli/tick_table.h"

static const char *state_of(const struct partition_status *st)
{
	if (!st->open)
		return "failed";
	if (!st->valid)
		return "invalid";
	return st->estimated ? "estimate" : "measured";
}

static void print_table(const struct engine *e, FILE *out)
{
	bool truth = engine_has_truth(e);

	fprintf(out, "t=%.1fs %-16s %10s %8s %7s %7s%s\n", engine_last_tick_s(e), "partition", "MB/s", "state",
		"mb_max", "mb_min", truth ? "   sim MB/s" : "");
	for (size_t i = 0; i < engine_partition_count(e); i++) {
		const struct partition_status *st = engine_partition(e, i);
		char rate[32];
		if (!st->name)
			continue; /* a free slot */
		snprintf(rate, sizeof(rate), st->valid ? "%.1f" : "-", st->mbps);
		char mb_max[16] = "-", mb_min[16] = "-"; /* a failed partition has no limit in force, not 0% */
		if (st->open) {
			snprintf(mb_max, sizeof(mb_max), "%g%%", st->mb_max);
			snprintf(mb_min, sizeof(mb_min), "%g%%", st->mb_min);
		}
		fprintf(out, "       %-16s %10s %8s %7s %7s", st->name, rate, state_of(st), mb_max, mb_min);
		if (truth)
			fprintf(out, " %10.1f", st->truth_mbps);
		fputc('\n', out);
	}
	fflush(out);
}

void tick_table_on_tick(void *ctx, struct engine *engine)
{
	const struct tick_table *t = ctx;

	if (t->every && engine_ticks_done(engine) % t->every == 0)
		print_table(engine, t->out ? t->out : stdout);
}
