#!/usr/bin/env bash
# An unmodified EGL program behaves the same with libuda-egl-host
# preloaded as without it: the same output, except that the client
# extensions now name the uda platform (which proves the host was there).
#   preload_unchanged.sh PROBE HOST_LIBRARY PLATFORM_MANIFEST
set -euo pipefail
probe=$1 host=$2 manifest=$3
# A sanitized probe needs its sanitizer runtime ahead of anything preloaded.
preload=$host
runtime=$(ldd "$probe" | awk '/lib(a|ub)san\.so/ {print $3}' | paste -sd: -)
[[ -n $runtime ]] && preload=$runtime:$host
without=$("$probe")
with=$(LD_PRELOAD=$preload EGL_EXTERNAL_PLATFORM_CONFIG_FILENAMES=$manifest "$probe")
if ! grep -q '^client extensions:.* EGL_UDA_platform_uda' <<<"$with"; then
	echo "the host did not add EGL_UDA_platform_uda: was it loaded?"
	echo "$with"
	exit 1
fi
if ! diff -u <(echo "$without") <(sed 's/ EGL_UDA_platform_uda//' <<<"$with"); then
	echo "the program behaved differently under the host"
	exit 1
fi
echo "unchanged under the host ($(wc -l <<<"$with") lines compared)"
