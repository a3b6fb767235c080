/* check-config --host's plan of classes (mpamd.ini(5) CLASSES): from the host's CLOSIDs and RMIDs and
 * the file's partitions with their configured ceilings, how many classes the distinct ceilings need,
 * whether partitions will share and be quantised, and, with classes = own where partitions outnumber
 * the CLOSIDs, that classes = shared would open them all. The assignment is policies/class_assign's,
 * the one mpamd runs, on the configured ceilings (the policies may ask others at run time). */
#ifndef MPAMD_CLI_CHECK_HOST_CLASSES_H
#define MPAMD_CLI_CHECK_HOST_CLASSES_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "backends/contracts/control.h"
#include "core/config/model.h"

/* What the host has for classes, read before any partition is planned. */
struct classes_host {
	bool can_share;	   /* the control shares classes (resctrl), and not under mba_MBps */
	unsigned hardware; /* CLOSIDs beside those the default group (and io_alloc) hold */
	struct class_room room;
};

/* The host's room for classes; can_share false where the control has no classes to share. */
void classes_host_read(const struct control_ops *ops, struct control *control, const struct control_caps *caps,
		       struct classes_host *ret);

/* Whether mpamd would share classes with this file on this host (classes = shared, or auto with more
 * partitions than CLOSIDs), as engine_classes_start decides. */
bool classes_host_shared(const struct config *config, const struct classes_host *host);

/* The plan: {"mode", "shared", "closids", "classes_left", "partitions", "distinct_limits",
 * "classes_used", "sharing", "quantised", "deviation_pct_points", "rmids": {"total", "left", "needed"}
 * or null, "classes": [{"class", "mb_max": [per domain], "partitions": [names]}], "advice"} or null
 * where the control has no classes to share. Adds to `refused` what keeps partitions from opening
 * (too few RMIDs for shared classes). */
json_t *classes_plan(const struct config *config, const struct control_caps *caps, const struct classes_host *host,
		     json_t *refused);

/* "classes: ..." lines for people; nothing for a null plan. */
void classes_plan_print(FILE *out, json_t *plan);

#endif
