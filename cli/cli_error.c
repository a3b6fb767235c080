/* mpamctl's failure reports; see cli_error.h. */
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>

#include "cli/cli_error.h"

/* jansson refuses a string that is not UTF-8 (a name as typed): the bytes it refuses become '?'. */
static json_t *json_text(char *text)
{
	json_t *message = json_string(text);

	if (!message) {
		for (char *c = text; *c; c++)
			*c = (unsigned char)*c >= 0x80 ? '?' : *c;
		message = json_string(text);
	}
	return message;
}

static int report(bool json, const char *cmd, int code, json_t *messages, const char *fmt, va_list ap)
{
	char text[1024];
	json_t *item;
	size_t i;

	vsnprintf(text, sizeof(text), fmt, ap);
	json_array_foreach(messages, i, item) {
		if (json_is_string(item))
			fprintf(stderr, "%s\n", json_string_value(item));
	}
	fprintf(stderr, "mpamctl%s%s: %s\n", cmd ? " " : "", cmd ? cmd : "", text);
	if (json) {
		json_t *obj = json_pack("{s:b,s:o,s:i}", "ok", 0, "error", json_text(text), "exit", code);
		if (obj && json_is_array(messages))
			json_object_set(obj, "messages", messages);
		if (obj) {
			json_dumpf(obj, stdout, JSON_INDENT(2));
			putchar('\n');
			fflush(stdout);
		}
		json_decref(obj);
	}
	return code;
}

int cli_error(bool json, const char *cmd, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int r = report(json, cmd, code, NULL, fmt, ap);
	va_end(ap);
	return r;
}

int cli_error_messages(bool json, const char *cmd, int code, json_t *messages, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int r = report(json, cmd, code, messages, fmt, ap);
	va_end(ap);
	return r;
}
