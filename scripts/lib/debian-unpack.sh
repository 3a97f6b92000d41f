# Sourced: debian_unpack SUITE DIR PACKAGE... downloads the packages of a
# Debian suite (bookworm-backports, forky) with a private apt state under
# DIR/apt and unpacks them into DIR/root: nothing is installed, and the
# system's own apt lists stay as they were.
#
# Returns 0 when every package is unpacked, 2 when the suite's lists cannot
# be fetched (no network, or no such suite: the caller may skip, saying
# so), and 1 on any other failure (a package missing or an unpack failing:
# the caller must fail). Each step is checked on its own, since a function
# called under `if` or `||` runs without `set -e`.
debian_unpack() {
	local suite=$1 dir=$2
	shift 2
	local apt_dir=$dir/apt
	mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/debs" || return 1
	echo "deb http://deb.debian.org/debian $suite main" >"$apt_dir/sources.list" || return 1
	local options=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache" -o APT::Sandbox::User=root)
	# Error-Mode=any: apt otherwise takes lists it could not fetch for a
	# warning, exits 0 and keeps stale ones.
	apt-get "${options[@]}" -o APT::Update::Error-Mode=any update -qq || return 2
	local wanted=() package
	for package in "$@"; do wanted+=("$package/$suite"); done
	rm -f "$apt_dir"/debs/*.deb || return 1
	(cd "$apt_dir/debs" && apt-get "${options[@]}" download -qq "${wanted[@]}") || return 1
	rm -rf "$dir/root" || return 1
	local deb
	for deb in "$apt_dir"/debs/*.deb; do
		dpkg-deb -x "$deb" "$dir/root" || return 1
	done
}

# What a stage does with debian_unpack's status: debian_unpack_settle
# STAGE SUITE STATUS WHAT BESIDE. Returns on 0; on 2 says the stage is
# skipped (BESIDE: what ran instead) and exits 0; otherwise says WHAT
# could not be unpacked and exits 1.
debian_unpack_settle() {
	local stage=$1 suite=$2 status=$3 what=$4 beside=$5
	if ((status == 2)); then
		echo "$stage: Debian $suite's package lists could not be fetched; skipped ($beside)"
		exit 0
	elif ((status != 0)); then
		echo "$stage: Debian $suite's $what could not be unpacked" >&2
		exit 1
	fi
}

# The version of an unpacked package: debian_unpacked_version DIR PACKAGE.
debian_unpacked_version() {
	dpkg-deb -f "$1"/apt/debs/"$2"_*.deb Version
}
