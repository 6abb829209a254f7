#!/bin/bash
# SPDX-License-Identifier: MIT
# make demo: shows the library and its tools at work on this machine.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${GV_BUILD:-build}
GV="$B/tools/getvalues"

# Bold headings on a terminal only: a log or a pipe gets plain text.
if [ -t 1 ] && [ "${TERM:-dumb}" != dumb ]; then
	bold=$(printf '\033[1m') plain=$(printf '\033[0m')
else
	bold='' plain=''
fi
section() { printf '\n%s== %s%s\n' "$bold" "$1" "$plain"; [ $# -lt 2 ] || printf '   $ %s\n' "$2"; }

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

section "gvlsof vs lsof vs lsfd: every open file, median wall time of 5 runs"
procs=$(ls -d /proc/[0-9]* 2>/dev/null | wc -l)
rows=$("$B/tools/gvlsof" -n -P 2>/dev/null | wc -l)
gv_ms=$(median_ms "$B/tools/gvlsof" -n -P)
printf '   %-12s %6s ms\n' "gvlsof -n -P" "$gv_ms"

# One more tool's median, and how many times longer than gvlsof it takes.
against() {
	local ms
	command -v "$1" >/dev/null || return 0
	ms=$(median_ms "$@")
	printf '   %-12s %6s ms  (%s times gvlsof'"'"'s time)\n' "$*" "$ms" \
		"$(awk -v a="$ms" -v b="$gv_ms" \
			'BEGIN { if (b > 0) printf "%.1f", a / b; else print "?" }')"
}
against lsof -n -P
against lsfd
mine=""
[ "$(id -u)" -eq 0 ] || mine=" (yours only: you are not root)"
cat <<EOF
   This machine now: $procs processes, $rows lines of lsof output$mine.
   The README's figures were taken with 200 extra processes holding 25
   descriptors each, where the work per descriptor dominates. On a machine
   this idle, each tool's fixed start-up cost weighs more, so the ratios
   here differ from the README's; make bench runs the README's comparison.
EOF

section "readfile() vs open/read/close (ns per call, median of 5 repeats)" \
	"bench/readfile_speed -l 5000 -r 5"
"$B/bench/readfile_speed" -l 5000 -r 5
cat <<EOF
   ratio = open/read/close time / readfile() time: above 1, readfile() is
   the faster. On this kernel readfile() is made of those same system
   calls, so about 1 is what to expect; the native system call is measured
   by make kbench (kernel/README.md).
EOF
