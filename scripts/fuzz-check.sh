#!/bin/sh
# SPDX-License-Identifier: MIT
# make check's bounded fuzz round: runs the libFuzzer target with its output
# in a log file and prints one line a person reads; on a crash or a leak, the
# end of the log and where the crasher was saved.
#
#   scripts/fuzz-check.sh FUZZ_DIR [LIBFUZZER_ARGS...]
set -u
fz=$1
shift
log=$fz/check-${GETVALUES_BACKEND:-auto}.log
mkdir -p "$fz/corpus" "$fz/crashes"

# A backend this machine cannot run is a skip, said why, not a failure.
backend=${GETVALUES_BACKEND:-auto}
if [ "$backend" != auto ] && [ -x "${GV_BUILD:-build}/tools/getvalues" ] &&
   ! why=$("${GV_BUILD:-build}/tools/getvalues" --backend="$backend" / fs:type 2>&1 >/dev/null); then
	echo "  FUZZ    skipped for backend $backend: $why"
	exit 0
fi

# The sanitizers read their options (/proc/self/environ) and, for the leak
# check at exit, the threads (/proc/PID/task) from /proc: without it (a
# bare chroot) that check fails after a clean run, whatever ASAN_OPTIONS
# says, and the round would report a crash that is none.
if ! [ -r /proc/self/stat ]; then
	echo "  FUZZ    skipped: /proc is not mounted (LeakSanitizer's check at exit needs it)"
	exit 0
fi

start=$(date +%s)
"$fz/fuzz_getvalues" "$@" -timeout=10 -print_final_stats=1 \
	-artifact_prefix="$fz/crashes/" "$fz/corpus" tests/fuzz/corpus \
	tests/fuzz/regressions >"$log" 2>&1
rc=$?
secs=$(($(date +%s) - start))
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)

if [ "$rc" -eq 0 ]; then
	echo "  FUZZ    getvalues(): ${runs:-?} inputs (backend $backend) in ${secs} s, no crash, no leak (log: $log)"
	exit 0
fi
tail -n 40 "$log" >&2
echo "FUZZ FAILED: fuzz_getvalues exited $rc after ${secs} s (backend $backend); whole log: $log" >&2
ls -t "$fz/crashes" 2>/dev/null | head -n 1 | sed "s|^|  the input that failed: $fz/crashes/|" >&2
echo "  replay it with: $fz/fuzz_getvalues FILE; once fixed, copy it to tests/fuzz/regressions/" >&2
exit 1
