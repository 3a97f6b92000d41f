#!/usr/bin/env bash
# The NVIDIA hardware check: what uda sees and does on the proprietary
# Vulkan and EGL driver. Meant for the device machine, which is bare and
# offline, so everything comes with the working tree; tests/hardware/
# prepare.sh makes it here:
#
#   - build-hw/ (carried; build/ when there is none): a stripped Release
#     build with the tests;
#   - .gl/ (carried): the glvnd/Vulkan loader .debs, unpacked into / when
#     the machine lacks libvulkan;
#   - .gl-extra/ (carried): the other runtime libraries, the validation
#     layer and vulkaninfo, unpacked into a prefix of their own; a library
#     from there is used only where the machine has none of that name.
#
# Writes everything it learns to $OUT (default: ./hardware-out), one file
# per step, and a summary; docs/hardware.md records what it showed.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
out=${OUT:-$root/hardware-out}
mkdir -p "$out"
build=${UDA_HW_BUILD:-build-hw}
[[ -d $build ]] || build=build

if [[ -d .gl ]] && ! ldconfig -p | grep -q libvulkan.so.1; then
	for f in .gl/*.deb; do dpkg -x "$f" /; done
	ldconfig
fi
extra=/opt/uda-hw-extra
missing_libs=$extra/missing-libs
if [[ -d .gl-extra ]]; then
	mkdir -p "$missing_libs"
	for f in .gl-extra/*.deb; do dpkg -x "$f" "$extra"; done
	for lib in "$extra"/usr/lib/x86_64-linux-gnu/lib*.so.*; do
		soname=$(basename "$lib")
		[[ $soname =~ \.so\.[0-9]+$ ]] || continue
		ldconfig -p | grep -q "^[[:space:]]$soname " || ln -sf "$lib" "$missing_libs/$soname"
	done
	ln -sf "$extra/usr/lib/x86_64-linux-gnu/libVkLayer_khronos_validation.so" "$missing_libs/"
	export LD_LIBRARY_PATH=$missing_libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	export VK_ADD_LAYER_PATH=$extra/usr/share/vulkan/explicit_layer.d
	command -v vulkaninfo >/dev/null || export PATH=$PATH:$extra/usr/bin
fi
# The NVIDIA container layout keeps the ICD and EGL vendor files here.
[[ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]] &&
	export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[[ -f /usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json ]] &&
	export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json

# NVIDIA's GL keeps its shader disk cache files open for the life of the
# process once a shader is built; the tests count descriptors, so the cache
# stays off here (the fd listing of a failed count shows what remains).
export __GL_SHADER_DISK_CACHE=0

# The build tree's manifests name modules by the absolute paths of the
# machine that built them: point fresh copies at this checkout.
# Generated manifests and per-step logs live apart from $OUT, which the
# device tool brings back only a few files of: the logs come back as one
# archive.
work=$(mktemp -d /tmp/uda-hw.XXXXXX)
logs=$work/logs
mkdir -p "$logs"
manifests=$work/backends.d
mkdir -p "$manifests"
for m in "$build"/manifests/backends.d/*.json; do
	name=$(basename "$m" .json)
	sed "s|\"library_path\": \".*\"|\"library_path\": \"$root/$build/core/backends/$name/libuda-backend-$name.so\"|" \
		"$m" >"$manifests/$name.json"
done
export UDA_BACKEND_PATH=$manifests UDA_BACKEND_NO_DEFAULT_PATHS=1
# The layer's manifest, likewise pointed at this checkout's module.
layer_dir=$work/share/vulkan/implicit_layer.d
mkdir -p "$layer_dir"
sed "s|\"library_path\": \".*\"|\"library_path\": \"$root/$build/vk-layer/libVkLayer_uda_allocator.so\"|" \
	"$build"/manifests/share/vulkan/implicit_layer.d/VkLayer_uda_allocator.json >"$layer_dir/VkLayer_uda_allocator.json"
export XDG_DATA_DIRS=$work/share:${XDG_DATA_DIRS:-/usr/local/share:/usr/share}
# The EGL external platform's manifest, for NVIDIA's own libEGL (which
# loads external platforms itself) and for uda's host alike.
egl_manifest=$work/share/egl/egl_external_platform.d/50_uda.json
mkdir -p "$(dirname "$egl_manifest")"
sed "s|\"library_path\" : \".*\"|\"library_path\" : \"$root/$build/egl-external-platform/libuda-egl-platform.so\"|" \
	"$build"/manifests/share/egl/egl_external_platform.d/50_uda.json >"$egl_manifest"
# The same platform declared for EGL_PLATFORM_GBM_KHR, for the GBM suite
# through NVIDIA's libEGL alone (a driver routes each enum to the modules
# declaring it).
gbm_manifest=$work/share/egl/egl_external_platform.d/51_uda_gbm.json
sed "s|\"library_path\" : \".*\"|\"library_path\" : \"$root/$build/egl-external-platform/libuda-egl-platform-gbm.so\"|" \
	"$build"/manifests/share/egl/egl_external_platform.d/51_uda_gbm.json >"$gbm_manifest"
export UDA_TEST_EGL_GBM_PLATFORM_MANIFEST=$gbm_manifest
# NVIDIA's libEGL reads the __-prefixed name (the plain one it ignores).
export __EGL_EXTERNAL_PLATFORM_CONFIG_FILENAMES=$egl_manifest EGL_EXTERNAL_PLATFORM_CONFIG_FILENAMES=$egl_manifest
export UDA_TEST_EGL_PLATFORM_MANIFEST=$egl_manifest
# The tests' compiled-in build paths are the other machine's.
export UDA_TEST_BACKEND_MANIFEST_DIR=$manifests UDA_TEST_LAYER_DATA_DIR=$work/share
export LD_LIBRARY_PATH=$root/$build/core:$root/$build/egl-external-platform${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

summary=$out/summary.txt
: >"$summary"
# Tests and samples log every refusal (core and EGL platform) into their
# step's log; benchmarks run without, since logging is not free.
step() {
	local name=$1
	shift
	local log=debug
	[[ $name == *bench* || $name == ctest ]] && log=
	echo "== $name" | tee -a "$summary"
	UDA_LOG=$log timeout "${step_timeout:-60}" "$@" >"$logs/$name.log" 2>&1
	local rc=$?
	echo "   exit $rc" | tee -a "$summary"
	tail -n 5 "$logs/$name.log" | sed 's/^/   /' >>"$summary"
}

# What the machine offers, before anything of uda runs.
{
	date -u
	uname -a
	grep PRETTY_NAME /etc/os-release
	nvidia-smi -L
	nvidia-smi --query-gpu=driver_version,name --format=csv,noheader
	echo "-- device nodes"
	ls -l /dev/dri /dev/dma_heap /dev/udmabuf /dev/nvidia* 2>&1
	echo "-- Vulkan ICDs and EGL vendors"
	ls /usr/local/nvidia/share/vulkan/icd.d /usr/share/vulkan/icd.d /etc/vulkan/icd.d 2>&1
	cat "${VK_DRIVER_FILES:-/dev/null}"
	ls /usr/local/nvidia/share/glvnd/egl_vendor.d /usr/share/glvnd/egl_vendor.d 2>&1
	echo "-- EGL external platforms and GBM backends already there"
	ls /usr/share/egl/egl_external_platform.d /usr/local/nvidia/share/egl/egl_external_platform.d 2>&1
	ls /usr/lib/x86_64-linux-gnu/gbm /usr/local/nvidia/lib*/gbm 2>&1
	echo "-- libraries taken from .gl-extra (the machine lacks them)"
	ls "$missing_libs" 2>&1
	echo "-- ldconfig"
	ldconfig -p | grep -E 'libvulkan|libEGL|libGLES|libgbm|libnvidia-egl|libdrm|libjson-c|libpng' 2>&1
} >"$logs/machine.log" 2>&1
step uda-info "$build"/samples/uda-info
step uda-info-json "$build"/samples/uda-info --json
UDA_VULKAN_VALIDATION=1 step uda-zero-copy "$build"/samples/uda-zero-copy
UDA_VULKAN_VALIDATION=1 step test-vulkan-gl "$build"/tests/test-vulkan-gl
UDA_VULKAN_VALIDATION=1 step test-bad-gpu-imports "$build"/tests/test-bad-gpu-imports
step uda-bench-alloc "$build"/tests/bench/uda-bench-alloc
step vulkaninfo-with-layer vulkaninfo --summary
step vulkaninfo-full vulkaninfo
UDA_VULKAN_VALIDATION=1 step test-layer-import "$build"/tests/test-layer-import
step uda-bench-layer "$build"/tests/bench/uda-bench-layer
# The EGL platform loaded by NVIDIA's libEGL itself (no host), then through
# the host in front of it, then the frame benchmark.
UDA_VULKAN_VALIDATION=1 step test-egl-platform-driver "$build"/tests/test-egl-platform-driver
# NVIDIA's libEGL loaded the platform and dropped it unasked (2026-12-04):
# the dynamic linker's own account of where the module went (its link
# namespace, a dlclose and when), and the platform's log of whether
# unloadEGLExternalPlatform came, for one display's life. NVIDIA's own
# platform modules in the same account tell whether the driver read its
# default manifests beside the one named (then a module declaring an enum
# one of them serves, as the GBM one does, may lose to it) and whether it
# keeps those it loaded.
LD_DEBUG=files step egl-platform-driver-lddebug "$build"/tests/test-egl-platform-driver \
	--gtest_filter=EglPlatform.DisplayInitializesAndListsConfigs
