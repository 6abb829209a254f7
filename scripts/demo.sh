#!/bin/bash
# SPDX-License-Identifier: MIT
# make demo: shows the library at work on this machine.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${GV_BUILD:-build}

section() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

section "readfile(): every file of /sys/devices/system/cpu/vulnerabilities"
"$B/examples/readfile-dir" /sys/devices/system/cpu/vulnerabilities

section "readfile(): /proc/self files"
"$B/examples/readfile-dir" /proc/self | grep -E '^(comm|stat|status|limits|cgroup|loginuid|oom_score) ' | cut -c1-110

section "readfile() vs open/read/close (ns per call, median of 5 repeats)"
"$B/bench/readfile_speed" -l 5000 -r 5
