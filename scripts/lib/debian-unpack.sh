# Sourced: debian_unpack SUITE DIR PACKAGE... downloads the packages of a
# Debian suite (bookworm-backports, trixie) with a private apt state under
# DIR/apt and unpacks them into DIR/root: nothing is installed, and the
# system's own apt lists stay as they were. Returns non-zero where the
# suite cannot be reached; the caller says what that means for it.
debian_unpack() {
	local suite=$1 dir=$2
	shift 2
	local apt_dir=$dir/apt
	mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/debs"
	echo "deb http://deb.debian.org/debian $suite main" >"$apt_dir/sources.list"
	local options=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache" -o APT::Sandbox::User=root)
	apt-get "${options[@]}" update -qq || return 1
	local wanted=() package
	for package in "$@"; do wanted+=("$package/$suite"); done
	rm -f "$apt_dir"/debs/*.deb
	(cd "$apt_dir/debs" && apt-get "${options[@]}" download -qq "${wanted[@]}") || return 1
	rm -rf "$dir/root"
	local deb
	for deb in "$apt_dir"/debs/*.deb; do dpkg-deb -x "$deb" "$dir/root"; done
}

# The version of an unpacked package: debian_unpacked_version DIR PACKAGE.
debian_unpacked_version() {
	dpkg-deb -f "$1"/apt/debs/"$2"_*.deb Version
}
