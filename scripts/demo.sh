#!/bin/bash
# SPDX-License-Identifier: MIT
# make demo: the library and its tools at work on this machine, then what
# they gain against the tools people use today, each measured on the spot
# with the project's benchmark programs (short runs: read the ratios, not
# the times). A step this machine cannot do (no root, a chroot, a tool that
# is not installed) is skipped with the reason, and the demo goes on.
set -uo pipefail
cd "$(dirname "$0")/.."
B=${GV_BUILD:-build}
GV="$B/tools/getvalues"
export LC_ALL=C

# Bold headings on a terminal only: a log or a pipe gets plain text.
if [ -t 1 ] && [ "${TERM:-dumb}" != dumb ]; then
	bold=$(printf '\033[1m') plain=$(printf '\033[0m')
else
	bold='' plain=''
fi
section() {
	printf '\n%s== %s%s\n' "$bold" "$1" "$plain"
	[ $# -lt 2 ] || printf '   $ %s\n' "$2"
}
skip() { printf '   skipped: %s\n' "$*"; }
# "%Ns" of $2 for a width $1 in characters: µ takes two bytes.
pad() {
	local w=$1
	[[ $2 != *µ* ]] || w=$((w + 1))
	printf "%${w}s" "$2"
}
note() { printf '%s\n' "$@" | fold -s -w 76 | sed 's/^/   /'; }

# The ratios measured, for the summary at the end: "what|against|ratio".
wins=()
win() { wins+=("$1|$2|$3"); }

# Why a program failed: its exit status or signal, and its last words.
failed() {
	local prog=$1 status=$2 out=$3 how last

	if [ "$status" -gt 128 ]; then
		how="killed by SIG$(kill -l $((status - 128)))"
	else
		how="exit status $status"
	fi
	last=$(grep -v '^[[:space:]]*$' <<<"$out" | tail -n 1)
	skip "${prog##*/} failed ($how)${last:+: $last}"
}

# Run a command; when it fails, say so with what it printed on stderr,
# and return 1.
try() {
	local err status=0
	err=$(mktemp)
	"$@" 2>"$err" || status=$?
	[ "$status" -eq 0 ] || failed "$1" "$status" "$(cat "$err")"
	rm -f "$err"
	return "$status"
}

# Steps that read /proc say so when it is not mounted (a bare chroot).
need_proc() {
	[ -r /proc/self/stat ] && return 0
	skip "/proc is not mounted here${1:+ ($1)}"
	return 1
}

# A root that is not a mount (a chroot): mountinfo then has no "/" line,
# as it describes only the mounts reachable from this root.
in_chroot() {
	[ -r /proc/self/mountinfo ] &&
	! awk '$5 == "/" { found = 1 } END { exit !found }' /proc/self/mountinfo
}

# How to run a program in a private mount namespace: as it is for root,
# through a user namespace for anyone else; nothing when neither works.
mount_ns_runner() {
	if [ "$(id -u)" -eq 0 ] &&
	   unshare -m --propagation unchanged true 2>/dev/null; then
		echo ""
	elif unshare -Urm --propagation unchanged true 2>/dev/null; then
		echo "unshare -Urm"
	else
		return 1
	fi
}

# Wall and CPU (user + system) milliseconds of one run, output discarded.
run_ms() {
	local TIMEFORMAT='%R %U %S' t
	t=$({ time "$@" >/dev/null 2>&1; } 2>&1)
	awk -v t="$t" 'BEGIN { split(t, a, " ");
		printf "%.0f %.0f\n", a[1] * 1000, (a[2] + a[3]) * 1000 }'
}

# Medians of wall and CPU milliseconds over $runs runs.
runs=3
median_ms() {
	local i out=() m=$(((runs + 1) / 2))
	for ((i = 0; i < runs; i++)); do
		out+=("$(run_ms "$@")")
	done
	for i in 1 2; do
		printf '%s\n' "${out[@]}" | cut -d' ' -f$i | sort -n |
			sed -n "${m}p"
	done | paste -sd' '
}

# Columns of a Markdown table, chosen by their header names, from the rows
# of the first table of stdin whose column $1 matches the regex $2 (columns
# named "NAME+1" are the one after NAME). $3 lists the names, separated by
# $4 (default ","). Prints them joined by "|".
md_rows() {
	awk -v key="$1" -v re="$2" -v want="$3" -v sep="${4:-,}" -F'|' '
	function trim(s) { gsub(/^ +| +$/, "", s); return s }
	/^\|/ && !head { for (i = 2; i < NF; i++) col[trim($i)] = i
			 head = 1; next }
	/^\|---/ { next }
	!/^\|/ { if (head) exit; next }
	{
		if (trim($(col[key])) !~ re) next
		n = split(want, w, sep)
		line = ""
		for (j = 1; j <= n; j++) {
			name = w[j]; off = 0
			if (name ~ /\+1$/) { sub(/\+1$/, "", name); off = 1 }
			line = line (j > 1 ? "|" : "") trim($(col[name] + off))
		}
		print line
	}'
}

