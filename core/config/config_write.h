/* Writes a model back as INI text that loads to the same model (tests round-trip every valid file). */
#ifndef MPAMD_CORE_CONFIG_CONFIG_WRITE_H
#define MPAMD_CORE_CONFIG_CONFIG_WRITE_H

#include <stdio.h>

#include "core/config/model.h"

/* Every key that holds a value, section by section, in key table order. 0, or -EIO. */
int config_write_ini(const struct config *config, FILE *out);

#endif
