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
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/debs"
echo "deb http://deb.debian.org/debian $suite main" >"$work/sources.list"
options=(-o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
	-o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o APT::Sandbox::User=root)
apt-get "${options[@]}" update -qq
(cd "$work/debs" && apt-get "${options[@]}" download -qq "libvulkan-dev/$suite")
dpkg-deb -x "$work"/debs/libvulkan-dev_*.deb "$work/root"

target=$root/third_party/vulkan-headers
rm -rf "$target/include" "$target/registry"
mkdir -p "$target/include/vulkan" "$target/include/vk_video" "$target/registry"
cp "$work"/root/usr/include/vulkan/*.h "$target/include/vulkan/"
cp "$work"/root/usr/include/vk_video/*.h "$target/include/vk_video/"
install -m 644 "$work/root/usr/share/vulkan/registry/vk.xml" "$target/registry/"
version=$(dpkg-deb -f "$work"/debs/libvulkan-dev_*.deb Version)
echo "third_party/vulkan-headers: libvulkan-dev $version from $suite; update its README.md"
