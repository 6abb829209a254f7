#!/bin/bash
# SPDX-License-Identifier: MIT
# make demo: shows the library and its tools at work on this machine.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${GV_BUILD:-build}
GV="$B/tools/getvalues"

section() { printf '\n\033[1m== %s\033[0m\n' "$1"; [ $# -lt 2 ] || printf '   $ %s\n' "$2"; }

# median wall time in ms of 5 runs of a command (output discarded)
median_ms() {
	local t=() i s e
	for i in 1 2 3 4 5; do
		s=$(date +%s%N)
		"$@" >/dev/null 2>&1 || true
		e=$(date +%s%N)
		t+=($(((e - s) / 1000000)))
	done
	printf '%s\n' "${t[@]}" | sort -n | sed -n 3p
}

section "readfile(): every file of /sys/devices/system/cpu/vulnerabilities" \
	"examples/readfile-dir /sys/devices/system/cpu/vulnerabilities"
"$B/examples/readfile-dir" /sys/devices/system/cpu/vulnerabilities

section "getvalues(): several values about /proc/self in one call" \
	"getvalues /proc/self data:comm :loginuid stat:uid :mode fs:type :flags dir:task"
"$GV" /proc/self data:comm :loginuid stat:uid :mode fs:type :flags dir:task

section "getvalues(): the mount a path is on, without parsing mountinfo" \
	"getvalues /usr mnt:id :mountpoint :options :fstype :source"
"$GV" /usr mnt:id :mountpoint :options :fstype :source

section "getvalues(): the same as JSON" "getvalues --json / mnt:fstype stat:ino"
"$GV" --json / mnt:fstype stat:ino

section "gvlsof: lsof -n -P output from a handful of getvalues() calls" "gvlsof -n -P -p $$ | head"
"$B/tools/gvlsof" -n -P -p $$ | head -8

section "gvlsof vs lsof vs lsfd: whole system, median wall time of 5 runs (ms)"
printf '   %-16s %6s ms\n' "gvlsof -n -P" "$(median_ms "$B/tools/gvlsof" -n -P)"
command -v lsof >/dev/null && printf '   %-16s %6s ms\n' "lsof -n -P" "$(median_ms lsof -n -P)"
command -v lsfd >/dev/null && printf '   %-16s %6s ms\n' "lsfd" "$(median_ms lsfd)"
printf '   (%s processes; full comparison with syscall counts: make bench, bench/RESULTS.md)\n' \
	"$(ls -d /proc/[0-9]* 2>/dev/null | wc -l)"

section "readfile() vs open/read/close (ns per call, median of 5 repeats)" \
	"bench/readfile_speed -l 5000 -r 5"
"$B/bench/readfile_speed" -l 5000 -r 5
