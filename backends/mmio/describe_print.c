/* MPAM MSCs' description for people (mpamctl discover, backend = mmio and the simulator's): PARTIDs,
 * PMGs, each MSC with its RIS, bandwidth controls and their granularity, cache portion bits,
 * monitors and counter width, and the errata workarounds it applies. */
#include <stdio.h>
#include <string.h>

#include "backends/mmio/mmio_control.h"
#include "backends/shared/describe_text.h"

static void print_ris(json_t *ris, FILE *out)
{
	json_t *bw = json_object_get(ris, "bandwidth");
	json_t *ctr = json_object_get(ris, "counter");

	fprintf(out, "  RIS %lld:", describe_num(ris, "index"));
	if (describe_num(ris, "intpartids"))
		fprintf(out, " PARTID narrowing to %lld intPARTIDs;", describe_num(ris, "intpartids"));
	if (bw) {
		fprintf(out, " bandwidth BWA_WD %lld (granularity %lld%%, minimum %lld%%, MIN %s, MAX %s",
			describe_num(bw, "bwa_wd"), describe_num(bw, "granularity_pct"),
			describe_num(bw, "min_bandwidth_pct"), describe_yes_no(json_object_get(bw, "has_min")),
			describe_yes_no(json_object_get(bw, "has_max")));
		/* MAX_LIM, and what mpamd's mb_max is there (mb_max_mode where the MSC lets it choose). */
		if (json_object_get(bw, "mb_max_limit"))
			fprintf(out, ", MAX_LIM %s: mb_max is %s", describe_str(bw, "max_lim_means"),
				describe_str(bw, "mb_max_limit"));
		fprintf(out, ", PROP %s, PBM %lld portions);", describe_yes_no(json_object_get(bw, "has_prop")),
			describe_num(bw, "pbm_wd"));
	} else {
		fprintf(out, " no bandwidth controls;");
	}
	fprintf(out, " CPBM %lld bits; %lld MBWU monitors", describe_num(ris, "cpbm_wd"),
		describe_num(ris, "monitors"));
	if (ctr)
		fprintf(out, ", %lld-bit counters (scale %lld)", describe_num(ctr, "bits"), describe_num(ctr, "scale"));
	fputc('\n', out);
}

/* "  quirk T241-MPAM-6 (MBWU counters count 64-byte units): values and overflows are multiplied by 64" */
static void print_quirk(json_t *q, FILE *out)
{
	fprintf(out, "  quirk %s (%s): %s%s\n", describe_str(q, "name"), describe_str(q, "erratum"),
		json_is_true(json_object_get(q, "applied")) ? "" : "not applied, ", describe_str(q, "action"));
}

/* Who clears NRDY, as discover says it: mpamd honours the bit either way. */
static const char *nrdy_text(const char *nrdy)
{
	if (!nrdy || !strcmp(nrdy, "not probed"))
		return "not probed";
	return !strcmp(nrdy, "software") ? "software-managed (cleared by zeroing the counter)" : "hardware-managed";
}

static void print_msc(json_t *msc, FILE *out)
{
	size_t j;
	json_t *item;

	fprintf(out, "msc %s at %s (%lld bytes): MPAM v%s, PARTID_MAX %lld, PMG_MAX %lld, IIDR %s, ESR %s, NRDY %s\n",
		describe_str(msc, "name"), describe_str(msc, "base"), describe_num(msc, "size"),
		describe_str(msc, "architecture"), describe_num(msc, "partid_max"), describe_num(msc, "pmg_max"),
		describe_str(msc, "iidr"), describe_yes_no(json_object_get(msc, "esr")),
		nrdy_text(describe_str(msc, "nrdy")));
	json_array_foreach(json_object_get(msc, "quirks"), j, item)
		print_quirk(item, out);
	json_array_foreach(json_object_get(msc, "ris"), j, item)
		print_ris(item, out);
}

void mmio_describe_print(json_t *d, FILE *out)
{
	json_t *mscs = json_object_get(d, "mscs");
	size_t i;
	json_t *msc;

	fprintf(out,
		"backend %s: %lld PARTIDs, %lld PMGs, %zu MSCs, bandwidth granularity %lld%%, %lld monitors per MSC\n",
		describe_str(d, "backend"), describe_num(d, "partids"), describe_num(d, "pmgs"), json_array_size(mscs),
		describe_num(d, "bandwidth_granularity_pct"), describe_num(d, "monitors_per_msc"));
	json_array_foreach(mscs, i, msc)
		print_msc(msc, out);
}
