#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend_loader.h"
#include "backend_manifest.h"
#include "device.h"

#ifndef UDA_INSTALL_DATADIR
#error "UDA_INSTALL_DATADIR must name the installation's data folder"
#endif

/* Reads a whole manifest, refusing anything larger than a manifest can be. */
static char *read_manifest(const char *path, size_t *out_size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct stat st;
	char *text = NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= (off_t)UDA_MANIFEST_MAX_SIZE) {
		text = malloc((size_t)st.st_size + 1);
		size_t done = 0;
		while (text && done < (size_t)st.st_size) {
			ssize_t n = read(fd, text + done, (size_t)st.st_size - done);
			if (n <= 0) {
				free(text);
				text = NULL;
				break;
			}
			done += (size_t)n;
		}
		if (text) {
			text[done] = '\0';
			*out_size = done;
		}
	}
	close(fd);
	return text;
}

static bool already_loaded(const uda_context *ctx, const char *name)
{
	for (const struct uda_backend_module *m = ctx->modules; m; m = m->next) {
		if (strcmp(m->name, name) == 0)
			return true;
	}
	return false;
}

/* Removes and destroys the devices registered from index `first` on: a
 * backend that fails half-way must not leave devices whose code is about
 * to be unmapped. */
static void drop_devices_from(uda_context *ctx, uint32_t first)
{
	pthread_mutex_lock(&ctx->device_lock);
	uint32_t count = ctx->device_count;
	ctx->device_count = first;
	pthread_mutex_unlock(&ctx->device_lock);
	for (uint32_t i = count; i-- > first;)
		uda_device_destroy(ctx->devices[i]);
}

