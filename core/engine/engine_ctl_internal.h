/* What the control socket can ask of the engine (engine_ctl.c), and the socket's server on the loop. */
#ifndef MPAMD_CORE_ENGINE_ENGINE_CTL_INTERNAL_H
#define MPAMD_CORE_ENGINE_ENGINE_CTL_INTERNAL_H

#include "core/base/error.h"
#include "core/ctl/ctl.h"

struct ctl_server;
struct engine;

struct engine_ctl {
	struct ctl_server *server;  /* NULL: no socket, or the loop is not running */
	struct ctl_handler handler; /* the engine's answers to the server's requests */
};

void engine_ctl_handler(struct engine *e, struct ctl_handler *ret);
/* Opens the control socket (opts.socket_path) on the engine's loop; a no-op without a path. */
int engine_ctl_attach(struct engine *e, struct err *err);
void engine_ctl_detach(struct engine *e);

#endif
