#include "cli/capacity_hint.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/report/record_peaks.h"

/* A suggestion is rounded down to this: the figures are estimates, and a round one reads as one. */
#define HINT_ROUND_MBPS 100.0

/* What the monitors measuring control domain d say it carries: the sum of their figures, 0 when one
 * of them (or all: none measures it) does not tell. */
static double hardware_capacity(const struct composition *c, unsigned d)
{
	double sum = 0; /* 0 when no monitor measures it */

	for (unsigned m = 0; m < c->domain_count; m++) {
		if (composition_control_domain(c, m) != (int)d)
			continue;
		if (!(c->domains[m].capacity_mbps > 0))
			return 0;
		sum += c->domains[m].capacity_mbps;
	}
	return sum;
}

/* The file's peak on the domain named like control domain d ("0"), 0 when the file has none. */
static double record_capacity(const struct composition *c, unsigned d, const struct record_file *file,
			      const struct record_peaks *peaks)
{
	char name[16];

	if (!file)
		return 0;
	snprintf(name, sizeof(name), "%u", c->caps.domains[d].id);
	double peak = record_peaks_of_domain(peaks, file, name);
	if (peak >= 0)
		return peak;
	/* A file of one domain, or from before domains: its totals are the one domain's. */
	return c->caps.domain_count == 1 && file->domain_count == 1 ? record_peaks_of_domain(peaks, file, "") : 0;
}

static json_t *domain_entry(const struct composition *c, unsigned d, const struct record_file *file,
			    const struct record_peaks *peaks, double *ret)
{
	double hw = hardware_capacity(c, d), seen = record_capacity(c, d, file, peaks);
	const char *source = hw > 0 ? "hardware" : seen > 0 ? "record" : NULL;

	*ret = hw > 0 ? hw : floor(seen / HINT_ROUND_MBPS) * HINT_ROUND_MBPS;
	return json_pack("{s:I,s:s,s:o,s:o}", "domain", (json_int_t)c->caps.domains[d].id, "what",
			 c->caps.domains[d].name, "capacity_mbps", *ret > 0 ? json_real(*ret) : json_null(), "source",
			 source ? json_string(source) : json_null());
}

/* "capacity_mbps = 10000" when every domain has the same figure, else one per domain; NULL when some
 * domain has none. */
static json_t *suggestion(const struct composition *c, const double *figure)
{
	char text[512];
	size_t used;
	bool same = true;

	for (unsigned d = 0; d < c->caps.domain_count; d++) {
		if (!(figure[d] > 0))
			return json_null();
		same &= figure[d] == figure[0];
	}
	if (!c->caps.domain_count)
		return json_null();
	used = (size_t)snprintf(text, sizeof(text), "capacity_mbps = ");
	if (same) {
		snprintf(text + used, sizeof(text) - used, "%.0f", figure[0]);
		return json_string(text);
	}
	for (unsigned d = 0; d < c->caps.domain_count && used < sizeof(text); d++)
		used += (size_t)snprintf(text + used, sizeof(text) - used, "%s%u=%.0f", d ? "," : "",
					 c->caps.domains[d].id, figure[d]);
	return json_string(text);
}

json_t *capacity_hint(const struct composition *c, const char *record, struct err *err)
{
	struct record_file *file = NULL;
	struct record_peaks peaks = { 0 };
	double figure[CONTROL_MAX_DOMAINS] = { 0 };

	if (record && record_file_new(record, &file, err) < 0)
		return NULL;
	/* the most in one tick: an operator's figure to judge, rounded down */
	if (file && record_peaks_of_file(file, 1, &peaks, err) < 0) {
		record_file_free(file);
		return NULL;
	}
	json_t *domains = json_array();
	for (unsigned d = 0; d < c->caps.domain_count; d++)
		json_array_append_new(domains, domain_entry(c, d, file, &peaks, &figure[d]));
	record_file_free(file);
	record_peaks_fini(&peaks);
	return json_pack("{s:o,s:o}", "domains", domains, "suggestion", suggestion(c, figure));
}

void capacity_hint_print(FILE *out, json_t *hint)
{
	json_t *d, *suggested = json_object_get(hint, "suggestion");
	size_t i;

	json_array_foreach(json_object_get(hint, "domains"), i, d) {
		const char *source = json_string_value(json_object_get(d, "source"));
		fprintf(out, "domain %lld (%s): ", (long long)json_integer_value(json_object_get(d, "domain")),
			json_string_value(json_object_get(d, "what")));
		if (!source)
			fprintf(out, "capacity unknown\n");
		else
			fprintf(out, "%.0f MB/s (%s)\n", json_number_value(json_object_get(d, "capacity_mbps")),
				!strcmp(source, "hardware") ? "the hardware's figure"
							    : "the most it carried in the record: a lower bound");
	}
	if (json_is_string(suggested))
		fprintf(out, "suggested: %s\n", json_string_value(suggested));
	else if (json_array_size(json_object_get(hint, "domains")))
		fprintf(out, "suggested: none: give a record file of this host under load (--record FILE), or measure "
			     "each domain with a bandwidth benchmark, and set capacity_mbps\n");
}