# ---- the library and the tools at work ----

show_readfile() {
	local dir=/sys/devices/system/cpu/vulnerabilities

	section "readfile(): every file of $dir" "examples/readfile-dir $dir"
	if [ ! -d "$dir" ]; then
		skip "$dir is not there (no sysfs mounted, or an old kernel)"
		return
	fi
	try "$B/examples/readfile-dir" "$dir"
}

show_getvalues() {
	section "getvalues(): several values about /proc/self in one call" \
		"getvalues /proc/self data:comm :loginuid stat:uid :mode fs:type :flags dir:task"
	need_proc || return
	try "$GV" /proc/self data:comm :loginuid stat:uid :mode fs:type \
		:flags dir:task
}

show_mount() {
	section "getvalues(): the mount a path is on, without parsing mountinfo" \
		"getvalues /usr mnt:id :mountpoint :options :fstype :source"
	if in_chroot; then
		skip "this root is a chroot: the mount /usr is on lies outside" \
		     "it, and getvalues() describes only the mounts reachable" \
		     "from the caller's root, as mountinfo does"
	elif need_proc "in a chroot without it, the mounts lie outside the root"; then
		try "$GV" /usr mnt:id :mountpoint :options :fstype :source
	fi
	section "getvalues(): as JSON" "getvalues --json / stat:ino :mode fs:type"
	try "$GV" --json / stat:ino :mode fs:type
}

show_gvlsof() {
	local out

	section "gvlsof: lsof -n -P output from a handful of getvalues() calls" \
		"gvlsof -n -P -p $$ | head -8"
	need_proc || return
	out=$(try "$B/tools/gvlsof" -n -P -p $$)
	printf '%s\n' "$out" | head -n 8
}

# ---- side by side with what people use today, measured now ----

measure_mounts() {
	local runner out rows

	section "The mount of a path among 1000: getvalues() against parsing mountinfo and findmnt" \
		"bench/mounts -n 1000 -r 3 -t 60 (a private mount namespace with 1000 bind mounts)"
	need_proc "the benchmark reads /proc/self/mountinfo" || return
	if in_chroot; then
		skip "this root is a chroot, not a mount: the benchmark cannot" \
		     "make / private in a mount namespace of its own (EINVAL)," \
		     "and the mounts outside the chroot are not reachable from it"
		return
	fi
	if ! runner=$(mount_ns_runner); then
		skip "it needs a mount namespace of its own: root, or user" \
		     "namespaces (unshare -Urm failed here)"
		return
	fi
	[ -z "$runner" ] || printf '   (as %s: %s)\n' "$(id -un)" "$runner"
	out=$($runner "$B/bench/mounts" -n 1000 -r 3 -t 60 2>&1) || {
		failed bench/mounts $? "$out"
		return
	}
	rows=$(md_rows query "^one path$" "method,wall,CPU,wall ratio,CPU ratio" <<<"$out" |
	       grep -E '^(getvalues|parse mountinfo|findmnt)\|')
	if [ -z "$rows" ]; then
		printf '%s\n' "$out"
		return
	fi
	printf '   %-16s %10s %10s   %s\n' method wall CPU \
		"its time / getvalues()'s"
	while IFS='|' read -r m w c rw rc; do
		printf '   %-16s %s %s' "${m/#getvalues/getvalues()}" \
			"$(pad 10 "$w")" "$(pad 10 "$c")"
		[ "$m" = getvalues ] ||
			printf '   %s× wall, %s× CPU' "$rw" "$rc"
		printf '\n'
		[ "$m" = getvalues ] ||
			win "the mount of a path, 1000 mounts" "$m" "$rw"
	done <<<"$rows"
}

