#include "backends/backend.h"

const struct backend_ops *backend_for(enum backend_kind kind)
{
	switch (kind) {
	case BACKEND_SIM:
		return &backend_sim_ops;
	case BACKEND_MMIO:
		return &backend_mmio_ops;
	case BACKEND_RESCTRL:
		return &backend_resctrl_ops;
	}
	return NULL;
}
