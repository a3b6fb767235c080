/* libFuzzer target: any bytes through the record file reader must give samples or an error
 * naming the file, never a crash, a leak or undefined behaviour.
 *   ./fuzz_record_read -max_len=4096 corpus/ ../tests/fuzz/corpus/record_read/ */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/report/record_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct record_file *file = NULL;
	struct err err = { "" };

	if (size == 0)
		return 0;
	FILE *in = fmemopen((void *)data, size, "r");
	if (!in)
		return 0;
	int r = record_file_new_from_stream(in, "fuzz.csv", &file, &err);
	fclose(in);
	if (r == 0) {
		if (!file)
			__builtin_trap(); /* success must come with the samples */
		for (size_t i = 0; i < file->sample_count; i++) {
			const struct record_sample *s = &file->samples[i];
			if (s->partition >= file->partition_count || s->domain >= file->domain_count)
				__builtin_trap();
			if (!(s->mb_max >= 0 && s->mb_max <= 100 && s->mb_min >= 0 && s->mb_min <= 100))
				__builtin_trap();
			if (s->run >= file->run_count || (i > 0 && s->run < file->samples[i - 1].run))
				__builtin_trap(); /* runs count up in file order */
			if (!(file->columns & RECORD_HAS_TIME) && s->time_ms != 0)
				__builtin_trap();
			(void)record_file_seconds(file, s); /* no overflow for any time */
		}
		if (file->cut_rows && file->first_cut_line < 2)
			__builtin_trap(); /* a cut row is never the header */
		record_file_free(file);
	} else if (file || strncmp(err.text, "fuzz.csv", 8) != 0) {
		__builtin_trap(); /* an error names the file and returns nothing */
	}
	return 0;
}
