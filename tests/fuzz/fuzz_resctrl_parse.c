/* libFuzzer target: any bytes as a resctrl file mpamd parses (schemata, an info/ id=value list such
 * as num_mbm_cntrs, a mon_data counter, mbm_assign_mode) give a value or an error, never a crash,
 * a leak or undefined behaviour; what a success returns stays within its bounds.
 *   ./fuzz_resctrl_parse -max_len=4096 corpus/ ../tests/fuzz/corpus/resctrl_parse/ */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backends/resctrl/resctrl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void schemata(const char *text)
{
	struct schemata s;
	struct err err = { "" };

	if (resctrl_parse_schemata(text, &s, &err) < 0) {
		if (!err.text[0])
			__builtin_trap(); /* a refusal says why */
		return;
	}
	if (s.count > sizeof(s.lines) / sizeof(s.lines[0]))
		__builtin_trap();
	for (unsigned i = 0; i < s.count; i++) {
		if (s.lines[i].count > RESCTRL_MAX_DOMAINS || !memchr(s.lines[i].resource, '\0', RESCTRL_NAME_MAX))
			__builtin_trap();
		uint64_t v;
		if (s.lines[i].count && !schemata_value(&s.lines[i], s.lines[i].domains[0].id, &v))
			__builtin_trap(); /* every parsed domain can be found again */
	}
}

static void others(const char *text, size_t size)
{
	struct schemata_domain d[RESCTRL_MAX_DOMAINS];
	unsigned count = 0;
	uint64_t value;
	const char *reason = NULL;
	char mode[32];

	if (resctrl_parse_id_values(text, d, RESCTRL_MAX_DOMAINS, &count) == 0 && count > RESCTRL_MAX_DOMAINS)
		__builtin_trap();
	value = UINT64_MAX - 1;
	int r = resctrl_parse_counter(text, size, &value, &reason);
	if (r < 0 && !reason)
		__builtin_trap(); /* every rejection has its reason */
	if (r < 0 && value != UINT64_MAX - 1)
		__builtin_trap(); /* and leaves the value as it was: never a silent zero */
	if (resctrl_parse_assign_mode(text, mode, sizeof(mode)) == 0 && !memchr(mode, '\0', sizeof(mode)))
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0'; /* the files are read into NUL-terminated buffers */
	schemata(text);
	others(text, size); /* a counter is parsed by length: every byte, a NUL too */
	free(text);
	return 0;
}
