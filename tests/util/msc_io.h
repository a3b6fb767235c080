/* The simulated MSC's register interface (backends/sim/msc_model.h) for the tests that drive it by
 * hand: every access one cmocka assertion that the model took it. */
#ifndef MPAMD_TESTS_MSC_IO_H
#define MPAMD_TESTS_MSC_IO_H

#include <stdint.h>

#include "backends/sim/msc_model.h"

uint32_t model_rd32(struct msc_model *m, uint32_t offset);
void model_wr32(struct msc_model *m, uint32_t offset, uint32_t value);
uint64_t model_rd64(struct msc_model *m, uint32_t offset);
void model_wr64(struct msc_model *m, uint32_t offset, uint64_t value);

/* The default MSC with every control the model has: MBW_PROP, a 40-portion MBW_PBM, CMAX/CMIN/CASSOC
 * (8-bit CMAX, 4-bit CASSOC) and 4-bit priorities (0 the lowest). */
struct msc_model_params msc_params_every_control(void);

#endif
