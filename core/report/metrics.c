#include "core/report/metrics.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/grow.h"

#define BUF_INITIAL 4096
/* MB/s inside mpamd are decimal (counter_rate_mbps: 10^6 bytes/s). */
#define BYTES_PER_MB 1e6

/* ---- the buffer ---- */

void metrics_buf_reset(struct metrics_buf *b)
{
	b->len = 0;
	b->failed = false;
	if (b->data)
		b->data[0] = '\0';
}

void metrics_buf_fini(struct metrics_buf *b)
{
	free(b->data);
	*b = (struct metrics_buf){ .data = NULL };
}

static bool buf_reserve(struct metrics_buf *b, size_t more)
{
	if (b->failed)
		return false;
	size_t want = b->len + more + 1;

	if (want <= b->cap)
		return true;
	if (array_grow((void **)&b->data, &b->cap, want > BUF_INITIAL ? want : BUF_INITIAL, 1, NULL) < 0)
		b->failed = true;
	return !b->failed;
}

static void buf_add(struct metrics_buf *b, const char *s, size_t n)
{
	if (!buf_reserve(b, n))
		return;
	memcpy(b->data + b->len, s, n);
	b->len += n; /* buf_reserve keeps room for the NUL metrics_format puts at the end */
}

static void buf_str(struct metrics_buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

/* A label value or help text with the format's escapes: backslash and newline always, the double
 * quote inside label values. Runs without them are copied whole. */
static void buf_escaped(struct metrics_buf *b, const char *s, bool quote)
{
	const char *special = quote ? "\\\n\"" : "\\\n";

	for (;;) {
		size_t n = strcspn(s, special);
		buf_add(b, s, n);
		s += n;
		if (!*s)
			return;
		buf_add(b, *s == '\n' ? "\\n" : *s == '"' ? "\\\"" : "\\\\", 2);
		s++;
	}
}

/* Digits of v, right to left, ending at `end` (which gets the NUL); returns where they start. */
static char *u64_digits(uint64_t v, char *end)
{
	*end = '\0';
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return end;
}

/* Go's ParseFloat reads all of these. Integers stay integers (so counters print exactly), and are
 * written without printf: most values are, and a thousand partitions make tens of thousands. */
static const char *format_value(double v, char *text, size_t len)
{
	if (isnan(v))
		return "NaN";
	if (isinf(v))
		return v > 0 ? "+Inf" : "-Inf";
	if (v == floor(v) && fabs(v) < 9007199254740992.0) { /* 2^53: exact as an integer */
		char *digits = u64_digits((uint64_t)fabs(v), text + len - 1);
		if (v < 0)
			*--digits = '-';
		return digits;
	}
	snprintf(text, len, "%.15g", v);
	return text;
}

/* ---- samples ---- */

struct label {
	const char *name, *value;
};

static void sample_text(struct metrics_buf *b, const char *name, const char *suffix, const struct label *labels,
			size_t label_count, const char *value)
{
	buf_str(b, name);
	buf_str(b, suffix);
	for (size_t i = 0; i < label_count; i++) {
		buf_str(b, i ? "," : "{");
		buf_str(b, labels[i].name);
		buf_add(b, "=\"", 2);
		buf_escaped(b, labels[i].value, true);
		buf_add(b, "\"", 1);
	}
	if (label_count)
		buf_add(b, "}", 1);
	buf_add(b, " ", 1);
	buf_str(b, value);
	buf_add(b, "\n", 1);
}

static void sample(struct metrics_buf *b, const char *name, const struct label *labels, size_t label_count, double v)
{
	char text[40];

	sample_text(b, name, "", labels, label_count, format_value(v, text, sizeof(text)));
}

static void sample_u64(struct metrics_buf *b, const char *name, const struct label *labels, size_t label_count,
		       uint64_t v)
{
	char text[24];

	sample_text(b, name, "", labels, label_count, u64_digits(v, text + sizeof(text) - 1));
}

/* ---- the daemon ---- */

static void write_build_info(struct metrics_buf *b, const struct metrics_family *f, const struct metrics_input *in)
{
	struct label version = { "version", in->version ? in->version : "" };

	sample(b, f->name, &version, 1, 1);
}

static void write_uptime(struct metrics_buf *b, const struct metrics_family *f, const struct metrics_input *in)
{
	sample(b, f->name, NULL, 0, in->uptime_s);
}

static void write_last_tick(struct metrics_buf *b, const struct metrics_family *f, const struct metrics_input *in)
{
	if (in->last_tick_unix_s > 0)
		sample(b, f->name, NULL, 0, in->last_tick_unix_s);
}

static void write_ticks(struct metrics_buf *b, const struct metrics_family *f, const struct metrics_input *in)
{
	sample_u64(b, f->name, NULL, 0, in->ticks);
}

static void write_interval(struct metrics_buf *b, const struct metrics_family *f, const struct metrics_input *in)
{
	sample(b, f->name, NULL, 0, in->interval_s);
}

static void write_tick_duration(struct metrics_buf *b, const struct metrics_family *f, const struct metrics_input *in)
{
	const struct histogram *h = in->tick_duration;
	char text[40], count[24];
	char *count_end = count + sizeof(count) - 1;

	if (!h)
		return;
	for (size_t i = 0; i <= h->bound_count; i++) {
		struct label bucket = { "le",
					i < h->bound_count ? format_value(h->bounds[i], text, sizeof(text)) : "+Inf" };
		sample_text(b, f->name, "_bucket", &bucket, 1, u64_digits(histogram_cumulative(h, i), count_end));
	}
	sample_text(b, f->name, "_sum", NULL, 0, format_value(h->sum, text, sizeof(text)));
	sample_text(b, f->name, "_count", NULL, 0, u64_digits(h->count, count_end));
}

static void write_overruns(struct metrics_buf *b, const struct metrics_family *f, const struct metrics_input *in)
{
	sample_u64(b, f->name, NULL, 0, in->overruns);
}

static void write_reload_ok(struct metrics_buf *b, const struct metrics_family *f, const struct metrics_input *in)
{
	sample(b, f->name, NULL, 0, in->reload_ok ? 1 : 0);
}

static void write_reload_time(struct metrics_buf *b, const struct metrics_family *f, const struct metrics_input *in)
{
	if (in->reload_ok_unix_s > 0)
		sample(b, f->name, NULL, 0, in->reload_ok_unix_s);
}

static void write_capacity(struct metrics_buf *b, const struct metrics_family *f, const struct metrics_input *in)
{
	if (in->capacity_mbps > 0)
		sample(b, f->name, NULL, 0, in->capacity_mbps * BYTES_PER_MB);
}

/* ---- partitions ---- */

static void write_per_partition(struct metrics_buf *b, const struct metrics_family *f, const struct metrics_input *in)
{
	for (size_t i = 0; i < in->partition_count; i++) {
		const struct metrics_partition *p = &in->partitions[i];
		struct label partition = { "partition", p->status->name };
		double v;
		if (f->partition_value(p, &v))
			sample(b, f->name, &partition, 1, v);
	}
}

static bool partition_open(const struct metrics_partition *p, double *ret)
{
	*ret = p->status->open;
	return true;
}

static bool partition_valid(const struct metrics_partition *p, double *ret)
{
	*ret = p->status->valid;
	return true;
}

/* What a partition that is not open has is no measurement and no limit: no sample, not a 0. */
static bool partition_estimated(const struct metrics_partition *p, double *ret)
{
	*ret = p->status->estimated;
	return p->status->open;
}

static bool partition_bytes(const struct metrics_partition *p, double *ret)
{
	*ret = (double)p->status->bytes_total;
	return p->status->open;
}

static bool partition_max_ratio(const struct metrics_partition *p, double *ret)
{
	*ret = p->status->mb_max / 100.0;
	return p->status->open;
}

static bool partition_min_ratio(const struct metrics_partition *p, double *ret)
{
	*ret = p->status->mb_min / 100.0;
	return p->status->open;
}

static bool partition_guarantee(const struct metrics_partition *p, double *ret)
{
	*ret = p->guarantee_mbps * BYTES_PER_MB;
	return p->guarantee_mbps > 0;
}

static bool partition_target(const struct metrics_partition *p, double *ret)
{
	*ret = p->target_mbps * BYTES_PER_MB;
	return p->target_mbps > 0;
}

static bool partition_invalid(const struct metrics_partition *p, double *ret)
{
	*ret = (double)p->invalid_samples;
	return p->status->open;
}

/* Not counted (no sampler, the partition refused, the event did not run) is no sample, not a 0. */
static bool partition_ipc(const struct metrics_partition *p, double *ret)
{
	*ret = p->status->ipc;
	return p->status->open && p->status->ipc_valid;
}

static bool partition_stall_ratio(const struct metrics_partition *p, double *ret)
{
	*ret = p->status->stall_ratio;
	return p->status->open && p->status->stall_valid;
}

/* Placement: only partitions that name tasks (a cgroup, vm or pids) have these. */
static bool partition_tasks(const struct metrics_partition *p, double *ret)
{
	*ret = p->placement ? (double)p->placement->tasks : 0;
	return p->placement != NULL;
}

static bool partition_placements(const struct metrics_partition *p, double *ret)
{
	*ret = p->placement ? (double)p->placement->placements : 0;
	return p->placement != NULL;
}

static bool partition_misses(const struct metrics_partition *p, double *ret)
{
	*ret = p->placement ? (double)p->placement->misses : 0;
	return p->placement != NULL;
}

/* classes = shared: the class it is in, and the ceiling it asked for beside the one its class holds
 * (mpamd_partition_bandwidth_max_ratio); none for a partition with a class of its own. */
static void write_class_info(struct metrics_buf *b, const struct metrics_family *f, const struct metrics_input *in)
{
	for (size_t i = 0; i < in->partition_count; i++) {
		const struct partition_status *st = in->partitions[i].status;
		char cls[16];
		if (!st->open || !st->in_class)
			continue;
		snprintf(cls, sizeof(cls), "%u", st->class_id);
		struct label labels[] = { { "partition", st->name }, { "class", cls } };
		sample(b, f->name, labels, 2, 1);
	}
}

static bool partition_max_asked_ratio(const struct metrics_partition *p, double *ret)
{
	*ret = p->status->mb_max_asked / 100.0;
	return p->status->open && p->status->in_class;
}

static void write_classes_used(struct metrics_buf *b, const struct metrics_family *f, const struct metrics_input *in)
{
	if (in->classes)
		sample(b, f->name, NULL, 0, in->classes->held);
}

static void write_classes_left(struct metrics_buf *b, const struct metrics_family *f, const struct metrics_input *in)
{
	if (in->classes)
		sample(b, f->name, NULL, 0, in->classes->left);
}

static void write_rmids_used(struct metrics_buf *b, const struct metrics_family *f, const struct metrics_input *in)
{
	if (in->classes && in->classes->monitors_counted)
		sample(b, f->name, NULL, 0, in->classes->monitors_used);
}

static void write_rmids_left(struct metrics_buf *b, const struct metrics_family *f, const struct metrics_input *in)
{
	const struct class_room *r = in->classes;

	if (r && r->monitors_counted)
		sample(b, f->name, NULL, 0, r->monitors > r->monitors_used ? r->monitors - r->monitors_used : 0);
}

static void write_connector(struct metrics_buf *b, const struct metrics_family *f, const struct metrics_input *in)
{
	sample(b, f->name, NULL, 0, in->proc_connector);
}

static void write_events_lost(struct metrics_buf *b, const struct metrics_family *f, const struct metrics_input *in)
{
	sample(b, f->name, NULL, 0, (double)in->proc_events_lost);
}

/* One series per partition and domain, from that domain's figures of this tick, when `value` gives
 * one: an invalid sample has no rate, a partition that is not open no rate and no limit. */
static void write_per_domain(struct metrics_buf *b, const struct metrics_family *f, const struct metrics_input *in,
			     bool (*value)(const struct domain_status *ds, double *ret))
{
	for (size_t i = 0; i < in->partition_count; i++) {
		const struct metrics_partition *p = &in->partitions[i];
		double v;
		if (!p->status->open || !p->domains)
			continue;
		for (unsigned d = 0; d < in->domain_count; d++) {
			if (!value(&p->domains[d], &v))
				continue;
			struct label labels[] = { { "partition", p->status->name }, { "domain", in->domains[d].name } };
			sample(b, f->name, labels, 2, v);
		}
	}
}

static bool domain_bandwidth(const struct domain_status *ds, double *ret)
{
	*ret = ds->mbps * BYTES_PER_MB;
	return ds->valid;
}

static bool domain_max_ratio(const struct domain_status *ds, double *ret)
{
	*ret = ds->mb_max / 100.0;
	return true;
}

/* Absent where neither the hardware's units nor the domain's capacity say it. */
static bool domain_max_bytes(const struct domain_status *ds, double *ret)
{
	*ret = ds->mb_max_mbps * BYTES_PER_MB;
	return ds->mb_max_mbps > 0;
}

static bool domain_min_ratio(const struct domain_status *ds, double *ret)
{
	*ret = ds->mb_min / 100.0;
	return true;
}

/* Absent where the guard did not judge it (no guarantee, no sample, capacity unknown). */
static bool domain_guarantee_short(const struct domain_status *ds, double *ret)
{
	*ret = ds->guard_short;
	return ds->guard_judged;
}

static void write_bandwidth(struct metrics_buf *b, const struct metrics_family *f, const struct metrics_input *in)
{
	write_per_domain(b, f, in, domain_bandwidth);
}

static void write_domain_max(struct metrics_buf *b, const struct metrics_family *f, const struct metrics_input *in)
{
	write_per_domain(b, f, in, domain_max_ratio);
}

static void write_domain_max_bytes(struct metrics_buf *b, const struct metrics_family *f,
				   const struct metrics_input *in)
{
	write_per_domain(b, f, in, domain_max_bytes);
}

static void write_domain_min(struct metrics_buf *b, const struct metrics_family *f, const struct metrics_input *in)
{
	write_per_domain(b, f, in, domain_min_ratio);
}

static void write_guarantee_short(struct metrics_buf *b, const struct metrics_family *f, const struct metrics_input *in)
{
	write_per_domain(b, f, in, domain_guarantee_short);
}

/* What each domain can carry, known or learned; absent when unknown. */
static void write_domain_capacity(struct metrics_buf *b, const struct metrics_family *f, const struct metrics_input *in)
{
	for (unsigned d = 0; d < in->domain_count; d++) {
		if (!(in->domains[d].capacity_mbps > 0))
			continue;
		struct label labels[] = { { "domain", in->domains[d].name },
					  { "learned", in->domains[d].learned ? "1" : "0" },
					  { "source", in->domains[d].source } };
		sample(b, f->name, labels, in->domains[d].source ? 3 : 2, in->domains[d].capacity_mbps * BYTES_PER_MB);
	}
}

static void write_events_folded(struct metrics_buf *b, const struct metrics_family *f, const struct metrics_input *in)
{
	sample_u64(b, f->name, NULL, 0, in->events_folded);
}

static void write_guarantees_enforced(struct metrics_buf *b, const struct metrics_family *f,
				      const struct metrics_input *in)
{
	if (in->has_guarantees)
		sample(b, f->name, NULL, 0, in->guarantees_enforced);
}

static void write_events(struct metrics_buf *b, const struct metrics_family *f, const struct metrics_input *in)
{
	const struct event_counts *c = in->events;

	for (size_t i = 0; c && i < c->capacity; i++) {
		const struct event_count *slot = &c->slots[i];
		if (!slot->count)
			continue;
		struct label labels[] = { { "partition", slot->partition }, { "action", slot->action } };
		sample_u64(b, f->name, labels, 2, slot->count);
	}
}

/* ---- the table ---- */

static void write_record_ok(struct metrics_buf *b, const struct metrics_family *f, const struct metrics_input *in)
{
	if (in->record)
		sample(b, f->name, NULL, 0, in->record->ok ? 1 : 0);
}

static void write_record_errors(struct metrics_buf *b, const struct metrics_family *f, const struct metrics_input *in)
{
	if (in->record)
		sample(b, f->name, NULL, 0, (double)in->record->errors_total);
}

const struct metrics_family metrics_families[] = {
	{ "mpamd_build_info", "gauge", "Always 1; the version label says which mpamd runs.", write_build_info, NULL },
	{ "mpamd_uptime_seconds", "gauge",
	  "Seconds from the start to the last tick, on the engine's clock (simulated time with --sim-clock).",
	  write_uptime, NULL },
	{ "mpamd_last_tick_timestamp_seconds", "gauge",
	  "Unix time of the last tick: an old value means a stale textfile or a stuck daemon.", write_last_tick, NULL },
	{ "mpamd_ticks_total", "counter", "Ticks run since the start.", write_ticks, NULL },
	{ "mpamd_tick_interval_seconds", "gauge", "The configured tick interval (interval_ms).", write_interval, NULL },
	{ "mpamd_tick_duration_seconds", "histogram",
	  "Wall-clock time one tick took (read, policies, apply, record); buckets are fractions of the "
	  "interval at the start.",
	  write_tick_duration, NULL },
	{ "mpamd_tick_overruns_total", "counter", "Tick intervals skipped because a tick ran late.", write_overruns,
	  NULL },
	{ "mpamd_config_last_reload_success", "gauge",
	  "1 when the last load or reload of the configuration succeeded, 0 when it failed (the previous "
	  "configuration stays).",
	  write_reload_ok, NULL },
	{ "mpamd_config_last_reload_success_timestamp_seconds", "gauge",
	  "Unix time the configuration was last loaded successfully.", write_reload_time, NULL },
	{ "mpamd_record_ok", "gauge",
	  "1 when the last tick's rows reached the record file, 0 when they were lost (mpamctl status says "
	  "why); absent without a record file.",
	  write_record_ok, NULL },
	{ "mpamd_record_errors_total", "counter",
	  "Ticks whose record rows were lost: a write that failed, a file that could not be opened again.",
	  write_record_errors, NULL },
	{ "mpamd_host_capacity_bytes_per_second", "gauge",
	  "Bandwidth all measuring domains can serve together, as the guard judges saturation (known, "
	  "configured or learned); absent when unknown.",
	  write_capacity, NULL },
	{ "mpamd_guarantees_enforced", "gauge",
	  "1 when the guarantees are enforced (the capacity is known, or the record's), 0 while it is learned "
	  "from the totals seen (set capacity_mbps); absent when no partition has a guarantee.",
	  write_guarantees_enforced, NULL },
	{ "mpamd_domain_capacity_bytes_per_second", "gauge",
	  "Bandwidth each domain can serve, as the guard judges its saturation (learned=\"1\": the highest total "
	  "seen, not a known figure; source: configured, hardware, hmat, record or learned); absent when unknown.",
	  write_domain_capacity, NULL },
	{ "mpamd_partition_open", "gauge", "1 when the backend accepted the partition, 0 when it could not be opened.",
	  write_per_partition, partition_open },
	{ "mpamd_partition_sample_valid", "gauge",
	  "1 when every measuring domain gave this tick's sample (measured or estimated), else 0.", write_per_partition,
	  partition_valid },
	{ "mpamd_partition_sample_estimated", "gauge",
	  "1 when some domain's sample was extrapolated while monitors rotate.", write_per_partition,
	  partition_estimated },
	{ "mpamd_partition_bandwidth_bytes_per_second", "gauge",
	  "Memory bandwidth at the last tick per domain; sum by (partition) for the total.", write_bandwidth, NULL },
	{ "mpamd_partition_bytes_total", "counter",
	  "Bytes counted since the partition was opened (estimates included; a reload starts again).",
	  write_per_partition, partition_bytes },
	{ "mpamd_partition_bandwidth_max_ratio", "gauge",
	  "Maximum bandwidth limit in force (mb_max), as a fraction of a domain's bandwidth.", write_per_partition,
	  partition_max_ratio },
	{ "mpamd_partition_bandwidth_min_ratio", "gauge",
	  "Minimum bandwidth limit in force (mb_min), as a fraction of a domain's bandwidth.", write_per_partition,
	  partition_min_ratio },
	{ "mpamd_partition_class_info", "gauge",
	  "Always 1: the class (the resctrl group mpamd-c<class>) the partition shares with classes = shared; "
	  "absent for a partition with a class of its own.",
	  write_class_info, NULL },
	{ "mpamd_partition_bandwidth_max_asked_ratio", "gauge",
	  "With classes = shared: the maximum bandwidth limit the partition asked for (the highest of its "
	  "domains), as a fraction of a domain's bandwidth; mpamd_partition_bandwidth_max_ratio is what its class "
	  "holds. Absent for a partition with a class of its own.",
	  write_per_partition, partition_max_asked_ratio },
	{ "mpamd_partition_domain_bandwidth_max_ratio", "gauge",
	  "Maximum bandwidth limit in force on each domain (mb_max there), as a fraction of the domain's "
	  "bandwidth; the partition's own series is the highest of them.",
	  write_domain_max, NULL },
	{ "mpamd_partition_domain_bandwidth_max_bytes_per_second", "gauge",
	  "What the maximum bandwidth limit in force on each domain lets through, in bytes per second (AMD's "
	  "units say it, elsewhere the domain's capacity); absent where that is unknown.",
	  write_domain_max_bytes, NULL },
	{ "mpamd_partition_domain_bandwidth_min_ratio", "gauge",
	  "Minimum bandwidth limit in force on each domain (mb_min there), as a fraction of the domain's "
	  "bandwidth; the partition's own series is the highest of them.",
	  write_domain_min, NULL },
	{ "mpamd_partition_guarantee_bytes_per_second", "gauge",
	  "Bandwidth the guard protects (guarantee_mbps); only partitions that have one.", write_per_partition,
	  partition_guarantee },
	{ "mpamd_partition_domain_guarantee_short", "gauge",
	  "The guard's verdict at the last tick: 1 when the partition is short of its guarantee and held back "
	  "on the domain, 0 when not (an idle partition, or one that wants less, is not short); absent without a "
	  "guarantee, a sample or the domain's capacity.",
	  write_guarantee_short, NULL },
	{ "mpamd_partition_target_bytes_per_second", "gauge",
	  "Bandwidth the target controller holds (target_mbps); only partitions that have one.", write_per_partition,
	  partition_target },
	{ "mpamd_partition_invalid_samples_total", "counter",
	  "Ticks at which an open partition's sample was invalid (some counter could not be read).",
	  write_per_partition, partition_invalid },
	{ "mpamd_partition_ipc", "gauge",
	  "Instructions per cycle at the last tick, from the PMU; absent when not counted.", write_per_partition,
	  partition_ipc },
	{ "mpamd_partition_stall_ratio", "gauge",
	  "Backend stall cycles per cycle at the last tick, from the PMU; absent when not counted.",
	  write_per_partition, partition_stall_ratio },
	{ "mpamd_partition_tasks", "gauge",
	  "Threads of the partition's cgroup, VM or pids at the last reconcile (vCPUs only with threads = "
	  "vcpu); only partitions that name tasks.",
	  write_per_partition, partition_tasks },
	{ "mpamd_partition_placements_total", "counter",
	  "Threads mpamd put in the partition's group since it was opened.", write_per_partition,
	  partition_placements },
	{ "mpamd_partition_placement_misses_total", "counter",
	  "Threads the kernel refused to put in the partition's group (they stay outside it).", write_per_partition,
	  partition_misses },
	{ "mpamd_classes_used", "gauge",
	  "With classes = shared: the classes (resctrl control groups) mpamd holds; absent otherwise.",
	  write_classes_used, NULL },
	{ "mpamd_classes_left", "gauge",
	  "With classes = shared: the classes the hardware has left beside those (CLOSIDs no group holds); "
	  "absent otherwise.",
	  write_classes_left, NULL },
	{ "mpamd_rmids_used", "gauge",
	  "With classes = shared on resctrl: the RMIDs (monitoring IDs) held, by any group, mpamd's or not; "
	  "absent otherwise.",
	  write_rmids_used, NULL },
	{ "mpamd_rmids_left", "gauge",
	  "With classes = shared on resctrl: the RMIDs left for new monitoring groups (the partitions past them "
	  "cannot be measured); absent otherwise.",
	  write_rmids_left, NULL },
	{ "mpamd_proc_connector_up", "gauge",
	  "1 when new threads are placed on the kernel's proc connector events, 0 when only the reconcile "
	  "places them.",
	  write_connector, NULL },
	{ "mpamd_proc_events_lost_total", "counter",
	  "Times the kernel dropped process events because mpamd fell behind (a reconcile followed).",
	  write_events_lost, NULL },
	{ "mpamd_policy_events_folded_total", "counter",
	  "Policy events not logged because they only repeated one logged before, nothing having changed "
	  "between.",
	  write_events_folded, NULL },
	{ "mpamd_policy_events_total", "counter",
	  "Policy events per partition and action (throttle, restore, guarantee, escalate...), as logged.",
	  write_events, NULL },
};

const size_t metrics_family_count = sizeof(metrics_families) / sizeof(metrics_families[0]);

static void write_family(struct metrics_buf *b, const struct metrics_family *f, const struct metrics_input *in)
{
	buf_str(b, "# HELP ");
	buf_str(b, f->name);
	buf_add(b, " ", 1);
	buf_escaped(b, f->help, false);
	buf_str(b, "\n# TYPE ");
	buf_str(b, f->name);
	buf_add(b, " ", 1);
	buf_str(b, f->type);
	buf_add(b, "\n", 1);
	f->write(b, f, in);
}

int metrics_format(const struct metrics_input *in, struct metrics_buf *b)
{
	metrics_buf_reset(b);
	for (size_t i = 0; i < metrics_family_count; i++)
		write_family(b, &metrics_families[i], in);
	if (!b->failed && b->data)
		b->data[b->len] = '\0';
	if (b->failed) {
		metrics_buf_reset(b);
		b->failed = true;
		return -ENOMEM;
	}
	return 0;
}
