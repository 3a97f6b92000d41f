#!/usr/bin/env bash
# Sets up a Debian 12 machine for uda (run as root), builds, and then either
# runs the main demo or the whole test suite:
#
#   scripts/bootstrap.sh demo   install what is missing, build, run uda-info
#                               and uda-demo (uda-compositor, a Wayland
#                               compositor, with uda-client and Weston's
#                               demo clients; PNG frames in ./uda-demo-output)
#   scripts/bootstrap.sh test   install what is missing, build with -Werror,
#                               run ctest, again on Debian 12's newer Mesa
#                               from bookworm-backports (unpacked, not
#                               installed: scripts/newer-mesa.sh), the
#                               fuzzers for 30 s each, the
#                               threaded tests under TSan, the core and
#                               backend tests under valgrind, the Debian
#                               packages built and tested installed
#                               (scripts/package.sh), then ctest again
#                               under ASan+UBSan
#
# Build folders: build/ (release with -Werror) and build-sanitize/.
set -euo pipefail

mode=${1:-}
case "$mode" in
demo | test) ;;
*)
	echo "usage: $0 demo|test" >&2
	exit 2
	;;
esac

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

packages=(
	cmake ninja-build gcc g++ pkg-config
	libgtest-dev  # GoogleTest suites
	libdrm-dev    # drm_fourcc.h
	libjson-c-dev # backend manifests
	python3       # generates the Vulkan layer's dispatch tables from vk.xml
	libvulkan-dev # Vulkan loader and headers (vulkan backend)
	libgles-dev   # GLES and EGL through glvnd (gl backend)
	libegl-dev
	eglexternalplatform-dev # eglexternalplatform.h, the EGL platform's interface
	libpng-dev              # the demo compositor's PNG frames
	libgbm-dev              # gbm.h and libgbm, the GBM backend's loader
	# The EGL platform's Wayland module: libwayland-client, the
	# wl_egl_window ABI (wayland-egl-backend.h), wayland-scanner and the
	# protocol XML it generates code from.
	libwayland-dev libwayland-egl-backend-dev wayland-protocols
	# The drivers every test runs on: lavapipe, llvmpipe, and the Khronos
	# validation layer that watches the Vulkan backend.
	mesa-vulkan-drivers
	libegl-mesa0
	libgl1-mesa-dri
	vulkan-validationlayers
	vulkan-tools # vulkaninfo, run with the layer by the tests
	# libwayland-server for uda-compositor; Weston's demo clients
	# (weston-simple-shm, weston-simple-egl) in uda-demo's picture, and
	# Weston itself, the Wayland tests' compositor.
	weston
)
if [[ $mode == test ]]; then
	# Unmodified Wayland clients for the tests (es2gears_wayland from
	# mesa-utils-bin) and wayland-info.
	packages+=(mesa-utils-bin wayland-utils)
	# A second, wlroots-based compositor for the unmodified clients: sway
	# (headless, pixman), with grim for its screenshots.
	packages+=(sway grim)
	# libFuzzer targets (scripts/fuzz.sh) need clang and its runtime.
	packages+=(clang libclang-rt-14-dev)
	# scripts/valgrind.sh: the core and backend tests under memcheck.
	packages+=(valgrind)
	# scripts/package.sh: the Debian packages, checked and installed.
	packages+=(dpkg-dev debhelper fakeroot lintian help2man)
fi

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
	echo "== installing: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

jobs=$(nproc)

configure_and_build() {
	local dir=$1
	shift
	cmake -S . -B "$dir" -G Ninja -DUDA_WERROR=ON "$@" >/dev/null
	cmake --build "$dir" -j "$jobs"
}

if [[ $mode == demo ]]; then
	configure_and_build build
	# The backends of this build tree, not whatever may be installed.
	export UDA_BACKEND_PATH=$root/build/manifests/backends.d
	export UDA_BACKEND_NO_DEFAULT_PATHS=1
	# And its Vulkan layer, which uda-info reports.
	export XDG_DATA_DIRS=$root/build/manifests/share:${XDG_DATA_DIRS:-/usr/local/share:/usr/share}
	# And its EGL platforms (uda's own and its Wayland one), which the
	# demo's EGL clients render through.
	export EGL_EXTERNAL_PLATFORM_CONFIG_DIRS=$root/build/manifests/share/egl/egl_external_platform.d
	echo "== uda-info: backends, devices, what each can do with 1920x1080 ABGR8888, what they agree on"
	build/samples/uda-info
	echo
	echo "== uda-demo: a Wayland compositor on uda, its clients' buffers shared without copies"
	exec build/samples/uda-demo --output "$root/uda-demo-output"
fi

echo "== build (release, -Werror)"
configure_and_build build
echo "== test (release)"
(cd build && ctest -j "$jobs" --output-on-failure)

echo "== test (release, again on bookworm-backports' Mesa, unpacked into build-mesa/)"
scripts/newer-mesa.sh test

echo "== test (the programs of Vulkan use, again under Debian testing's Vulkan loader and validation layer)"
scripts/newer-vulkan.sh

echo "== fuzz (clang libFuzzer, ASan+UBSan, 30 s a target)"
scripts/fuzz.sh 30

echo "== threads (TSan)"
scripts/tsan.sh 50 | tail -n 1

echo "== valgrind (memcheck: core and backend tests)"
scripts/valgrind.sh

echo "== packages (dpkg-buildpackage, lintian, the symbols check; installed, tested, purged)"
scripts/package.sh build
scripts/package.sh test

echo "== build (ASan+UBSan, -Werror)"
configure_and_build build-sanitize -DCMAKE_BUILD_TYPE=Debug -DUDA_SANITIZE=address,undefined
echo "== test (ASan+UBSan)"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
cd build-sanitize
exec ctest -j "$jobs" --output-on-failure
