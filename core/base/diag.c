#include "core/base/diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void diag_list_init(struct diag_list *list, const char *file)
{
	memset(list, 0, sizeof(*list));
	list->file = strdup(file ? file : "<input>");
	if (!list->file)
		list->out_of_memory = true;
}

void diag_list_fini(struct diag_list *list)
{
	for (size_t i = 0; i < list->count; i++)
		free(list->items[i].message);
	for (size_t i = 0; i < list->included_count; i++)
		free(list->included[i].name);
	free(list->included);
	free(list->items);
	free(list->file);
	memset(list, 0, sizeof(*list));
}

static bool diag_reserve(struct diag_list *list)
{
	if (list->count < list->capacity)
		return true;
	size_t capacity = list->capacity ? list->capacity * 2 : 16;
	struct diag *items = realloc(list->items, capacity * sizeof(*items));
	if (!items)
		return false;
	list->items = items;
	list->capacity = capacity;
	return true;
}

void diag_add(struct diag_list *list, enum diag_severity severity, unsigned line, const char *fmt, ...)
{
	va_list ap;
	char *message = NULL;

	va_start(ap, fmt);
	int n = vasprintf(&message, fmt, ap);
	va_end(ap);
	if (n < 0 || !diag_reserve(list)) {
		if (n >= 0)
			free(message);
		list->out_of_memory = true;
		return;
	}
	list->items[list->count++] = (struct diag){ severity, line, message };
}

size_t diag_error_count(const struct diag_list *list)
{
	size_t errors = list->out_of_memory ? 1 : 0;

	for (size_t i = 0; i < list->count; i++)
		if (list->items[i].severity == DIAG_ERROR)
			errors++;
	return errors;
}

void diag_sort(struct diag_list *list)
{
	/* Insertion sort: stable, and lists are short. */
	for (size_t i = 1; i < list->count; i++) {
		struct diag d = list->items[i];
		size_t j = i;
		while (j > 0 && list->items[j - 1].line > d.line) {
			list->items[j] = list->items[j - 1];
			j--;
		}
		list->items[j] = d;
	}
}

void diag_list_include(struct diag_list *list, const char *name, unsigned first)
{
	struct diag_file *grown = realloc(list->included, (list->included_count + 1) * sizeof(*grown));
	char *copy = strdup(name);

	if (!grown || !copy) {
		free(copy);
		if (grown)
			list->included = grown;
		list->out_of_memory = true;
		return;
	}
	list->included = grown;
	list->included[list->included_count++] = (struct diag_file){ copy, first };
}

const char *diag_file_of(const struct diag_list *list, unsigned line, unsigned *ret_line)
{
	*ret_line = line;
	for (size_t i = list->included_count; i-- > 0;)
		if (line >= list->included[i].first) {
			*ret_line = line - list->included[i].first + 1;
			return list->included[i].name;
		}
	return list->file;
}

const char *diag_place(const struct diag_list *list, unsigned line, char *buf, size_t len)
{
	unsigned local;
	const char *file = diag_file_of(list, line, &local);

	if (file == list->file)
		snprintf(buf, len, "line %u", local);
	else
		snprintf(buf, len, "%s:%u", file, local);
	return buf;
}

char *diag_text(const struct diag_list *list, const struct diag *d)
{
	const char *sev = d->severity == DIAG_ERROR ? "error" : "warning";
	unsigned line;
	const char *file = diag_file_of(list, d->line, &line);
	char *text = NULL;
	int r = d->line ? asprintf(&text, "%s:%u: %s: %s", file, line, sev, d->message)
			: asprintf(&text, "%s: %s: %s", list->file, sev, d->message);

	return r < 0 ? NULL : text;
}

void diag_print(const struct diag_list *list, FILE *out)
{
	for (size_t i = 0; i < list->count; i++) {
		char *text = diag_text(list, &list->items[i]);
		fprintf(out, "%s\n", text ? text : list->items[i].message);
		free(text);
	}
	if (list->out_of_memory)
		fprintf(out, "%s: " DIAG_OUT_OF_MEMORY "\n", list->file);
}
