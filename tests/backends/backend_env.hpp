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
	// Empty data folders: nothing from ~/.local/share or /usr/share.
	setenv("XDG_DATA_HOME", "/nonexistent-uda-test", 1);
	setenv("XDG_DATA_DIRS", "/nonexistent-uda-test", 1);
}

inline void use_build_tree_backends()
{
	use_backend_path(UDA_TEST_BACKEND_MANIFEST_DIR);
}

} // namespace uda_test
