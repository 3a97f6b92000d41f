// Whether a libEGL loaded the uda EGL platform: glvnd passes on only the
// client extensions it knows, so under glvnd (NVIDIA's libEGL) the
// platform's own never shows, and the module being resident is the sign.
#pragma once

#include <cstdio>
#include <dlfcn.h>
#include <string>

namespace uda_test
{

// The module a platform manifest names, read with no JSON library: the
// build writes these manifests, one "library_path" each.
inline std::string platform_module_of(const char *manifest)
{
	FILE *file = std::fopen(manifest, "r");
	if (!file)
		return {};
	std::string text;
	char chunk[512];
	for (size_t n; (n = std::fread(chunk, 1, sizeof(chunk), file)) > 0;)
		text.append(chunk, n);
	std::fclose(file);
	const size_t key = text.find("\"library_path\"");
	const size_t open = key == std::string::npos ? key : text.find('"', text.find(':', key));
	const size_t close = open == std::string::npos ? open : text.find('"', open + 1);
	return close == std::string::npos ? std::string() : text.substr(open + 1, close - open - 1);
}

inline bool platform_module_is_resident(const char *manifest)
{
	const std::string module = platform_module_of(manifest);
	void *handle = module.empty() ? nullptr : dlopen(module.c_str(), RTLD_LAZY | RTLD_NOLOAD);
	if (handle)
		dlclose(handle);
	return handle != nullptr;
}

} // namespace uda_test
