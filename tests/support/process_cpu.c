/* process_cpu.h, from /proc/<pid>/stat. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "process_cpu.h"

unsigned long long process_cpu_ns(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	char text[1024];
	size_t n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	/* Fields 14 and 15 (utime, stime) follow the command's closing ')'. */
	const char *p = strrchr(text, ')');
	unsigned long long utime = 0, stime = 0;
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime, &stime) != 2)
		return 0;
	return (utime + stime) * (1000000000ull / (unsigned long long)sysconf(_SC_CLK_TCK));
}