static void load_module(uda_context *ctx, const char *manifest_path, const struct backend_manifest *manifest)
{
	const char *name = manifest->name;
	if (already_loaded(ctx, name)) {
		uda_context_log(ctx, UDA_LOG_INFO, "backend %s from %s: shadowed by an earlier manifest", name,
		                manifest_path);
		return;
	}
	if (manifest->interface_version != UDA_BACKEND_INTERFACE_VERSION_1) {
		uda_context_log(ctx, UDA_LOG_WARNING, "backend %s (%s): interface version %u, this library speaks %u",
		                name, manifest_path, manifest->interface_version, UDA_BACKEND_INTERFACE_VERSION_1);
		return;
	}
	/* NODELETE: a module may leave its driver's state behind (an EGL
	 * display without reference counting is never terminated), and the
	 * driver's threads must not outlive the code they came from. */
	void *handle = dlopen(manifest->library_path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	if (!handle) {
		uda_context_log(ctx, UDA_LOG_WARNING, "backend %s (%s): cannot load: %s", name, manifest_path, dlerror());
		return;
	}
	uda_backend_get_interface_fn get_interface = (uda_backend_get_interface_fn)dlsym(handle, UDA_BACKEND_ENTRY_POINT);
	const uda_backend_interface *interface = NULL;
	const char *problem = NULL;
	if (!get_interface)
		problem = "no " UDA_BACKEND_ENTRY_POINT " entry point";
	else if (get_interface(UDA_BACKEND_INTERFACE_VERSION, &interface) != UDA_SUCCESS || !interface)
		problem = "the module refused this library's interface version";
	else if (interface->version != UDA_BACKEND_INTERFACE_VERSION_1)
		problem = "the module answered with another interface version";
	else if (!interface->load || !interface->name || strcmp(interface->name, name) != 0)
		problem = "the module's interface has no load entry point or another name";
	if (problem) {
		uda_context_log(ctx, UDA_LOG_WARNING, "backend %s (%s): %s", name, manifest->library_path, problem);
		dlclose(handle);
		return;
	}

	struct uda_backend_module *module = calloc(1, sizeof(*module));
	if (!module) {
		dlclose(handle);
		return;
	}
	memcpy(module->name, name, strlen(name) + 1);
	module->handle = handle;
	module->interface = interface;

	uint32_t first_device = ctx->device_count;
	uda_result result = interface->load(ctx, &module->data);
	if (result != UDA_SUCCESS) {
		uda_context_log(ctx, UDA_LOG_WARNING, "backend %s: load failed: %s: %s", name, uda_result_to_string(result),
		                uda_context_get_error(ctx));
		drop_devices_from(ctx, first_device);
		dlclose(handle);
		free(module);
		return;
	}
	uda_context_log(ctx, UDA_LOG_INFO, "backend %s loaded from %s with %u devices", name, manifest->library_path,
	                ctx->device_count - first_device);
	/* Appended, so unloading can walk the list backwards by rebuilding it
	 * reversed; a handful of modules makes the walk free. */
	struct uda_backend_module **tail = &ctx->modules;
	while (*tail)
		tail = &(*tail)->next;
	*tail = module;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void load_folder(uda_context *ctx, const char *folder)
{
	DIR *dir = opendir(folder);
	if (!dir)
		return;
	char **names = NULL;
	size_t count = 0, capacity = 0;
	struct dirent *entry;
	while ((entry = readdir(dir))) {
		size_t length = strlen(entry->d_name);
		if (length < 6 || strcmp(entry->d_name + length - 5, ".json") != 0)
			continue;
		if (count == capacity) {
			capacity = capacity ? capacity * 2 : 8;
			char **grown = realloc(names, capacity * sizeof(*names));
			if (!grown)
				break;
			names = grown;
		}
		if (!(names[count] = strdup(entry->d_name)))
			break;
		count++;
	}
	closedir(dir);
	/* Sorted, so the load order does not depend on the file system. */
	if (count)
		qsort(names, count, sizeof(*names), compare_names);

	for (size_t i = 0; i < count; i++) {
		char path[PATH_MAX];
		if (snprintf(path, sizeof(path), "%s/%s", folder, names[i]) >= (int)sizeof(path))
			continue;
		size_t size = 0;
		char *text = read_manifest(path, &size);
		if (!text) {
			uda_context_log(ctx, UDA_LOG_WARNING, "backend manifest %s: unreadable or too large", path);
			continue;
		}
		struct backend_manifest manifest;
		if (backend_manifest_parse(ctx, text, size, folder, &manifest) == UDA_SUCCESS)
			load_module(ctx, path, &manifest);
		else
			uda_context_log(ctx, UDA_LOG_WARNING, "backend manifest %s: %s", path, uda_context_get_error(ctx));
		free(text);
	}
	for (size_t i = 0; i < count; i++)
		free(names[i]);
	free(names);
}

/* Calls load_folder for "<base>/uda/backends.d" of each entry of a
 * colon-separated list. */
static void load_data_dirs(uda_context *ctx, const char *list)
{
	char *copy = strdup(list);
	if (!copy)
		return;
	char *save = NULL;
	for (char *base = strtok_r(copy, ":", &save); base; base = strtok_r(NULL, ":", &save)) {
		char folder[PATH_MAX];
		if (snprintf(folder, sizeof(folder), "%s/uda/backends.d", base) < (int)sizeof(folder))
			load_folder(ctx, folder);
	}
	free(copy);
}

void backend_loader_load_all(uda_context *ctx)
{
	/* secure_getenv: a setuid program must not load modules a user names. */
	const char *extra = secure_getenv("UDA_BACKEND_PATH");
	if (extra && extra[0]) {
		char *copy = strdup(extra);
		char *save = NULL;
		for (char *folder = copy ? strtok_r(copy, ":", &save) : NULL; folder; folder = strtok_r(NULL, ":", &save))
			load_folder(ctx, folder);
		free(copy);
	}
	/* For hermetic test runs: only what UDA_BACKEND_PATH names. */
	const char *no_defaults = secure_getenv("UDA_BACKEND_NO_DEFAULT_PATHS");
	if (no_defaults && strcmp(no_defaults, "1") == 0)
		return;
	const char *data_home = secure_getenv("XDG_DATA_HOME");
	const char *home = secure_getenv("HOME");
	if (data_home && data_home[0]) {
		load_data_dirs(ctx, data_home);
	} else if (home && home[0]) {
		char folder[PATH_MAX];
		if (snprintf(folder, sizeof(folder), "%s/.local/share", home) < (int)sizeof(folder))
			load_data_dirs(ctx, folder);
	}
	const char *data_dirs = secure_getenv("XDG_DATA_DIRS");
	load_data_dirs(ctx, data_dirs && data_dirs[0] ? data_dirs : "/usr/local/share:/usr/share");
	load_data_dirs(ctx, UDA_INSTALL_DATADIR);
}

void backend_loader_unload_all(uda_context *ctx)
{
	/* Reverse the list, then unload front to back: last loaded first. */
	struct uda_backend_module *reversed = NULL;
	while (ctx->modules) {
		struct uda_backend_module *m = ctx->modules;
		ctx->modules = m->next;
		m->next = reversed;
		reversed = m;
	}
	while (reversed) {
		struct uda_backend_module *m = reversed;
		reversed = m->next;
		if (m->interface->unload)
			m->interface->unload(m->data);
		dlclose(m->handle);
		free(m);
	}
}
