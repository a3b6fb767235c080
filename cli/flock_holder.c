#include "cli/flock_holder.h"

#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>

pid_t flock_holder(const struct stat *st)
{
	FILE *f = fopen("/proc/locks", "re");
	char line[256];
	pid_t holder = 0;

	if (!f)
		return 0;
	while (!holder && fgets(line, sizeof(line), f)) {
		unsigned maj, min;
		unsigned long long ino;
		int pid;
		/* "1: FLOCK  ADVISORY  WRITE 1234 fe:00:5678 0 EOF"; a waiter's line has "->" and no match */
		if (sscanf(line, "%*d: FLOCK %*s %*s %d %x:%x:%llu", &pid, &maj, &min, &ino) == 4 &&
		    ino == (unsigned long long)st->st_ino && makedev(maj, min) == st->st_dev)
			holder = pid;
	}
	fclose(f);
	return holder;
}

bool process_is_mpamd(pid_t pid)
{
	char path[64], comm[32] = "";

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	bool ok = fgets(comm, sizeof(comm), f) && !strcmp(comm, "mpamd\n");
	fclose(f);
	return ok;
}
