/* The context every fuzz target parses with: deserialization needs no
 * devices, so backend modules are not loaded. Aborts (a finding) if even
 * that fails. */
#ifndef UDA_FUZZ_CONTEXT_H
#define UDA_FUZZ_CONTEXT_H

#include <dirent.h>
#include <stdlib.h>

#include <uda/uda.h>

static inline uda_context *fuzz_context_create(void)
{
	const uda_context_create_info info = {
		.type = UDA_STRUCTURE_TYPE_CONTEXT_CREATE_INFO,
		.flags = UDA_CONTEXT_CREATE_NO_BACKENDS,
	};
	uda_context *ctx;
	if (uda_context_create(&info, &ctx) != UDA_SUCCESS)
		abort();
	return ctx;
}

/* Open descriptors of the process, for the targets' leak checks. */
static inline int fuzz_open_fds(void)
{
	DIR *dir = opendir("/proc/self/fd");
	int count = 0;
	if (!dir)
		return -1;
	while (readdir(dir))
		count++;
	closedir(dir);
	return count;
}

#endif
