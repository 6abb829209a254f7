#!/bin/sh
# SPDX-License-Identifier: MIT
# Makes sure the Debian packages a make target needs are installed: as root it
# installs the missing ones, saying which, why and how much disk they take;
# otherwise it prints the exact apt-get command and fails.
#
#   scripts/deps.sh SET...      build check fuzz python bench kernel, or all
#
# "all" is everything the README's commands need (make demo, make check,
# make install), so that `sudo make deps` once lets anyone run them; the
# kernel set (make kcheck, several hundred MB more) is asked for by kcheck.
set -eu

# The packages of one set...
set_pkgs() {
case "$1" in
build)	pkgs="gcc make libc6-dev pkg-config liburing-dev" ;;
check)	pkgs="perl python3 util-linux lsof strace bash-completion" ;;
fuzz)	pkgs="clang libclang-rt-14-dev" ;;
python)	pkgs="python3-dev python3-pytest python3-psutil" ;;
bench)	pkgs="util-linux lsof strace" ;;
kernel)	pkgs="linux-source-6.12 qemu-system-x86 busybox-static bc flex bison \
libelf-dev libssl-dev cpio e2fsprogs xz-utils gcc gcc-multilib make perl python3 \
rsync kmod" ;;
*)	echo "deps.sh: unknown package set '$1'" >&2; exit 2 ;;
esac
}

# ...and what they are for.
set_why() {
	case "$1" in
	build)	why="to build the library and tools (liburing-dev: the io_uring backend)" ;;
	check)	why="for make check (prove runs the tests; lsof, strace and util-linux are what the tools are checked against; python3 parses their JSON; bash-completion runs the completion's test)" ;;
	fuzz)	why="for make check's short fuzz run of getvalues() (clang's libFuzzer)" ;;
	python)	why="for the Python module: its headers, its tests (pytest) and its benchmark against psutil" ;;
	bench)	why="for make demo and make bench (the tools measured against lsof and lsfd)" ;;
	kernel)	why="for make kcheck (a Linux kernel build booted in QEMU)" ;;
	*)	why="" ;;
	esac
}

[ $# -gt 0 ] || set -- build
sets=""
for s in "$@"; do
	[ "$s" = all ] && s="build check fuzz python bench"
	sets="$sets $s"
done

command -v dpkg-query >/dev/null 2>&1 || exit 0	# not Debian: trust the user

installed() {
	case "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true)" in
	*" installed") return 0 ;;
	esac
	return 1
}

# What is missing, and for which purpose (one line per set that lacks some).
missing=""
reasons=""
for s in $sets; do
	set_pkgs "$s"
	set_why "$s"
	lack=""
	for p in $pkgs; do
		installed "$p" && continue
		case " $missing " in *" $p "*) continue ;; esac
		missing="$missing $p"
		lack="$lack $p"
	done
	[ -z "$lack" ] || reasons="$reasons
 $lack: $why"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "Missing Debian packages:$reasons" >&2
	echo "Install them as root with:" >&2
	echo "  apt-get install -y --no-install-recommends$missing" >&2
	echo "(or run 'sudo make deps' once: everything the README's commands need)" >&2
	exit 1
fi

export DEBIAN_FRONTEND=noninteractive
log=/tmp/gv-deps.log
: >"$log"
# A machine that never ran apt-get update knows no packages yet.
if ! apt-get install -s --no-install-recommends $missing >>"$log" 2>&1; then
	apt-get update -q >>"$log" 2>&1 || true
fi
size=$(LC_ALL=C apt-get install --assume-no --no-install-recommends $missing \
	2>/dev/null | sed -n 's/^After this operation, \(.*\) of additional.*/\1/p')
echo "deps: installing Debian packages${size:+ ($size of disk)}:$reasons"
if ! apt-get install -y -q --no-install-recommends $missing >>"$log" 2>&1; then
	apt-get update -q >>"$log" 2>&1 || true
	if ! apt-get install -y -q --no-install-recommends $missing >>"$log" 2>&1; then
		echo "deps: apt-get install failed, see $log" >&2
		exit 1
	fi
fi
