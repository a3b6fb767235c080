/* Decimals in configuration text the simulator writes back (mb_curve, sim_burst). */
#ifndef MPAMD_BACKENDS_SIM_DECIMAL_TEXT_H
#define MPAMD_BACKENDS_SIM_DECIMAL_TEXT_H

#include <stddef.h>

/* The shortest %g text that reads back as exactly `v`, so a written file means what was loaded. */
void decimal_text(double v, char *buf, size_t len);

#endif
