/* For fuzz targets that need a GPU: the vulkan backend alone (a folder
 * holding only its manifest, removed at exit) and uda-mock-vulkan the only
 * Vulkan driver, set in the environment before the first context is made.
 * The target's CMake entry defines UDA_FUZZ_VULKAN_MANIFEST and
 * UDA_FUZZ_MOCK_VULKAN_ICD. */
#ifndef UDA_FUZZ_MOCK_GPU_H
#define UDA_FUZZ_MOCK_GPU_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char fuzz_mock_gpu_dir[64], fuzz_mock_gpu_manifest[128];

static void fuzz_mock_gpu_remove_dir(void)
{
	unlink(fuzz_mock_gpu_manifest);
	rmdir(fuzz_mock_gpu_dir);
}

static inline void fuzz_use_mock_gpu(void)
{
	strcpy(fuzz_mock_gpu_dir, "/tmp/uda-fuzz-vulkan-XXXXXX");
	if (!mkdtemp(fuzz_mock_gpu_dir))
		abort();
	snprintf(fuzz_mock_gpu_manifest, sizeof(fuzz_mock_gpu_manifest), "%s/vulkan.json", fuzz_mock_gpu_dir);
	if (symlink(UDA_FUZZ_VULKAN_MANIFEST, fuzz_mock_gpu_manifest) != 0)
		abort();
	atexit(fuzz_mock_gpu_remove_dir);
	setenv("UDA_BACKEND_PATH", fuzz_mock_gpu_dir, 1);
	setenv("UDA_BACKEND_NO_DEFAULT_PATHS", "1", 1);
	unsetenv("VK_ICD_FILENAMES");
	setenv("VK_DRIVER_FILES", UDA_FUZZ_MOCK_VULKAN_ICD, 1);
}

#endif