# The module's own account (hooks asked for, loads and unloads, and the
# backtrace of whoever took it out of the process) comes with it.
grep -nE 'libuda-egl-platform|uda-egl-platform:|libnvidia-egl-|libEGL' "$logs/egl-platform-driver-lddebug.log" |
	head -n 80 | sed 's/^/   /' >>"$summary"
UDA_VULKAN_VALIDATION=1 step test-egl-platform-host "$build"/tests/test-egl-platform
step uda-bench-egl "$build"/tests/bench/uda-bench-egl
# Frames handed over with NVIDIA's sync files instead of glFinish (opt-in
# until this shows it right: nothing on the CPU machines makes them).
UDA_EGL_NATIVE_FENCES=1 UDA_VULKAN_VALIDATION=1 step test-egl-platform-driver-native-fences \
	"$build"/tests/test-egl-platform-driver
UDA_EGL_NATIVE_FENCES=1 UDA_VULKAN_VALIDATION=1 step test-egl-platform-host-native-fences \
	"$build"/tests/test-egl-platform
UDA_EGL_NATIVE_FENCES=1 step uda-bench-egl-native-fences "$build"/tests/bench/uda-bench-egl
grep -hm2 'frame hand-off' "$logs"/test-egl-platform-*native-fences.log | sed 's/^/   /' >>"$summary"
# uda behind the system libgbm on NVIDIA's GPU (its DRM node, if the
# container has one, else /dev/null as in CI), and EGL on such a device.
step test-gbm-backend "$build"/tests/test-gbm-backend
step test-gbm-egl "$build"/tests/test-gbm-egl
# EGL on uda's GBM devices through NVIDIA's libEGL alone, through the module
# that declares EGL_PLATFORM_GBM_KHR.
step test-gbm-egl-driver "$build"/tests/test-gbm-egl-driver
# Wayland: Weston headless with its GL renderer on the GPU (carried in
# .gl-extra where the machine has none), uda's Wayland platform through
# the host (test-wayland-client, the benchmark against NVIDIA's own
# egl-wayland where installed) and loaded by NVIDIA's libEGL alone
# (weston-simple-egl with only uda's manifest named).
if ! command -v weston >/dev/null && [[ -x $extra/usr/bin/weston ]]; then
	export PATH=$PATH:$extra/usr/bin
	weston_lib=$extra/usr/lib/x86_64-linux-gnu
	export WESTON_MODULE_MAP="headless-backend.so=$weston_lib/libweston-10/headless-backend.so;gl-renderer.so=$weston_lib/libweston-10/gl-renderer.so;desktop-shell.so=$weston_lib/weston/desktop-shell.so;weston-desktop-shell=$weston_lib/weston-desktop-shell;weston-keyboard=$weston_lib/weston-keyboard"
	export XKB_CONFIG_ROOT=$extra/usr/share/X11/xkb
