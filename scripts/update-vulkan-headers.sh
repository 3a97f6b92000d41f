#!/usr/bin/env bash
# Replaces third_party/vulkan-headers with the Vulkan headers and registry
# of libvulkan-dev from the Debian suite named (third_party/vulkan-headers/
# README.md says why uda keeps a copy). The package is downloaded and
# unpacked, never installed.
#
#   scripts/update-vulkan-headers.sh trixie
set -euo pipefail

suite=${1:?usage: $0 SUITE (a Debian suite, e.g. trixie)}
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=lib/debian-unpack.sh
source "$root/scripts/lib/debian-unpack.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
debian_unpack "$suite" "$work" libvulkan-dev

target=$root/third_party/vulkan-headers
rm -rf "$target/include" "$target/registry"
mkdir -p "$target/include/vulkan" "$target/include/vk_video" "$target/registry"
cp "$work"/root/usr/include/vulkan/*.h "$target/include/vulkan/"
cp "$work"/root/usr/include/vk_video/*.h "$target/include/vk_video/"
install -m 644 "$work/root/usr/share/vulkan/registry/vk.xml" "$target/registry/"
echo "third_party/vulkan-headers: libvulkan-dev $(debian_unpacked_version "$work" libvulkan-dev) from $suite;" \
	"update its README.md"
