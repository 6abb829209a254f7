#!/bin/sh
# SPDX-License-Identifier: MIT
# Makes sure the Debian packages a make target needs are installed: as root it
# installs the missing ones, saying which, why and how much disk they take;
# otherwise it prints the exact apt-get command and fails.
#
#   scripts/deps.sh [-v] SET...  build check fuzz python bench kernel, or all
#
# -v (make deps) also says so when nothing is missing; without it (every
# make) a check that finds everything installed prints nothing. apt-get's
# own output shows the progress of an install.
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

verbose=no
if [ "${1:-}" = -v ]; then
	verbose=yes
	shift
fi
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
checked=""
for s in $sets; do
	set_pkgs "$s"
	set_why "$s"
	lack=""
	for p in $pkgs; do
		case " $checked " in *" $p "*) ;; *) checked="$checked $p" ;; esac
		installed "$p" && continue
		case " $missing " in *" $p "*) continue ;; esac
		missing="$missing $p"
		lack="$lack $p"
	done
	[ -z "$lack" ] || reasons="$reasons
 $lack: $why"
done
if [ -z "$missing" ]; then
	if [ "$verbose" = yes ]; then
		set -- $checked
		echo "deps: all installed ($# Debian packages, for${sets})"
	fi
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "Missing Debian packages:$reasons" >&2
	echo "Install them as root with:" >&2
	echo "  apt-get install -y --no-install-recommends$missing" >&2
	echo "(or run 'sudo make deps' once: everything the README's commands need)" >&2
	exit 1
fi

# "(N MB of disk)": what a simulated install would unpack, with the
# packages it pulls in. (apt-get install --assume-no is no dry run: with
# nothing to ask, it installs.)
disk_size() {
	inst=$(LC_ALL=C apt-get install -s --no-install-recommends "$@" \
		2>/dev/null | sed -n 's/^Inst \([^ ]*\) .*/\1/p')
	[ -n "$inst" ] || return 0
	# shellcheck disable=SC2086
	LC_ALL=C apt-cache show --no-all-versions $inst 2>/dev/null |
		awk '/^Installed-Size:/ { kb += $2; n++ }
		     END { if (!n) exit
			   if (kb < 1024) size = kb " kB"
			   else size = sprintf("%.0f MB", kb / 1024)
			   printf "(%d packages, %s of disk)\n", n, size }'
}

export DEBIAN_FRONTEND=noninteractive
set -- $missing
echo "deps: missing Debian packages:$reasons"
# A machine that never ran apt-get update knows no packages yet.
if ! apt-get install -s --no-install-recommends "$@" >/dev/null 2>&1; then
	echo "deps: apt-get update (apt does not know every one of them yet)"
	apt-get update -q || true
fi
echo "deps: apt-get install -y --no-install-recommends $*" \
	"$(disk_size "$@")"
if ! apt-get install -y -q --no-install-recommends "$@"; then
	echo "deps: apt-get install failed; apt-get update, then again"
	apt-get update -q || true
	if ! apt-get install -y -q --no-install-recommends "$@"; then
		echo "deps: apt-get install failed (its messages above)" >&2
		exit 1
	fi
fi
echo "deps: installed:$missing"