fi
wayland_manifest=$work/share/egl/egl_external_platform.d/50_uda_wayland.json
sed "s|\"library_path\" : \".*\"|\"library_path\" : \"$root/$build/egl-external-platform/libuda-egl-platform-wayland.so\"|" \
	"$build"/manifests/share/egl/egl_external_platform.d/50_uda_wayland.json >"$wayland_manifest"
if command -v weston >/dev/null; then
	UDA_TEST_EGL_WAYLAND_PLATFORM_MANIFEST=$wayland_manifest EGL_EXTERNAL_PLATFORM_CONFIG_FILENAMES=$wayland_manifest \
		step test-wayland-client "$build"/tests/test-wayland-client
	__EGL_EXTERNAL_PLATFORM_CONFIG_FILENAMES=$wayland_manifest EGL_EXTERNAL_PLATFORM_CONFIG_FILENAMES=$wayland_manifest \
		step wayland-simple-egl-nvidia-libegl tests/wayland/run_unmodified_client.sh "" "$build"/tests/screenshot-colours \
		gl weston-simple-egl -o
	UDA_BENCH_EGL_HOST=$root/$build/egl-external-platform/libuda-egl-host.so \
		EGL_EXTERNAL_PLATFORM_CONFIG_FILENAMES=$wayland_manifest step uda-bench-wayland "$build"/tests/bench/uda-bench-wayland
	grep -hE "frames reached|Wayland: (a .* window|.* frames (go|are))" "$logs"/wayland-*.log | sed 's/^/   /' >>"$summary"
