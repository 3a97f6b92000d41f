#!/usr/bin/env bash
# Runs the built suite (or the EGL benchmark) a second time on Debian 12's
# newer Mesa from bookworm-backports: lavapipe, llvmpipe, Mesa's EGL and
# libgbm, unpacked into build-mesa/ and put in front of the system's by
# environment only. Nothing is installed and the system's Mesa stays what
# every other test runs on.
#
#   scripts/newer-mesa.sh test        ctest in build/ on that Mesa
#   scripts/newer-mesa.sh bench [--record]
#                                     scripts/bench.sh on that Mesa (every
#                                     benchmark; --record into
#                                     docs/performance.md)
#   scripts/newer-mesa.sh bench-egl   uda-bench-egl on that Mesa, then on
#                                     the system's, then on the system's
#                                     with llvmpipe's linear rasterizer off
#
# Why a second Mesa: drivers differ in what uda must ask rather than
# assume (docs/drivers.md). Mesa 22.3's GLES stores no GL_BGRA8_EXT
# textures; 25.0's stores them red first and imports ARGB8888 DMA-BUFs,
# which took the gl backend's order probe and the GBM backend's choice of
# APIs to get right. And llvmpipe 22.3 renders RGBA 1.2-1.8x slower than
# BGRA, which is the EGL platform's light-frame gap there: its linear
# rasterizer, the fast path for screen-aligned rectangles, serves only
# blue-first colour buffers. The third run switches it off
# (LP_PERF=no_rast_linear, a flag of release builds too) to show the gap
# goes with it (docs/egl-platform.md).
#
# `test` is a stage of scripts/bootstrap.sh test. Where bookworm-backports
# cannot be reached the script says so and exits 0: the system's Mesa has
# already run everything.
set -euo pipefail

mode=${1:-}
case "$mode" in
test | bench | bench-egl) ;;
*)
	echo "usage: $0 test|bench [--record]|bench-egl" >&2
	exit 2
	;;
esac

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# shellcheck source=lib/debian-unpack.sh
source scripts/lib/debian-unpack.sh
[[ -x build/tests/bench/uda-bench-egl ]] || {
	echo "newer-mesa: build/ is not built (scripts/bootstrap.sh builds it)" >&2
	exit 2
}

prefix=$root/build-mesa
libdir=$prefix/root/usr/lib/x86_64-linux-gnu
# Mesa's drivers and what they need newer than bookworm has (libdrm).
packages=(libgl1-mesa-dri libegl-mesa0 mesa-libgallium mesa-vulkan-drivers libgbm1
	libdrm2 libdrm-amdgpu1 libdrm-intel1)

fetch() {
	debian_unpack bookworm-backports "$prefix" "${packages[@]}" || return
	# The packages name their libraries by system paths; point the
	# loaders' manifests at the unpacked ones.
	cat >"$prefix/egl_vendor.json" <<-EOF
		{"file_format_version": "1.0.0", "ICD": {"library_path": "$libdir/libEGL_mesa.so.0"}}
	EOF
	local api
	api=$(sed -n 's/.*"api_version": *"\([^"]*\)".*/\1/p' "$prefix/root/usr/share/vulkan/icd.d/lvp_icd.json")
	cat >"$prefix/lvp_icd.json" <<-EOF
		{"file_format_version": "1.0.0", "ICD": {"library_path": "$libdir/libvulkan_lvp.so", "api_version": "$api"}}
	EOF
}

fetched=0
fetch || fetched=$?
debian_unpack_settle newer-mesa bookworm-backports "$fetched" Mesa "the system's Mesa ran the suite"

with_newer_mesa() {
	env LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
		LIBGL_DRIVERS_PATH="$libdir/dri" \
		__EGL_VENDOR_LIBRARY_FILENAMES="$prefix/egl_vendor.json" \
		VK_DRIVER_FILES="$prefix/lvp_icd.json" VK_ICD_FILENAMES="$prefix/lvp_icd.json" \
		"$@"
}

version=$(debian_unpacked_version "$prefix" mesa-vulkan-drivers)
echo "newer-mesa: Mesa $version from bookworm-backports, in build-mesa/"
# Vulkan says which Mesa it loaded; GL must agree with it, which the
# suite checks (one device UUID through both APIs, llvmpipe's holding the
# Mesa version).
if ! with_newer_mesa vulkaninfo --summary 2>/dev/null | grep -q "driverInfo *= Mesa $version"; then
	echo "newer-mesa: the Vulkan loader did not load the unpacked lavapipe" >&2
	exit 1
fi

if [[ $mode == test ]]; then
	cd build
	with_newer_mesa ctest -j "$(nproc)" --output-on-failure
	exit
fi

if [[ $mode == bench ]]; then
	shift
	with_newer_mesa scripts/bench.sh "$@"
	exit
fi

export UDA_BACKEND_PATH=$root/build/manifests/backends.d
export UDA_BACKEND_NO_DEFAULT_PATHS=1
export __EGL_EXTERNAL_PLATFORM_CONFIG_FILENAMES=$root/build/manifests/share/egl/egl_external_platform.d/50_uda.json
echo "== uda-bench-egl on bookworm-backports' Mesa"
with_newer_mesa build/tests/bench/uda-bench-egl
echo
echo "== uda-bench-egl on the system's Mesa"
build/tests/bench/uda-bench-egl
echo
echo "== uda-bench-egl on the system's Mesa, LP_PERF=no_rast_linear"
LP_PERF=no_rast_linear build/tests/bench/uda-bench-egl
