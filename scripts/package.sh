#!/usr/bin/env bash
# Debian packages of uda (debian/), and the installed system proven with
# real programs. As root on Debian 12, with the build dependencies
# installed (scripts/bootstrap.sh installs them).
#
#   scripts/package.sh build   dpkg-buildpackage in a clean copy of the tree
#                              (what git tracks, and what it does not
#                              ignore); the .debs in build-deb/; lintian
#                              (no error, no warning); the symbols check
#                              shown to fail when an export disappears
#   scripts/package.sh test    install build-deb/'s packages into this
#                              machine and run, with no uda variable set:
#                              uda-info, vulkaninfo, a program built with
#                              pkg-config and one with find_package(uda), a
#                              GBM program with GBM_BACKEND=uda, and
#                              uda-compositor with uda-client; then purge
#                              them (whatever happened: the machine is left
#                              as it was), and run uda-info from the
#                              packages unpacked into a folder of their own
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=$root/build-deb
packages=(libuda0 libuda-wayland-server0 libuda-dev uda-vulkan-layer uda-egl-platform uda-gbm uda-tools)

build() {
	local work
	work=$(mktemp -d)
	trap 'rm -rf "$work"' RETURN
	mkdir "$work/uda"
	git ls-files -z -co --exclude-standard | tar --null -T - -cf - | tar -xf - -C "$work/uda"
	echo "== dpkg-buildpackage"
	(cd "$work/uda" && dpkg-buildpackage -b -us -uc -j"$(nproc)" >"$work/build.log" 2>&1) ||
		{ tail -n 40 "$work/build.log"; return 1; }
	rm -rf "$out"
	mkdir -p "$out"
	mv "$work"/*.deb "$work"/*.changes "$work"/*.buildinfo "$out"/
	ls "$out"
	echo "== lintian"
	lintian --fail-on error,warning "$out"/*.changes
	echo "lintian: no error, no warning"
	# The symbols file is checked at level 4 (debian/rules), which the
	# build above passed: shown here to fail when the library lacks an
	# export an earlier release had (dpkg counts an export listed at the
	# version being built as new in it, whose loss is no break).
	echo "== the symbols check"
	echo " uda_function_that_went_away@Base 0.0.1" >>"$work/uda/debian/libuda0.symbols"
	if (cd "$work/uda" && dh_makeshlibs -plibuda0 -- -c4 >"$work/gone.log" 2>&1); then
		echo "an export gone from the library passed the symbols check"
		return 1
	fi
	grep -q "some symbols or patterns disappeared" "$work/gone.log"
	echo "symbols: the library matches debian/libuda0.symbols; an export gone fails the check"
}

# Everything the installed packages' programs may need, nothing of uda's.
clean_env() {
	env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME="$1" XDG_RUNTIME_DIR="$1" "${@:2}"
}

expect_in() {
	local output=$1 what=$2
	shift 2
	for expected in "$@"; do
		grep -qF -- "$expected" <<<"$output" || { echo "$what: no '$expected' in:"; echo "$output"; return 1; }
	done
}

installed_checks() {
	local work=$1 output
	echo "== uda-info, no variable set"
	output=$(clean_env "$work" uda-info 2>&1)
	expect_in "$output" uda-info "System memory (memfd)" "(Vulkan)" "(GL)" \
		"Vulkan layer: VK_LAYER_UDA_allocator, active" "EGL platform: EGL_PLATFORM_UDA, loadable"
	echo "== vulkaninfo lists the layer"
	output=$(clean_env "$work" vulkaninfo 2>&1)
	expect_in "$output" vulkaninfo "VK_LAYER_UDA_allocator"
	echo "== a program built against libuda-dev: pkg-config, then find_package(uda)"
	cat >"$work/devices.c" <<-'EOF'
		#include <stdio.h>
		#include <uda/uda.h>
		int main(void)
		{
			uda_context *ctx;
			uda_device *devices[32];
			uint32_t count = 32;
			if (uda_context_create(NULL, &ctx) != UDA_SUCCESS ||
			    uda_context_enumerate_devices(ctx, &count, devices) != UDA_SUCCESS)
				return 1;
			printf("%u devices\n", count);
			uda_context_destroy(ctx);
			return count >= 3 ? 0 : 1;
		}
	EOF
	# shellcheck disable=SC2046
	cc -o "$work/devices-pkg-config" "$work/devices.c" $(pkg-config --cflags --libs uda)
	clean_env "$work" "$work/devices-pkg-config"
	mkdir -p "$work/cmake-project"
	cp "$work/devices.c" "$work/cmake-project/"
	cat >"$work/cmake-project/CMakeLists.txt" <<-'EOF'
		cmake_minimum_required(VERSION 3.25)
		project(devices C)
		find_package(uda REQUIRED)
		add_executable(devices devices.c)
		target_link_libraries(devices PRIVATE uda::uda)
	EOF
	cmake -S "$work/cmake-project" -B "$work/cmake-build" -G Ninja >/dev/null
	cmake --build "$work/cmake-build" >/dev/null
	clean_env "$work" "$work/cmake-build/devices"
	echo "== libgbm finds uda_gbm.so with GBM_BACKEND=uda"
	cat >"$work/gbm.c" <<-'EOF'
		#include <fcntl.h>
		#include <gbm.h>
		#include <stdio.h>
		#include <string.h>
		int main(void)
		{
			/* No display here: a device of /dev/null, as uda's GBM tests make. */
			struct gbm_device *device = gbm_create_device(open("/dev/null", O_RDWR | O_CLOEXEC));
			const char *name = device ? gbm_device_get_backend_name(device) : "none";
			struct gbm_bo *bo = device ? gbm_bo_create(device, 64, 64, GBM_FORMAT_ARGB8888, GBM_BO_USE_RENDERING) : NULL;
			printf("backend %s, buffer %s\n", name, bo ? "made" : "refused");
			return bo && strcmp(name, "uda") == 0 ? 0 : 1;
		}
	EOF
	cc -o "$work/gbm" "$work/gbm.c" -lgbm
	clean_env "$work" GBM_BACKEND=uda "$work/gbm"
	echo "== uda-compositor and uda-client: the layer, the EGL platform and its host"
	# Not through clean_env: $! must be the compositor, not a subshell.
	env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME="$work" XDG_RUNTIME_DIR="$work" \
		uda-compositor --socket wayland-packages --save none >"$work/compositor.log" 2>&1 &
	local compositor=$!
	for _ in $(seq 100); do [[ -S $work/wayland-packages ]] && break; sleep 0.1; done
	clean_env "$work" WAYLAND_DISPLAY=wayland-packages uda-client --frames 5 || { cat "$work/compositor.log"; kill $compositor; return 1; }
	kill -TERM $compositor
	wait $compositor || { echo "uda-compositor exited $?"; cat "$work/compositor.log"; return 1; }
	output=$(cat "$work/compositor.log")
	expect_in "$output" uda-compositor "window mapped: uda-client (uda-client), 256x192, buffers through uda's protocol (zero-copy)"
	echo "$output" | grep "window mapped"
}

