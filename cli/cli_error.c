/* mpamctl's failure reports; see cli_error.h. */
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>

#include "cli/cli_error.h"

int cli_error(bool json, const char *cmd, int code, const char *fmt, ...)
{
	char text[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	fprintf(stderr, "mpamctl%s%s: %s\n", cmd ? " " : "", cmd ? cmd : "", text);
	if (json) {
		json_t *message = json_string(text);
		if (!message) { /* not UTF-8 (a name as typed): the bytes jansson refuses become '?' */
			for (char *c = text; *c; c++)
				*c = (unsigned char)*c >= 0x80 ? '?' : *c;
			message = json_string(text);
		}
		json_t *obj = json_pack("{s:b,s:o,s:i}", "ok", 0, "error", message, "exit", code);
		if (obj) {
			json_dumpf(obj, stdout, JSON_INDENT(2));
			putchar('\n');
			fflush(stdout);
		}
		json_decref(obj);
	}
	return code;
}
