/* Decimals written so that they read back exactly: configuration text the simulator writes back
 * (mb_curve, sim_burst), and limits that are not whole percents (34.375%: a rung, core/base/ladder.h). */
#ifndef MPAMD_CORE_BASE_DECIMAL_TEXT_H
#define MPAMD_CORE_BASE_DECIMAL_TEXT_H

#include <stddef.h>

/* The shortest %g text that reads back as exactly `v`, so a written file means what was loaded. */
void decimal_text(double v, char *buf, size_t len);

#endif
