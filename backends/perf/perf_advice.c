/* What an errno from perf_event_open means for the event and target at hand, and what to do. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/perf/perf_event.h"

static bool read_paranoid(const char *path, int *ret)
{
	FILE *f = fopen(path, "re");
	int v;

	if (!f)
		return false;
	int n = fscanf(f, "%d", &v);
	fclose(f);
	if (n != 1)
		return false;
	*ret = v;
	return true;
}

static const char *target_name(enum perf_target_kind kind)
{
	switch (kind) {
	case PERF_TARGET_CGROUP:
		return "cgroup";
	case PERF_TARGET_CPUS:
		return "CPU-wide";
	default:
		return "per-task";
	}
}

static void permission(const struct perf_event_desc *ev, enum perf_target_kind kind, const char *path, char *buf,
		       size_t size)
{
	/* paranoid >= 2: no kernel counting; >= 1: no CPU-wide (and cgroup) events; -1: anything */
	bool kernel = !ev || !ev->exclude_kernel;
	int need = kind != PERF_TARGET_PID ? 0 : kernel ? 1 : 2;
	int level;

	if (!read_paranoid(path, &level)) {
		snprintf(buf, size,
			 "permission denied, and %s could not be read; run as root or with CAP_PERFMON, or lower "
			 "kernel.perf_event_paranoid",
			 path);
		return;
	}
	if (level > need) {
		snprintf(buf, size,
			 "permission denied by perf_event_paranoid=%d (%s): %s events%s need %d or lower; run as root "
			 "or with CAP_PERFMON, or 'sysctl -w kernel.perf_event_paranoid=%d'%s",
			 level, path, target_name(kind),
			 kind == PERF_TARGET_PID && kernel ? " that count the kernel" : "", need, need,
			 kind == PERF_TARGET_PID && kernel ? " (or count user space only with :u)" : "");
		return;
	}
	snprintf(buf, size,
		 "permission denied although perf_event_paranoid=%d (%s) allows %s events: the denial comes from a "
		 "ptrace access check on the task (same user, or CAP_SYS_PTRACE), CAP_PERFMON, or an LSM "
		 "(SELinux, AppArmor)",
		 level, path, target_name(kind));
}

/* The errors whose advice does not depend on the event or the target. */
static const struct {
	int errnum;
	const char *advice;
} fixed_advices[] = {
	{ EBUSY, "the PMU is exclusive and already in use by another perf session" },
	{ EBADF, "bad file descriptor: the cgroup path is not a cgroup directory with perf_event" },
	{ ESRCH, "no such process" },
	{ EMFILE, "too many open files: raise 'ulimit -n' (one descriptor per event per CPU)" },
	{ E2BIG, "the kernel does not know this perf_event_attr size (config3 needs Linux 6.3+)" },
};

/* Its advice, or the C library's text for any other errno. */
static const char *fixed_advice(int errnum)
{
	for (size_t i = 0; i < sizeof(fixed_advices) / sizeof(fixed_advices[0]); i++)
		if (fixed_advices[i].errnum == errnum)
			return fixed_advices[i].advice;
	return strerror(errnum);
}

const char *perf_advice(int errnum, const struct perf_event_desc *ev, enum perf_target_kind kind,
			const char *paranoid_path, char *buf, size_t size)
{
	const char *pmu = ev && ev->pmu[0] ? ev->pmu : NULL;
	const char *name = ev ? ev->name : "the event";

	if (!paranoid_path)
		paranoid_path = PERF_PARANOID_PATH;
	if (!size)
		return buf;
	switch (errnum) {
	case EACCES:
	case EPERM:
		permission(ev, kind, paranoid_path, buf, size);
		if (errnum == EPERM && ev && ev->pmu[0] && ev->kind == PERF_PMU_CORE) {
			size_t l = strlen(buf);
			snprintf(buf + l, size - l, "; Arm PMUv3 also refuses exclude_idle with EPERM");
		}
		break;
	case ENOENT:
		if (ev && !pmu)
			snprintf(buf, size,
				 "no PMU on this machine counts %s (type %u, config 0x%llx): the CPU has no such "
				 "hardware event, or this is a virtual machine without a virtual PMU",
				 name, ev->type, (unsigned long long)ev->config);
		else
			snprintf(buf, size,
				 "PMU %s%s%s does not know this event (type %u, config 0x%llx): the PMU is gone or the "
				 "event is not implemented here",
				 pmu ? "'" : "", pmu ? pmu : "?", pmu ? "'" : "", ev ? ev->type : 0,
				 ev ? (unsigned long long)ev->config : 0ULL);
		break;
	case ENODEV:
		snprintf(
			buf, size,
			"no usable CPU for %s: the PMU%s%s%s's cpumask has no online CPU among those asked for, or the "
			"PMU is missing",
			name, pmu ? " '" : "", pmu ? pmu : "", pmu ? "'" : "");
		break;
	case EOPNOTSUPP:
		if (ev && ev->uncore)
			snprintf(buf, size,
				 "%s is on uncore PMU '%s', which counts system-wide only: use --all-cpus (it opens "
				 "on the PMU's cpumask)",
				 name, pmu);
		else
			snprintf(buf, size,
				 "the PMU does not support %s this way: sampling, the %s target, or the modifiers "
				 "(:u/:k) are not supported by its driver",
				 name, target_name(kind));
		break;
	case EINVAL:
		if (ev && ev->uncore && kind != PERF_TARGET_CPUS)
			snprintf(buf, size,
				 "%s is on uncore PMU '%s', which refuses per-task and cgroup events: count it "
				 "system-wide (--all-cpus)",
				 name, pmu);
		else if (ev && (ev->exclude_user || ev->exclude_kernel || ev->exclude_hv))
			snprintf(buf, size,
				 "the kernel rejected %s: PMUs such as msr and most uncore PMUs cannot exclude user or "
				 "kernel, so drop the :u/:k modifier; otherwise the config value is not one the PMU "
				 "accepts",
				 name);
		else
			snprintf(buf, size,
				 "the kernel rejected %s: an unsupported config value for PMU %s, an invalid %s "
				 "target, or events of different hardware PMUs in one group",
				 name, pmu ? pmu : "(generic)", target_name(kind));
		break;
	default:
		snprintf(buf, size, "%s", fixed_advice(errnum));
		break;
	}
	return buf;
}
