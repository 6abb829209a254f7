#!/bin/sh
# SPDX-License-Identifier: MIT
# Makes sure the Debian packages a make target needs are installed: as root it
# installs the missing ones (saying so in one line), otherwise it prints the
# exact apt-get command and fails.
set -eu

case "${1:-build}" in
build)	pkgs="gcc make libc6-dev pkg-config liburing-dev" ;;
check)	pkgs="perl python3 util-linux lsof strace" ;;
fuzz)	pkgs="clang libclang-rt-14-dev" ;;
bench)	pkgs="util-linux lsof strace" ;;
kernel)	pkgs="linux-source-6.12 qemu-system-x86 busybox-static bc flex bison \
libelf-dev libssl-dev cpio e2fsprogs xz-utils gcc gcc-multilib make perl python3 \
rsync kmod" ;;
*)	echo "deps.sh: unknown package set '$1'" >&2; exit 2 ;;
esac

command -v dpkg-query >/dev/null 2>&1 || exit 0	# not Debian: trust the user

missing=""
for p in $pkgs; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$status" in
	*" installed") ;;
	*) missing="$missing $p" ;;
	esac
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "Missing Debian packages; install them with:" >&2
	echo "  sudo apt-get install -y$missing" >&2
	exit 1
fi

echo "deps: installing missing Debian packages:$missing"
export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y -q --no-install-recommends $missing >/tmp/gv-deps.log 2>&1; then
	apt-get update -q >>/tmp/gv-deps.log 2>&1 || true
	if ! apt-get install -y -q --no-install-recommends $missing >>/tmp/gv-deps.log 2>&1; then
		echo "deps: apt-get install failed, see /tmp/gv-deps.log" >&2
		exit 1
	fi
fi
