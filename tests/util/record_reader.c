#include "core/engine/registry.h"
#include "tests/util/record_reader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config/config.h"

#define RECORD_FIELDS 9 /* with sim_mbps; 8 without */

/* Splits one CSV line in place; quoted fields lose their quotes and doubled quotes. */
static size_t split_csv(char *line, char **fields, size_t max)
{
	size_t n = 0;
	char *out = line;

	for (char *p = line; n < max;) {
		fields[n++] = out;
		bool quoted = *p == '"';
		p += quoted;
		for (; *p && (quoted || *p != ','); p++) {
			if (quoted && *p == '"') {
				if (p[1] != '"') {
					quoted = false;
					continue;
				}
				p++;
			}
			*out++ = *p;
		}
		bool more = *p == ',';
		*out++ = '\0';
		if (!more)
			break;
		p++;
	}
	return n;
}

static bool parse_line(char *line, struct record_line *row)
{
	char *f[RECORD_FIELDS + 1] = { 0 };
	size_t n = split_csv(line, f, RECORD_FIELDS + 1);

	if (n != RECORD_FIELDS && n != RECORD_FIELDS - 1)
		return false;
	memset(row, 0, sizeof(*row));
	row->t_ms = strtoull(f[0], NULL, 10);
	snprintf(row->partition, sizeof(row->partition), "%s", f[1]);
	row->has_mbps = f[2][0] != '\0';
	row->mbps = strtod(f[2], NULL);
	row->mb_max = (unsigned)strtoul(f[3], NULL, 10);
	row->mb_min = (unsigned)strtoul(f[4], NULL, 10);
	row->valid = atoi(f[5]);
	row->estimated = atoi(f[6]);
	snprintf(row->event, sizeof(row->event), "%s", f[7]);
	row->sim_mbps = n == RECORD_FIELDS ? strtod(f[8], NULL) : 0;
	return true;
}

long record_read(const char *path, char *header, size_t len, struct record_line **ret_rows)
{
	FILE *in = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	struct record_line *rows = NULL;
	long count = 0;

	if (!in || getline(&line, &cap, in) < 0) {
		fprintf(stderr, "record_read: %s has no header\n", path);
		if (in)
			fclose(in);
		free(line);
		return -1;
	}
	line[strcspn(line, "\n")] = '\0';
	snprintf(header, len, "%s", line);
	while (getline(&line, &cap, in) >= 0) {
		line[strcspn(line, "\n")] = '\0';
		struct record_line *grown = realloc(rows, (size_t)(count + 1) * sizeof(*rows));
		if (!grown || !parse_line(line, &grown[count])) {
			fprintf(stderr, "record_read: %s row %ld does not have the record's columns\n", path,
				count + 1);
			free(grown ? grown : rows);
			count = -1;
			break;
		}
		rows = grown;
		count++;
	}
	free(line);
	fclose(in);
	if (count >= 0)
		*ret_rows = rows;
	return count;
}

struct config *load_config_text(const char *text)
{
	struct diag_list diags;
	struct config *config = NULL;

	diag_list_init(&diags, "scenario.ini");
	int r = config_load_string(text, engine_default_schema(), NULL, &config, &diags);
	diag_print(&diags, stderr);
	diag_list_fini(&diags);
	return r == 0 ? config : NULL;
}
