/* Linked into every program of the tree under sanitizers only. Drivers unload their
 * modules when the last display or instance goes (Mesa's DRI driver at
 * the last eglTerminate, the Vulkan loader its ICD and layers at
 * vkDestroyInstance). LeakSanitizer reports at exit, when they are gone,
 * so the drivers' own leaks show as "<unknown module>" and their
 * suppressions (sanitizer/lsan.supp) cannot match them. Loading each once
 * more, never to be unloaded, keeps their names. */
#include <dlfcn.h>
#include <string.h>

__attribute__((constructor)) static void keep_drivers_resident(void)
{
	char list[] = UDA_RESIDENT_LIBRARIES; /* ':'-separated paths */
	char *saved = NULL;
	for (char *path = strtok_r(list, ":", &saved); path; path = strtok_r(NULL, ":", &saved))
		dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
}
