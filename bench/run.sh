#!/bin/bash
# SPDX-License-Identifier: MIT
# Runs benchmarks and rewrites bench/RESULTS.md. Each benchmark writes its own
# section, bench/results/NAME.md, headed by the exact command that produced
# its figures and the machine it ran on; RESULTS.md joins the sections in the
# order of the list below. Benchmarks are not tests: run them on a quiet
# machine and read the ratios rather than the absolute times.
#
#   bench/run.sh [NAME...]    (default: all of them but native)
#
# "native" boots the patched Linux 6.12 in QEMU (kernel/kcheck.sh --bench,
# make kbench) and measures the native system calls there, under TCG
# emulation: only its ratios mean anything.
#
# Two kinds of machine: the benchmarks named in GV_BENCH_DEAR (default: all
# but native) run a second time under bench/syscost, which makes every system
# call dearer by GV_SYSCOST_LOADS loads of a seccomp filter (default 5000,
# some 0.6-0.9 us), into a section NAME-dear of its own. Each section says
# the CPU, its page-table isolation and what one system call cost there.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${GV_BUILD:-build}
B=${B#"$PWD/"}

# name|title|command, run from the top of the tree
benchmarks=(
"readfile|readfile() vs open/read/close|$B/bench/readfile_speed -l 20000 -r 15"
"mounts|Mounts: one path and the whole table, getvalues vs mountinfo vs findmnt|$B/bench/mounts -n 20,1000,10000 -r 7 -t 700"
"lsof|gvlsof vs lsof and lsfd, 200 extra processes|$B/bench/lsof -n 200 -f 25 -r 11"
"batch|N files in one getvalues() vs N open/read/close, per backend|$B/bench/batch -r 11 -R 5"
"python|Python: a ps-like listing of every process, getvalues vs open().read() vs psutil|GV_BUILD=$B bench/ps.py -r 21 -n 200"
"psutil|Python: getvalues.process_iter() vs psutil.process_iter(), the 12 attributes of psutil #2956 and all of them|GV_BUILD=$B bench/psutil.py -r 11 -n 300,2000"
"native|The native system calls in Linux 6.12 under QEMU (emulation: read the ratios)|kernel/kcheck.sh --bench"
)

K=${GV_SYSCOST_LOADS:-5000}
dear=" ${GV_BENCH_DEAR-readfile mounts lsof batch python psutil} "
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
meltdown=$(cat /sys/devices/system/cpu/vulnerabilities/meltdown 2>/dev/null ||
	echo unknown)
# "?" where syscost is not built (make kbench) or seccomp is refused
read -r plain_ns dear_ns < <("$B/bench/syscost" -k "$K" -p 2>/dev/null ||
	echo "? ?")
machine="$(nproc) CPUs ($cpu), meltdown: $meltdown"

# section FILE TITLE CMD REGIME: run CMD, write its section into FILE
section() {
	local file=$1 title=$2 cmd=$3 regime=$4 out run
	run=$cmd
	[ "$regime" = dear ] && run="$B/bench/syscost -k $K -- bash -c '$cmd'"
	echo "bench: $(basename "$file" .md): $run" >&2
	out=$(bash -c "$run")
	{
		echo "## $title"
		echo
		echo "Command: \`${run//$B\//build/}\`"
		echo
		if [ "$file" = bench/results/native.md ]; then
			echo "Run on $(date -u +%Y-%m-%d) in the kcheck guest (QEMU" \
				"TCG, 2 virtual CPUs) on a host with $(nproc) CPUs, commit" \
				"$(git rev-parse --short HEAD 2>/dev/null || echo unknown)."
		elif [ "$regime" = dear ]; then
			echo "Run on $(date -u +%Y-%m-%d), kernel $(uname -r)," \
				"$machine, commit" \
				"$(git rev-parse --short HEAD 2>/dev/null || echo unknown)." \
				"System calls made dearer: a getppid() costs $dear_ns ns" \
				"under the filter ($plain_ns ns without)."
		else
			echo "Run on $(date -u +%Y-%m-%d), kernel $(uname -r)," \
				"$machine, commit" \
				"$(git rev-parse --short HEAD 2>/dev/null || echo unknown)." \
				"A getppid() costs $plain_ns ns."
		fi
		echo
		echo "$out"
	} >"$file"
}

names=()
for entry in "${benchmarks[@]}"; do names+=("${entry%%|*}"); done
want=("$@")
if [ ${#want[@]} -eq 0 ]; then
	for name in "${names[@]}"; do
		[ "$name" = native ] || want+=("$name")
	done
fi

mkdir -p bench/results
for entry in "${benchmarks[@]}"; do
	IFS='|' read -r name title cmd <<<"$entry"
	case " ${want[*]} " in *" $name "*) ;; *) continue ;; esac
	section "bench/results/$name.md" "$title" "$cmd" plain
	case "$dear" in *" $name "*) ;; *) continue ;; esac
	section "bench/results/$name-dear.md" \
		"$title, system calls made dearer (bench/syscost -k $K)" \
		"$cmd" dear
done

{
	echo "# Benchmark results"
	echo
	echo "Written by \`make bench\` (bench/run.sh); one section per benchmark,"
	echo "each with the command that produced it. These are not tests: the VMs"
	echo "are noisy, so every figure is a median of repeats and the ratios"
	echo "matter more than absolute times."
	echo
	echo "Each section names the machine, kernel and commit it ran on:"
	echo "\`bench/run.sh NAME\` runs again only the sections named. The"
	echo "machine of the last run: $machine; a getppid() costs" \
		"$plain_ns ns, $dear_ns ns under bench/syscost -k $K (the other" \
		"kind of machine: sections marked \"system calls made dearer\")."
	for name in "${names[@]}"; do
		for f in "bench/results/$name.md" "bench/results/$name-dear.md"; do
			[ -f "$f" ] || continue
			echo
			cat "$f"
		done
	done
} >bench/RESULTS.md
echo "bench: results in bench/RESULTS.md" >&2
