/* Errata of known MSC parts, matched on MPAMF_IIDR as Linux's quirk table matches them (all four
 * fields: product, variant, revision, implementer), and what mpamd does about each. */
#ifndef MPAMD_BACKENDS_MMIO_QUIRKS_H
#define MPAMD_BACKENDS_MMIO_QUIRKS_H

#include <jansson.h>
#include <stdint.h>

#include "backends/mmio/soc_id.h"

enum msc_quirk {
	/* T241-MPAM-1: Linux scrubs shadow registers (outside the MSC's window) after every
	 * configuration change, on the T241 SoC only. mpamd cannot, so it programs no control. */
	MSC_QUIRK_T241_SHADOW_SCRUB = 1u << 0,
	/* T241-MPAM-4: MBW_MIN 0 can leave a requester throttled for good; MIN is derived from MAX
	 * (5% below it, at least one step) as Linux does, and not offered as mb_min. */
	MSC_QUIRK_T241_MBW_MIN_FLOOR = 1u << 1,
	/* T241-MPAM-6: MBWU counters count 64-byte units, values and overflows alike. */
	MSC_QUIRK_T241_MBWU_X64 = 1u << 2,
	/* CMN-650 erratum 3642720: CSU NRDY never clears. Concerns CSU monitors, which mpamd does not
	 * use: recognised, nothing to do. */
	MSC_QUIRK_CMN650_CSU_NRDY = 1u << 3,
};

/* The workarounds mpamd applies to an MSC with this IIDR on this SoC. */
unsigned msc_quirks_of(uint32_t iidr, const struct soc_id *soc);

/* Every quirk the IIDR matches, applied or not, with what mpamd does (or why nothing):
 * [{"name": "T241-MPAM-6", "erratum": "...", "applied": true, "action": "..."}]. */
json_t *msc_quirks_describe(uint32_t iidr, const struct soc_id *soc);

/* Says in the log which quirks MSC `name` gets: a warning when its controls go unprogrammed, else
 * information. */
void msc_quirks_log(const char *name, uint32_t iidr, const struct soc_id *soc);

/* T241-MPAM-4: the MBW_MIN field Linux programs beside an MBW_MAX field, for a BWA_WD of `bwa_wd`:
 * MAX minus 5% of the range (5 * 0xFFFF / 100 - 1), never below one step, with the bits below the
 * implemented ones dropped as the MSC drops them. */
uint16_t msc_quirk_t241_mbw_min(unsigned bwa_wd, uint16_t max_field);

/* Why mpamd programs no control of an MSC with these quirks, or NULL when it does. */
const char *msc_quirks_controls_refused(unsigned quirks);

#endif
