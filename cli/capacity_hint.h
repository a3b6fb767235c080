/* mpamctl discover's word on capacity_mbps: what each domain of the control can carry, as far as
 * anything tells (the hardware's figure where the monitors give one; else the highest total a
 * record file shows it carried, a lower bound), and the capacity_mbps line that says it. */
#ifndef MPAMD_CLI_CAPACITY_HINT_H
#define MPAMD_CLI_CAPACITY_HINT_H

#include <jansson.h>
#include <stdio.h>

#include "core/base/error.h"
#include "core/engine/compose.h"

/* {"domains": [{"domain", "what", "capacity_mbps" (null: unknown), "source"}], "suggestion": "capacity_mbps
 * = ..." or null}. `record` (NULL: none) is a record file of this host. A new reference; NULL and err
 * when the record cannot be read. */
json_t *capacity_hint(const struct composition *c, const char *record, struct err *err);
void capacity_hint_print(FILE *out, json_t *hint);

#endif