else
	echo "wayland: no weston on this machine nor in .gl-extra: skipped" >>"$summary"
fi
# V4L2: the machine's own video nodes, where it has any (vivid loaded
# where the kernel has the module): every node a device, each camera
# making, exporting and freeing a buffer through the kernel; then the
# pipeline sample on them with NVIDIA's GPU as the third party.
modprobe vivid n_devs=1 2>/dev/null || true
step test-v4l2-kernel "$build"/tests/test-v4l2-device --gtest_filter='V4l2Kernel.*'
step uda-pipeline "$build"/samples/uda-pipeline --format YUYV --size 640x480
grep -hE "made, exported|SKIPPED|source:|GPU:|display:|agreed|allocation:|imported|queue it" \
	"$logs"/test-v4l2-kernel.log "$logs"/uda-pipeline.log | sed 's/^/   /' >>"$summary"
# Vulkan Video: each Vulkan device with an H.264 decode queue makes a 1080p
# NV12 decode output its sampler and NVIDIA's GL import, and each with an
# H.264 encode queue an encode input (the runs the mock ICD stands in for
# everywhere else; data-centre GPUs such as the H100 have no encoder and
# say so), then the pipeline sample with the GPU as decoder, H.264, AV1 and
# VP9 (VK_KHR_video_decode_vp9, from NVIDIA's 575 drivers).
UDA_VULKAN_VALIDATION=1 step test-vulkan-video-driver "$build"/tests/test-vulkan-video \
	--gtest_filter='VulkanVideoDriver.*:VulkanVideoEncodeDriver.*:VulkanVideoVp9Driver.*'