# gvlsof, lsof and lsfd over every process, while bench/lsof -H holds 100
# processes with 25 descriptors each.
measure_lsof() {
	local pid err line gv t ms

	section "Every open file: gvlsof against lsof and lsfd, 100 extra processes with 25 descriptors each" \
		"gvlsof -n -P; lsof -n -P; lsfd (median of $runs runs each, output to /dev/null)"
	need_proc || return
	err=$(mktemp)
	"$B/bench/lsof" -n 100 -f 25 -H 2>"$err" &
	pid=$!
	for _ in $(seq 100); do
		grep -q 'Interrupt to end' "$err" && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	line=$(grep 'Interrupt to end' "$err")
	if [ -z "$line" ]; then
		if kill "$pid" 2>/dev/null; then
			wait "$pid" 2>/dev/null
			skip "bench/lsof's holder processes were not ready" \
			     "within 10 s"
		else
			wait "$pid"
			failed bench/lsof $? "$(cat "$err")"
		fi
		rm -f "$err"
		return
	fi
	line=${line#lsof: }
	printf '   %s\n' "${line% Interrupt to end.}"
	[ "$(id -u)" -eq 0 ] ||
		note "(you are not root: each tool lists your processes only)"
	read -r gv t <<<"$(median_ms "$B/tools/gvlsof" -n -P)"
	printf '   %-14s %7s ms wall %6s ms CPU\n' "gvlsof -n -P" "$gv" "$t"
	for tool in "lsof -n -P" lsfd; do
		if ! command -v "${tool%% *}" >/dev/null; then
			skip "${tool%% *} is not installed"
			continue
		fi
		read -r ms c <<<"$(median_ms $tool)"
		printf '   %-14s %7s ms wall %6s ms CPU   %s× gvlsof'"'"'s wall, %s× its CPU\n' \
			"$tool" "$ms" "$c" \
			"$(awk -v a="$ms" -v b="$gv" 'BEGIN { printf "%.1f", b ? a / b : 0 }')" \
			"$(awk -v a="$c" -v b="$t" 'BEGIN { printf "%.1f", b ? a / b : 0 }')"
		win "every open file ($(sed 's/.*; \([0-9]*\) processes, \([0-9]*\) descriptors.*/\1 processes, \2 fds/' <<<"$line"))" \
			"$tool" "$(awk -v a="$ms" -v b="$gv" 'BEGIN { printf "%.1f", b ? a / b : 0 }')"
	done
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	rm -f "$err"
}

measure_batch() {
	local out rows cpu

	section "64 small files in one getvalues() call (auto) against 64 open/read/close" \
		"bench/batch -r 3 -C -n 64"
	if [ ! -d /sys/devices/system/cpu ]; then
		skip "sysfs is not mounted here (the benchmark reads" \
		     "/sys/devices/system/cpu)"
		return
	fi
	out=$("$B/bench/batch" -r 3 -C -n 64 2>&1) || {
		failed bench/batch $? "$out"
		return
	}
	rows=$(md_rows N "^64$" "fs,orc µs,auto,auto+1,auto chose" <<<"$out")
	cpu=$(sed -n '/CPU time/,$p' <<<"$out" |
	      md_rows N "^64$" "fs,auto+1")
	if [ -z "$rows" ]; then
		printf '%s\n' "$out"
		return
	fi
	printf '   %-7s %16s %12s   %-8s %-8s %s\n' "" "open/read/close" \
		"getvalues()" "faster" "" "auto"
	printf '   %-7s %s %s   %-8s %-8s %s\n' files "$(pad 16 µs)" \
		"$(pad 12 µs)" wall CPU chose
	while IFS='|' read -r fs orc auto ratio chose; do
		printf '   %-7s %15s %12s   %-8s %-8s %s\n' "$fs" "$orc" "$auto" \
			"$ratio×" "$(grep "^$fs|" <<<"$cpu" | cut -d'|' -f2)×" \
			"$chose"
		case $fs in procfs | sysfs)
			win "64 files of $fs in one call" "64 open/read/close" "$ratio" ;;
		esac
	done <<<"$rows"
	note "Above 1 the call is faster. On procfs the batch wins; on tmpfs" \
	     "and ext4 the library pays for never opening a device or FIFO" \
	     "that a rename swapped in (README, \"Where the library loses\")."
}

measure_readfile() {
	local out rows

	section "readfile() against open/read/close, in C" \
		"bench/readfile_speed -l 1000 -r 3"
	out=$("$B/bench/readfile_speed" -l 1000 -r 3 2>&1) || {
		failed bench/readfile_speed $? "$out"
		return
	}
	rows=$(md_rows fs "." "fs,open/read/close,readfile,readfile+1" <<<"$out")
	if [ -z "$rows" ]; then
		printf '%s\n' "$out"
		return
	fi
	printf '   %-7s %16s %10s   %s\n' fs "open/read/close" readfile \
		"readfile() faster"
	while IFS='|' read -r fs orc rf ratio; do
		ratio=$(awk -v r="$ratio" 'BEGIN { printf "%.2f", r }')
		printf '   %-7s %13s ns %7s ns   %s×\n' "$fs" "$orc" "$rf" \
			"$ratio"
		win "readfile() of a small $fs file" "open/read/close" "$ratio"
	done <<<"$rows"
	note "The ratio is open/read/close's time / readfile()'s, in the" \
	     "same run: above 1, readfile() is faster. Both make the same" \
	     "four system calls on this kernel, so about 1 is what to" \
	     "expect. The native readfile(2) is measured by make kbench."
}