unpacked_checks() {
	local work=$1 output
	echo "== the packages unpacked into a folder of their own"
	local tree=$work/unpacked
	for deb in "$out"/*.deb; do
		[[ $deb == *-dbgsym_* ]] || dpkg-deb -x "$deb" "$tree"
	done
	local libdir
	libdir=$(dirname "$(find "$tree" -name libuda.so.0 -print -quit)")
	output=$(clean_env "$work" LD_LIBRARY_PATH="$libdir" UDA_BACKEND_PATH="$tree/usr/share/uda/backends.d" \
		UDA_BACKEND_NO_DEFAULT_PATHS=1 XDG_DATA_DIRS="$tree/usr/share:/usr/share" \
		EGL_EXTERNAL_PLATFORM_CONFIG_DIRS="$tree/usr/share/egl/egl_external_platform.d" "$tree/usr/bin/uda-info" 2>&1)
	expect_in "$output" "uda-info (unpacked)" "System memory (memfd)" "(Vulkan)" "(GL)" \
		"Vulkan layer: VK_LAYER_UDA_allocator, active" "EGL platform: EGL_PLATFORM_UDA, loadable"
	echo "uda-info from $tree: $(grep -c '^  \[' <<<"$output") devices, the layer active"
}

purge() {
	local installed=()
	for p in "${packages[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" && installed+=("$p")
	done
	((${#installed[@]} == 0)) || dpkg --purge "${installed[@]}" >/dev/null
}

test_packages() {
	ls "$out"/libuda0_*.deb >/dev/null 2>&1 || { echo "no packages in build-deb/ (scripts/package.sh build)"; return 1; }
	# This machine's own uda packages are not ours to remove.
	for p in "${packages[@]}"; do
		if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
			echo "$p is installed already: not testing over it" >&2
			return 1
		fi
	done
	work=$(mktemp -d) # global: the trap runs after this function
	chmod 700 "$work"
	trap 'purge; rm -rf "$work"' EXIT
	local debs=()
	for deb in "$out"/*.deb; do [[ $deb == *-dbgsym_* ]] || debs+=("$deb"); done
	echo "== installing ${#debs[@]} packages"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${debs[@]}" >/dev/null
	installed_checks "$work"
	purge
	echo "== purged: $(dpkg -l "${packages[@]}" 2>/dev/null | grep -c '^ii') of ours left installed"
	unpacked_checks "$work"
	echo "the installed packages work, and unpacked into a folder too"
}

case "${1:-}" in
build) build ;;
test) test_packages ;;
*)
	echo "usage: $0 build|test" >&2
	exit 2
	;;
esac
