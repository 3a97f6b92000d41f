#!/usr/bin/env bash
# Prepares what tests/hardware/nvidia.sh needs on a bare, offline device
# machine, here on a Debian 12 x86-64 machine with the build packages:
#
#   build-hw/   a Release build of the tree, objects dropped and binaries
#               stripped (about 13 MiB, so it fits the device tool's carry)
#   .gl/        the glvnd and Vulkan loaders (unpacked into / there, as the
#               device tool's README says)
#   .gl-extra/  the other runtime packages the binaries need (json-c,
#               libpng, libgbm, libdrm, ...), the Khronos validation layer
#               and vulkaninfo; unpacked there into a prefix of their own,
#               and each library used only where the machine lacks it
#
# Then: run tests/hardware/nvidia.sh there, carrying all three.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"

# Test lists made at build time: ctest there must not need this machine's
# CMake modules (the device's cmake is another version, elsewhere).
cmake -S . -B build-hw -G Ninja -DCMAKE_BUILD_TYPE=Release \
	-DUDA_GTEST_DISCOVERY_MODE=POST_BUILD >/dev/null
cmake --build build-hw -j "$(nproc)"
find build-hw -name '*.o' -delete
find build-hw -type f -print0 | while IFS= read -r -d '' f; do
	if [[ $(head -c 4 "$f" | od -An -c | tr -d ' ') == 177ELF ]]; then
		strip --strip-unneeded "$f"
	fi
done

apt_options=(-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/uda-hw-apt-lists)
mkdir -p /tmp/uda-hw-apt-lists/partial .gl .gl-extra
apt-get "${apt_options[@]}" update -qq
(cd .gl && apt-get "${apt_options[@]}" download -qq \
	libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2)
(cd .gl-extra && apt-get "${apt_options[@]}" download -qq \
	libgbm1 libdrm2 libdrm-common libjson-c5 libpng16-16 zlib1g \
	libwayland-server0 libwayland-client0 libexpat1 libffi8 \
	vulkan-validationlayers vulkan-tools \
	libx11-6 libx11-data libxcb1 libxau6 libxdmcp6 libbsd0 libmd0 \
	libwayland-egl1 libwayland-cursor0)
# Weston for the Wayland step (headless, GL renderer on the GPU), with what
# it, its modules, its shell client and weston-simple-egl load: found by
# ldd here, Debian 12's libc and libstdc++ left to the machine.
(cd .gl-extra && apt-get "${apt_options[@]}" download -qq \
	weston libweston-10-0 libinput10 libevdev2 libmtdev1 libgudev-1.0-0 libwacom9 libwacom-common libudev1 \
	libxkbcommon0 xkb-data libpixman-1-0 libcairo2 libpango-1.0-0 libpangocairo-1.0-0 libpangoft2-1.0-0 \
	libfontconfig1 fontconfig-config fonts-dejavu-core libfreetype6 libfribidi0 libharfbuzz0b libgraphite2-3 \
	libthai0 libdatrie1 libglib2.0-0 libpcre2-8-0 libmount1 libblkid1 libselinux1 libbrotli1 libjpeg62-turbo \
	libwebp7 libxcb-render0 libxcb-shm0 libxext6 libxrender1)
du -sh build-hw .gl .gl-extra
