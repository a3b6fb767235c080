/* A resctrl mount's description for people (mpamctl discover): its resources, CLOSIDs, masks, MB units
 * and steps, RMIDs, monitoring events and counter assignment. */
#include <stdio.h>

#include "backends/resctrl/resctrl.h"
#include "backends/shared/describe_text.h"

static void print_caches(json_t *d, FILE *out)
{
	const char *caches[] = { "L3", "L2" };

	for (size_t i = 0; i < 2; i++) {
		json_t *c = json_object_get(d, caches[i]);
		if (json_is_object(c))
			fprintf(out,
				"  %s: %lld-bit CBM (mask %s), min %lld bits, shareable %s, sparse masks %s%s, %lld "
				"domains\n",
				describe_str(c, "name"), describe_num(c, "cbm_bits"), describe_str(c, "cbm_mask"),
				describe_num(c, "min_cbm_bits"), describe_str(c, "shareable_bits"),
				describe_yes_no(json_object_get(c, "sparse_masks")),
				json_is_true(json_object_get(c, "cdp")) ? ", CDP" : "", describe_num(c, "domains"));
	}
}

static void print_monitoring(json_t *mon, FILE *out)
{
	const char *mode = describe_str(mon, "mbm_assign_mode");
	const char *res = describe_str(mon, "resource");

	fprintf(out,
		"  %s_MON: %lld RMIDs; mbm_total_bytes %s, mbm_local_bytes %s, llc_occupancy %s; %zu "
		"domains%s%s\n",
		res ? res : "?", describe_num(mon, "num_rmids"),
		describe_yes_no(json_object_get(mon, "mbm_total_bytes")),
		describe_yes_no(json_object_get(mon, "mbm_local_bytes")),
		describe_yes_no(json_object_get(mon, "llc_occupancy")),
		json_array_size(json_object_get(mon, "domains")), mode && *mode ? "; counter assignment " : "",
		mode ? mode : "");
}

void resctrl_describe_print(json_t *d, FILE *out)
{
	json_t *mb = json_object_get(d, "MB"), *mon = json_object_get(d, "monitoring");

	const char *io_alloc = describe_str(d, "io_alloc"); /* NULL where the L3 has none */
	fprintf(out, "resctrl at %s%s: %lld CLOSIDs%s%s%s\n", describe_str(d, "root"),
		json_is_true(json_object_get(d, "resctrl_mount")) ? "" : " (not a resctrl mount)",
		describe_num(d, "num_closids"), json_is_true(json_object_get(d, "debug")) ? ", debug (ctrl_hw_id)" : "",
		io_alloc ? ", io_alloc " : "", io_alloc ? io_alloc : "");
	print_caches(d, out);
	if (json_is_object(mb)) {
		/* AMD and MPAM have no thread_throttle_mode file. */
		const char *throttle = describe_str(mb, "thread_throttle_mode");
		fprintf(out, "  MB: %s, step %lld, minimum %lld, max %lld, delay %s, throttle %s, %lld domains\n",
			describe_str(mb, "units"), describe_num(mb, "bandwidth_gran"),
			describe_num(mb, "min_bandwidth"), describe_num(mb, "max_value"),
			json_is_true(json_object_get(mb, "delay_linear")) ? "linear" : "non-linear",
			throttle && throttle[0] ? throttle : "not shown", describe_num(mb, "domains"));
	}
	if (json_is_object(mon))
		print_monitoring(mon, out);
}
