#!/usr/bin/env bash
# The NVIDIA hardware check: what uda sees and does on the proprietary
# Vulkan and EGL driver. Meant for the device machine, which is bare and
# offline, so everything comes with the working tree:
#
#   - build/ (carried): built here, on x86-64, with the tests;
#   - .gl/ (carried, optional): the glvnd/Vulkan loader .debs, unpacked
#     first when the machine lacks libvulkan/libEGL (see the device tool's
#     README for how to download them).
#
# Writes everything it learns to $OUT (default: ./hardware-out), one file
# per step, and a summary; docs/hardware.md records what it showed.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
out=${OUT:-$root/hardware-out}
mkdir -p "$out"

if [[ -d .gl ]] && ! ldconfig -p | grep -q libvulkan.so.1; then
	for f in .gl/*.deb; do dpkg -x "$f" /; done
	ldconfig
fi
# The NVIDIA container layout keeps the ICD and EGL vendor files here.
[[ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]] &&
	export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[[ -f /usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json ]] &&
	export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json

# The build tree's manifests name modules by the absolute paths of the
# machine that built them: point fresh copies at this checkout.
manifests=$out/backends.d
mkdir -p "$manifests"
for m in build/manifests/backends.d/*.json; do
	name=$(basename "$m" .json)
	sed "s|\"library_path\": \".*\"|\"library_path\": \"$root/build/core/backends/$name/libuda-backend-$name.so\"|" \
		"$m" >"$manifests/$name.json"
done
export UDA_BACKEND_PATH=$manifests UDA_BACKEND_NO_DEFAULT_PATHS=1
# The layer's manifest, likewise pointed at this checkout's module.
layer_dir=$out/share/vulkan/implicit_layer.d
mkdir -p "$layer_dir"
sed "s|\"library_path\": \".*\"|\"library_path\": \"$root/build/vk-layer/libVkLayer_uda_allocator.so\"|" \
	build/manifests/share/vulkan/implicit_layer.d/VkLayer_uda_allocator.json >"$layer_dir/VkLayer_uda_allocator.json"
export XDG_DATA_DIRS=$out/share:${XDG_DATA_DIRS:-/usr/local/share:/usr/share}
# The EGL external platform's manifest, for NVIDIA's own libEGL (which
# loads external platforms itself) and for uda's host alike.
egl_manifest=$out/share/egl/egl_external_platform.d/50_uda.json
mkdir -p "$(dirname "$egl_manifest")"
sed "s|\"library_path\" : \".*\"|\"library_path\" : \"$root/build/egl-external-platform/libuda-egl-platform.so\"|" \
	build/manifests/share/egl/egl_external_platform.d/50_uda.json >"$egl_manifest"
export EGL_EXTERNAL_PLATFORM_CONFIG_FILENAMES=$egl_manifest UDA_TEST_EGL_PLATFORM_MANIFEST=$egl_manifest
# The tests' compiled-in build paths are the other machine's.
export UDA_TEST_BACKEND_MANIFEST_DIR=$manifests UDA_TEST_LAYER_DATA_DIR=$out/share
export LD_LIBRARY_PATH=$root/build/core:$root/build/egl-external-platform${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

summary=$out/summary.txt
: >"$summary"
step() {
	local name=$1
	shift
	echo "== $name" | tee -a "$summary"
	timeout 120 "$@" >"$out/$name.log" 2>&1
	local rc=$?
	echo "   exit $rc" | tee -a "$summary"
	tail -n 5 "$out/$name.log" | sed 's/^/   /' >>"$summary"
}

nvidia-smi -L >"$out/nvidia-smi.log" 2>&1
step uda-info build/samples/uda-info
step uda-info-json build/samples/uda-info --json
UDA_VULKAN_VALIDATION=1 step uda-zero-copy build/samples/uda-zero-copy
UDA_VULKAN_VALIDATION=1 step test-vulkan-gl build/tests/test-vulkan-gl
UDA_VULKAN_VALIDATION=1 step test-bad-gpu-imports build/tests/test-bad-gpu-imports
step uda-bench-alloc build/tests/bench/uda-bench-alloc
step vulkaninfo-with-layer vulkaninfo --summary
UDA_VULKAN_VALIDATION=1 step test-layer-import build/tests/test-layer-import
step uda-bench-layer build/tests/bench/uda-bench-layer
# The EGL platform loaded by NVIDIA's libEGL itself (no host), then through
# the host in front of it, then the frame benchmark.
UDA_VULKAN_VALIDATION=1 step test-egl-platform-driver build/tests/test-egl-platform-driver
UDA_VULKAN_VALIDATION=1 step test-egl-platform-host build/tests/test-egl-platform
step uda-bench-egl build/tests/bench/uda-bench-egl
# uda behind the system libgbm on NVIDIA's GPU (its DRM node, if the
# container has one, else /dev/null as in CI), and EGL on such a device.
step test-gbm-backend build/tests/test-gbm-backend
step test-gbm-egl build/tests/test-gbm-egl
cat "$summary"
