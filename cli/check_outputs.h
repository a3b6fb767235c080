/* check-config --host's look at where mpamd would write its record file and metrics textfile: a path
 * mpamd could not write on this host (no such directory, a read-only file system, no permission), and
 * one outside the directories the shipped systemd unit (etc/mpamd.service) lets mpamd write, which
 * under that unit fails however the directory looks from a shell. Each is a warning naming the fix. */
#ifndef MPAMD_CLI_CHECK_OUTPUTS_H
#define MPAMD_CLI_CHECK_OUTPUTS_H

#include "core/base/diag.h"
#include "core/config/config.h"

/* The directories the shipped unit lets mpamd write files in (StateDirectory=, RuntimeDirectory=,
 * ReadWritePaths=), NULL-terminated; the first UNIT_MADE_DIRS the unit makes itself when it starts. */
extern const char *const unit_writable_dirs[];
#define UNIT_MADE_DIRS 2

/* Adds a warning (about the whole file) to `diags` for each output path with a problem above. */
void check_outputs(const struct config *config, struct diag_list *diags);

#endif
