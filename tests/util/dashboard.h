/* The queries of the Grafana dashboard mpamd ships (deploy/grafana-dashboard.json), for the tests
 * that check them against what mpamd exports and against PromQL. */
#ifndef MPAMD_TESTS_UTIL_DASHBOARD_H
#define MPAMD_TESTS_UTIL_DASHBOARD_H

#include <stddef.h>

#include <jansson.h>

/* Called with each query; `panel` is the innermost object with "targets" that holds it (a panel),
 * NULL for a query outside any (templating). */
typedef void dashboard_expr_fn(const char *expr, const json_t *panel, void *ctx);

/* Calls visit for every "expr" string anywhere below `node` (panels, rows, templating), in the
 * document's order, and returns how many there were. */
size_t dashboard_each_expr(const json_t *node, dashboard_expr_fn *visit, void *ctx);

#endif
