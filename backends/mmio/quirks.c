#include "backends/mmio/quirks.h"

#include <stdbool.h>
#include <stddef.h>

#include "backends/mpam/mpam_regs.h"
#include "core/base/log.h"

#define IIDR_ALL_FIELDS UINT32_C(0xffffffff)

/* When a matched quirk needs a workaround from mpamd. */
enum quirk_when {
	QUIRK_ALWAYS,
	QUIRK_ON_T241_SOC, /* Linux enables it only when the SMCCC SoC id is T241's */
	QUIRK_NEVER,	   /* recognised, but about something mpamd does not use */
};

struct quirk_entry {
	enum msc_quirk quirk;
	const char *name;
	uint32_t iidr, mask;
	enum quirk_when when;
	const char *erratum;	 /* what the part does */
	const char *action;	 /* what mpamd does about it */
	const char *not_applied; /* why nothing, when it matches but does not apply */
};

static const struct quirk_entry quirk_table[] = {
	{ MSC_QUIRK_T241_SHADOW_SCRUB, "T241-MPAM-1", MPAM_IIDR_NVIDIA_T241, IIDR_ALL_FIELDS, QUIRK_ON_T241_SOC,
	  "a configuration change takes effect only after shadow registers outside the MSC's window are "
	  "scrubbed, which Linux does on the T241 SoC",
	  "bandwidth and cache controls are not programmed over MMIO: mpamd does not scrub (use backend = "
	  "resctrl for them)",
	  "the SoC is not an NVIDIA T241 (SMCCC SoC id 036b:0241): no scrub is needed, as in Linux" },
	{ MSC_QUIRK_T241_MBW_MIN_FLOOR, "T241-MPAM-4", MPAM_IIDR_NVIDIA_T241, IIDR_ALL_FIELDS, QUIRK_ALWAYS,
	  "bandwidth can settle anywhere between MBW_MIN and MBW_MAX, and MBW_MIN below one step can leave a "
	  "requester throttled for good",
	  "MBW_MIN is derived from MBW_MAX (5% below it, at least one step) as Linux does; mb_min is not offered",
	  NULL },
	{ MSC_QUIRK_T241_MBWU_X64, "T241-MPAM-6", MPAM_IIDR_NVIDIA_T241, IIDR_ALL_FIELDS, QUIRK_ALWAYS,
	  "MBWU counters count 64-byte units", "values and overflows are multiplied by 64", NULL },
	{ MSC_QUIRK_CMN650_CSU_NRDY, "CMN-650 erratum 3642720", MPAM_IIDR_ARM_CMN_650, IIDR_ALL_FIELDS, QUIRK_NEVER,
	  "CSU NRDY never clears", NULL,
	  "nothing to do: it concerns CSU (cache occupancy) monitors, and mpamd reads MBWU monitors" },
};

#define QUIRK_COUNT (sizeof(quirk_table) / sizeof(quirk_table[0]))

static bool matches(const struct quirk_entry *q, uint32_t iidr)
{
	return (iidr & q->mask) == q->iidr;
}

/* A quirk that Linux ties to the T241 SoC applies when the SoC is T241, and also when nothing says it
 * is not: without a soc device in sysfs the firmware may still be T241's. */
static bool applies(const struct quirk_entry *q, const struct soc_id *soc)
{
	switch (q->when) {
	case QUIRK_ALWAYS:
		return true;
	case QUIRK_ON_T241_SOC:
		return !soc->known || soc->id == SOC_ID_NVIDIA_T241;
	case QUIRK_NEVER:
		break;
	}
	return false;
}

unsigned msc_quirks_of(uint32_t iidr, const struct soc_id *soc)
{
	unsigned set = 0;

	for (size_t i = 0; i < QUIRK_COUNT; i++)
		if (matches(&quirk_table[i], iidr) && applies(&quirk_table[i], soc))
			set |= quirk_table[i].quirk;
	return set;
}

json_t *msc_quirks_describe(uint32_t iidr, const struct soc_id *soc)
{
	json_t *list = json_array();

	for (size_t i = 0; i < QUIRK_COUNT; i++) {
		const struct quirk_entry *q = &quirk_table[i];
		if (!matches(q, iidr))
			continue;
		bool on = applies(q, soc);
		json_array_append_new(list, json_pack("{s:s,s:s,s:b,s:s}", "name", q->name, "erratum", q->erratum,
						      "applied", on, "action", on ? q->action : q->not_applied));
	}
	return list;
}

void msc_quirks_log(const char *name, uint32_t iidr, const struct soc_id *soc)
{
	for (size_t i = 0; i < QUIRK_COUNT; i++) {
		const struct quirk_entry *q = &quirk_table[i];
		if (!matches(q, iidr) || !applies(q, soc))
			continue;
		if (q->quirk == MSC_QUIRK_T241_SHADOW_SCRUB)
			log_warning("msc \"%s\": %s (%s): %s", name, q->name, q->erratum, q->action);
		else
			log_info("msc \"%s\": %s (%s): %s", name, q->name, q->erratum, q->action);
	}
}

uint16_t msc_quirk_t241_mbw_min(unsigned bwa_wd, uint16_t max_field)
{
	unsigned w = bwa_wd < 1 ? 1 : bwa_wd > 16 ? 16 : bwa_wd;
	uint32_t step = UINT32_C(1) << (16 - w);
	uint32_t delta = 5 * UINT32_C(0xFFFF) / 100 - 1;
	uint32_t min = max_field > delta ? max_field - delta : 0;

	if (min < step)
		min = step;
	return (uint16_t)(min & ~(step - 1));
}

const char *msc_quirks_controls_refused(unsigned applied)
{
	if (applied & MSC_QUIRK_T241_SHADOW_SCRUB)
		return "controls of this NVIDIA T241 MSC are not programmed over MMIO (erratum T241-MPAM-1: a change "
		       "takes effect only after shadow registers outside the MSC's window are scrubbed, which Linux "
		       "does and mpamd does not); use backend = resctrl for them";
	return NULL;
}