# The Python steps need the module, /proc and psutil: says which is missing.
python_ready() {
	if [ -z "$(ls "$B"/python/getvalues*.so 2>/dev/null)" ]; then
		skip "the Python module was not built (python3-dev is missing)"
		return 1
	fi
	need_proc "the Python benchmarks list its processes" || return 1
	if ! /usr/bin/python3 -c 'import psutil' 2>/dev/null; then
		skip "psutil is not installed (Debian: python3-psutil)"
		return 1
	fi
}

measure_python() {
	local out rows

	section "Python: every process's pid, name, state, rss and cmdline, against psutil" \
		"bench/ps.py -r 3"
	python_ready || return
	out=$(GV_BUILD="$B" bench/ps.py -r 3 2>&1) || {
		failed bench/ps.py $? "$out"
		return
	}
	rows=$(md_rows method "." "method,wall ms,CPU ms,vs psutil (wall)" <<<"$out")
	printf '   %-44s %8s %8s   %s\n' method "wall ms" "CPU ms" \
		"faster than psutil"
	while IFS='|' read -r m w c r; do
		printf '   %-44s %8s %8s   %s×\n' "$m" "$w" "$c" "$r"
		case $m in getvalues.*)
			win "Python ps: ${m#getvalues.}" psutil.process_iter "$r" ;;
		esac
	done <<<"$rows"
}

# The process table (getvalues.process_iter()) against psutil's, on the
# processes running now (-n 0 starts no extra ones).
measure_proctable() {
	local out rows cols

	section "Python: the process table, getvalues.process_iter() against psutil.process_iter()" \
		"bench/psutil.py -r 3 -n 0"
	python_ready || return
	out=$(GV_BUILD="$B" bench/psutil.py -r 3 -n 0 2>&1) || {
		failed bench/psutil.py $? "$out"
		return
	}
	cols="processes, attributes;getvalues wall ms;getvalues CPU ms"
	cols+=";psutil wall ms;psutil CPU ms;ratio wall;ratio CPU"
	rows=$(md_rows "processes, attributes" "^[0-9]+, " "$cols" ";" \
	       <<<"$out")
	if [ -z "$rows" ]; then
		printf '%s\n' "$out"
		return
	fi
	printf '   %-40s %17s %17s   %s\n' "" "getvalues ms" "psutil ms" \
		"faster"
	printf '   %-40s %8s %8s %8s %8s   %-7s %s\n' \
		"processes, attributes" wall CPU wall CPU wall CPU
	while IFS='|' read -r what gw gc pw pc rw rc; do
		printf '   %-40s %8s %8s %8s %8s   %-7s %s\n' "$what" "$gw" \
			"$gc" "$pw" "$pc" "$rw×" "$rc×"
		case $what in *beforehand) ;; *)
			win "process table, ${what#*, }, ${what%%,*} processes" \
				psutil.process_iter "$rw" ;;
		esac
	done <<<"$rows"
	note "Every process's .info dict, as a monitor asks for it again and" \
	     "again: the 12 attributes of psutil issue #2956, then all 27." \
	     "\"files read beforehand\" is psutil's floor, its parsing alone" \
	     "with /proc's files read before the timing. make bench measures" \
	     "it at 300 and 2,000 processes."
}

summary() {
	[ ${#wins[@]} -gt 0 ] || return 0
	section "Side by side, as measured above (times the other's time: above 1, the project is faster)"
	printf '   %-50s %-22s %s\n' what against ratio
	for w in "${wins[@]}"; do
		IFS='|' read -r what other ratio <<<"$w"
		printf '   %-50s %-22s %s×\n' "$what" "$other" "$ratio"
	done
	note "This demo took $((SECONDS - start)) s. make bench measures the" \
	     "same at length (bench/RESULTS.md)."
}

start=$SECONDS
show_readfile
show_getvalues
show_mount
show_gvlsof
measure_mounts
measure_lsof
measure_batch
measure_readfile
measure_python
measure_proctable
summary