step uda-pipeline-vulkan-decode "$build"/samples/uda-pipeline --codec h264 --size 1920x1088
step uda-pipeline-vulkan-decode-av1 "$build"/samples/uda-pipeline --codec av1 --size 1920x1080
step uda-pipeline-vulkan-decode-vp9 "$build"/samples/uda-pipeline --codec vp9 --size 1920x1080
grep -hE "decode output made|encode input made|lists VK_KHR_video_decode_vp9|imported by|GL offers|NOTE|SKIPPED|Skipped|source:|agreed|allocation:|decode into" \
	"$logs"/test-vulkan-video-driver.log "$logs"/uda-pipeline-vulkan-decode.log \
	"$logs"/uda-pipeline-vulkan-decode-av1.log "$logs"/uda-pipeline-vulkan-decode-vp9.log | sed 's/^/   /' >>"$summary"
# The whole ctest suite, written for lavapipe/llvmpipe: which of it holds
# on NVIDIA's driver. Its compiled-in paths are the building machine's, so
# that path is made to lead here when it does not exist.
source_dir=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt")
if [[ -n $source_dir && ! -e $source_dir ]]; then
	mkdir -p "$(dirname "$source_dir")"
	ln -s "$root" "$source_dir"
fi
# uda-compositor on the GPU (paths compiled in are the building
# machine's: the link above makes them lead here). Its Vulkan device has a
# DRM node and imports DMA-BUFs, so linux-dmabuf version 4 is offered with
# uda's feedback: the demo, then uda-client with uda's protocol switched
# off, so that its frames take the DMA-BUF path end to end (the path no
# CPU machine can run), then the benchmark against Weston.
if command -v weston >/dev/null; then
	demo_runtime=$(mktemp -d /tmp/uda-hw-demo.XXXXXX)
	XDG_RUNTIME_DIR=$demo_runtime EGL_EXTERNAL_PLATFORM_CONFIG_FILENAMES=$wayland_manifest \
		__EGL_EXTERNAL_PLATFORM_CONFIG_FILENAMES=$wayland_manifest \
		step uda-demo "$build"/samples/uda-demo --output "$out/uda-demo"
	XDG_RUNTIME_DIR=$demo_runtime EGL_EXTERNAL_PLATFORM_CONFIG_FILENAMES=$wayland_manifest \
		__EGL_EXTERNAL_PLATFORM_CONFIG_FILENAMES=$wayland_manifest \
		step uda-compositor-linux-dmabuf tests/hardware/compositor_dmabuf.sh "$build" "$out/uda-demo"
	UDA_BENCH_EGL_HOST=$root/$build/egl-external-platform/libuda-egl-host.so \
		EGL_EXTERNAL_PLATFORM_CONFIG_FILENAMES=$wayland_manifest step uda-bench-compositor \
		"$build"/tests/bench/uda-bench-compositor
	grep -hE "window mapped|linux-dmabuf|Wayland: .* frames go|ratio|per frame|latency" \
		"$logs"/uda-demo.log "$logs"/uda-compositor-linux-dmabuf.log "$logs"/uda-bench-compositor.log |
		sed 's/^/   /' >>"$summary"
	rm -rf "$demo_runtime"
fi
step_timeout=240 step ctest env -u UDA_BACKEND_PATH -u UDA_BACKEND_NO_DEFAULT_PATHS \
	-u UDA_TEST_BACKEND_MANIFEST_DIR -u UDA_TEST_LAYER_DATA_DIR -u UDA_TEST_EGL_PLATFORM_MANIFEST \
	-u EGL_EXTERNAL_PLATFORM_CONFIG_FILENAMES -u __EGL_EXTERNAL_PLATFORM_CONFIG_FILENAMES -u XDG_DATA_DIRS \
	ctest --test-dir "$build" -j 8 --timeout 60 --output-on-failure
grep -E 'tests passed|\((Failed|Timeout|SEGFAULT|Subprocess aborted|Skipped|Not Run)\)' "$logs/ctest.log" |
	sort -u >>"$summary"

cp "$summary" "$logs/"
tar czf "$out/hardware-logs.tar.gz" -C "$work" logs
cat "$summary"
