#!/usr/bin/env bash
# ctest: the build installed where it was not configured to go (another
# --prefix, and a DESTDIR staging folder) works as it lies, with only
# that folder named in the usual variables: uda finds its backends through
# the manifests' relative paths, the Vulkan loader the layer, and the EGL
# platform is loadable. Nothing outside a temporary folder is touched.
#   run_relocated.sh CMAKE BUILD_DIR
set -uo pipefail
cmake=$1 build=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
check_tree() {
	local tree=$1 what=$2
	local libdir
	libdir=$(dirname "$(find "$tree" -name 'libuda.so.0' -print -quit)")
	local out
	out=$(env -i PATH=/usr/bin:/bin HOME="$work" LD_LIBRARY_PATH="$libdir" \
		UDA_BACKEND_PATH="$tree/share/uda/backends.d" UDA_BACKEND_NO_DEFAULT_PATHS=1 \
		XDG_DATA_DIRS="$tree/share:/usr/share" EGL_EXTERNAL_PLATFORM_CONFIG_DIRS="$tree/share/egl/egl_external_platform.d" \
		"$tree/bin/uda-info" 2>&1)
	for expected in "System memory (memfd)" "(Vulkan)" "(GL)" "Vulkan layer: VK_LAYER_UDA_allocator, active" \
		"EGL platform: EGL_PLATFORM_UDA, loadable"; do
		if ! grep -qF "$expected" <<<"$out"; then
			echo "$what: uda-info does not show '$expected'"
			failed=1
		fi
	done
	grep -h '"library_path"' "$tree"/share/uda/backends.d/*.json "$tree"/share/vulkan/implicit_layer.d/*.json |
		grep -q '"/' && { echo "$what: a manifest names its library by absolute path"; failed=1; }
	echo "$what: uda-info found $(grep -c '^  \[' <<<"$out") devices"
}
"$cmake" --install "$build" --prefix "$work/elsewhere" >/dev/null || { echo "cmake --install --prefix failed"; exit 1; }
check_tree "$work/elsewhere" "--prefix $work/elsewhere"
DESTDIR=$work/staging "$cmake" --install "$build" >/dev/null || { echo "DESTDIR install failed"; exit 1; }
prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$build/CMakeCache.txt")
check_tree "$work/staging$prefix" "DESTDIR=$work/staging"
((failed == 0)) && echo "both relocated trees work as they lie"
