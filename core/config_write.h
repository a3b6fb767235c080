/* Writes a model back as INI text that config_load reads to the same model. */
#ifndef MPAMD_CORE_CONFIG_WRITE_H
#define MPAMD_CORE_CONFIG_WRITE_H

#include <stdio.h>

#include "core/model.h"

/* Every value is written, defaults included, except PARTIDs the loader picked itself. */
int config_write_ini(const struct config *config, FILE *out);

#endif
