/* Layouts of the daemon's replies for people: tables and "key: value" lines (cli/ctl_table.c). */
#ifndef MPAMD_CLI_CTL_TABLE_H
#define MPAMD_CLI_CTL_TABLE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* A column of a table laid out in advance (list's default view). */
struct table_column {
	const char *key;
	const char *header;
	bool right;    /* aligned right although its cells are text ("100/30") */
	bool optional; /* left out when no row has a value for it */
};

/* The columns `list --wide` and `show` lay partitions out in. */
extern const char *const ctl_partition_columns[];

bool ctl_is_array_of_objects(json_t *v);
/* One row per object of `rows`: the `preferred` keys first (NULL-terminated), then any others. */
void ctl_table_print(json_t *rows, const char *const *preferred, int indent);
/* One row per object, in the columns of `spec` (key NULL ends it), cut to fit `max_columns`. */
void ctl_table_print_spec(json_t *rows, const struct table_column *spec, size_t max_columns);
/* One "key: value" line per member; nested objects indented under their key, arrays of objects as
 * tables. */
void ctl_print_object(json_t *obj, int indent);

#endif
