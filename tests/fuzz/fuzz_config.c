/* libFuzzer target: any bytes through the config loader must give a model or diagnostics,
 * never a crash, a leak or undefined behaviour.
 *   ./fuzz_config -max_len=4096 corpus/ ../etc/    (new inputs go to the first directory) */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/engine/registry.h"
#include "core/config/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct diag_list diags;
	struct config *config = NULL;

	if (size == 0)
		return 0;
	FILE *in = fmemopen((void *)data, size, "r");
	if (!in)
		return 0;
	diag_list_init(&diags, "fuzz.ini");
	if (config_load(in, engine_default_schema(), NULL, &config, &diags) == 0 && !config)
		__builtin_trap(); /* success must come with a model */
	fclose(in);
	config_free(config);
	diag_list_fini(&diags);
	return 0;
}
