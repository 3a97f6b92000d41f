// Points libuda's module search at the backends of this build tree only,
// so a test sees the same devices whatever is installed on the machine.
#pragma once

#include <cstdlib>
#include <string>

namespace uda_test
{

inline void use_backend_path(const std::string &folders)
{
	setenv("UDA_BACKEND_PATH", folders.c_str(), 1);
	// Nothing from ~/.local/share, /usr/share or the install prefix. The
	// XDG variables stay as they are: the Vulkan loader needs them.
	setenv("UDA_BACKEND_NO_DEFAULT_PATHS", "1", 1);
}

// UDA_TEST_BACKEND_MANIFEST_DIR in the environment replaces the build
// tree's folder: tests/hardware/nvidia.sh runs a tree built elsewhere.
inline void use_build_tree_backends()
{
	const char *moved = std::getenv("UDA_TEST_BACKEND_MANIFEST_DIR");
	use_backend_path(moved ? moved : UDA_TEST_BACKEND_MANIFEST_DIR);
}

} // namespace uda_test
