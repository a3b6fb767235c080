/* See dashboard.h. */
#include "tests/util/dashboard.h"

static size_t each_expr_below(const json_t *node, const json_t *panel, dashboard_expr_fn *visit, void *ctx)
{
	size_t count = 0;
	const char *key;
	json_t *child;
	size_t i;

	if (json_is_array(node)) {
		json_array_foreach(node, i, child) {
			count += each_expr_below(child, panel, visit, ctx);
		}
		return count;
	}
	if (!json_is_object(node))
		return 0;
	if (json_object_get(node, "targets"))
		panel = node;
	json_t *expr = json_object_get(node, "expr");
	if (json_is_string(expr)) {
		visit(json_string_value(expr), panel, ctx);
		count++;
	}
	/* jansson's iteration macros take a non-const object; nothing below writes to it. */
	json_object_foreach((json_t *)node, key, child) {
		count += each_expr_below(child, panel, visit, ctx);
	}
	return count;
}

size_t dashboard_each_expr(const json_t *node, dashboard_expr_fn *visit, void *ctx)
{
	return each_expr_below(node, NULL, visit, ctx);
}
