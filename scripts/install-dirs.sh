#!/bin/sh
# SPDX-License-Identifier: MIT
# The directories make install creates, so that make uninstall removes them
# again, and never one that was there before (PREFIX/lib, a shared
# share/man/man1 or site-packages): what each install made is recorded in
# a list kept in the build tree, as meson keeps its install log.
#
#   scripts/install-dirs.sh record LIST DIR...
#	before installing: adds to LIST each of DIR and its parents that
#	does not exist yet
#   scripts/install-dirs.sh remove LIST DIR...
#	after uninstalling: removes, deepest first, each directory of LIST
#	that is DIR or one of its parents, if it is empty; those left (someone
#	else's files are in them) stay in LIST
set -eu
cmd=$1
list=$2
shift 2

# DIR and each of its parents, one a line, deepest first.
chain() {
	d=$1
	while [ -n "$d" ] && [ "$d" != / ] && [ "$d" != . ]; do
		echo "$d"
		d=$(dirname "$d")
	done
}

case $cmd in
record)
	mkdir -p "$(dirname "$list")"
	touch "$list"
	for dir in "$@"; do
		chain "$dir" | while read -r d; do
			[ -e "$d" ] || echo "$d"
		done
	done | sort -u - "$list" >"$list.new"
	mv "$list.new" "$list"
	;;
remove)
	[ -f "$list" ] || exit 0
	ours=$(for dir in "$@"; do chain "$dir"; done | sort -u)
	# deepest first: the longest paths first
	for d in $(echo "$ours" | awk '{ print length, $0 }' | sort -rn |
		   cut -d' ' -f2-); do
		grep -qxF "$d" "$list" || continue
		[ -d "$d" ] || continue
		if rmdir "$d" 2>/dev/null; then
			echo "rmdir $d"
		fi
	done
	while read -r d; do
		[ ! -d "$d" ] || echo "$d"
	done <"$list" >"$list.new"
	mv "$list.new" "$list"
	[ -s "$list" ] || rm -f "$list"
	;;
*)
	echo "install-dirs.sh: unknown command '$cmd'" >&2
	exit 2
	;;
esac
