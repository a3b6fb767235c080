/* The SoC the MSCs sit in, as firmware names it through the Arm SMCCC SoC id (JEP106 bank and
 * manufacturer, and the SoC's own number). Linux applies an erratum workaround (NVIDIA T241-MPAM-1)
 * only on the SoC it concerns; user space sees the id in sysfs, where the SMCCC SoC id driver
 * registers a soc device whose soc_id reads "jep106:036b:0241". */
#ifndef MPAMD_BACKENDS_MMIO_SOC_ID_H
#define MPAMD_BACKENDS_MMIO_SOC_ID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* NVIDIA T241 (Grace): JEP106 bank 3 (0x03), manufacturer 0x6b, SoC 0x0241. */
#define SOC_ID_NVIDIA_T241 0x036b0241u

struct soc_id {
	/* Whether the id below is known. Without an SMCCC soc device in sysfs nothing is known: the
	 * firmware may have none, or the kernel may not show it. */
	bool known;
	uint32_t id; /* bank << 24 | manufacturer << 16 | SoC; 0 when known to have none */
};

/* Looks through `sysfs_root`/bus/soc/devices/ * /soc_id for a JEP106 id. */
void soc_id_read(const char *sysfs_root, struct soc_id *ret);

/* Parses "jep106:BBMM:SSSS" (hex); false for anything else. */
bool soc_id_parse(const char *text, uint32_t *ret);

/* "036b:0241", "none" or "unknown". */
void soc_id_format(const struct soc_id *soc, char *buf, size_t len);

#endif
