/* mpamctl check-config --host: what a valid configuration would do on this host, found through the
 * control's validate and plan, with nothing written. */
#ifndef MPAMD_CLI_CHECK_HOST_H
#define MPAMD_CLI_CHECK_HOST_H

#include <jansson.h>
#include <stdio.h>

#include "cli/check_host_overcommit.h"
#include "core/config/model.h"

/* Opens and probes the control `config` names (no monitor, no actuator, no partition) and plans
 * every partition in order. *ret is the report:
 *   {"backend", "hardware": {caps}, "can_hold", "refused": [host-wide reasons],
 *    "capacity": [{"domain", "capacity_mbps" (null: unknown), "source"}] (capacity_mbps, then the
 *    hardware's, then ACPI HMAT's under `sysfs_root`, as mpamd trusts them),
 *    "partitions": [{"name", "verdict": "ok" | "refused", "reason", "limits", "rounding",
 *                    "notes", "writes"}],
 *    "classes": the plan of classes (cli/check_host_classes.h; null where the control shares none)}
 * or {"backend", "can_hold": false, "error"} when the host cannot be probed. *domains: the control's
 * domains and what each carries, for check_overcommit (none when the host cannot be probed). Returns 0
 * when the host can hold every partition, else -1 (and the report says why). */
int check_host(const struct config *config, const char *sysfs_root, struct overcommit_domains *domains, json_t **ret);

/* The report as text for people: the hardware, one block per partition (verdict, rounding, notes,
 * writes), the plan of classes, the host-wide refusals and a result line. */
void check_host_print(FILE *out, json_t *report);

#endif
