/* The simulated MSC's register interface for the tests that drive it by hand. */
#include "tests/util/msc_io.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

/* The reads start from a pattern no register resets to, so a read that left `v` alone shows. */
uint32_t model_rd32(struct msc_model *m, uint32_t offset)
{
	uint32_t v = 0xDEADBEEF;

	assert_int_equal(msc_model_read32(m, offset, &v), 0);
	return v;
}

void model_wr32(struct msc_model *m, uint32_t offset, uint32_t value)
{
	assert_int_equal(msc_model_write32(m, offset, value), 0);
}

uint64_t model_rd64(struct msc_model *m, uint32_t offset)
{
	uint64_t v = 0xDEADBEEFDEADBEEF;

	assert_int_equal(msc_model_read64(m, offset, &v), 0);
	return v;
}

void model_wr64(struct msc_model *m, uint32_t offset, uint64_t value)
{
	assert_int_equal(msc_model_write64(m, offset, value), 0);
}

struct msc_model_params msc_params_every_control(void)
{
	struct msc_model_params p;

	msc_model_params_default(&p);
	p.has_prop = true;
	p.bwpbm_wd = 40;
	p.cmax_wd = 8;
	p.has_cmin = true;
	p.cassoc_wd = 4;
	p.pri_wd = 4;
	return p;
}
