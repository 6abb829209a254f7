#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kcheck.sh - builds Linux 6.12 with the readfile/getvalues series, boots it in
# QEMU (TCG) and runs the kselftests and the library's test suite inside.
#
#   kernel/kcheck.sh              build (if needed), boot, test; TAP on stdout
#   kernel/kcheck.sh --build-only build the kernel and the test programs only
#   kernel/kcheck.sh --shell      boot to a shell on the console instead
#   kernel/kcheck.sh --each       check that every prefix of the series
#                                 builds (1, 1-2, 1-2-3, ...), then exit
#   kernel/kcheck.sh --bench      run the benchmarks in the guest instead
#                                 of the tests (bench/native, bench/lsof);
#                                 their markdown on stdout
#
# Environment: KASAN=1 (KASAN + lockdep kernel), KCHECK_CACHE (default
# /var/cache/getvalues-kernel), KCHECK_JOBS (2), KCHECK_TIMEOUT (guest time
# limit in seconds), KCHECK_TEST_TIMEOUT (per test program), GV_SRC (the
# library tree whose tests run in the guest; default this repository),
# KCHECK_BACKEND (GETVALUES_BACKEND in the guest; default native once
# src/native.c exists), KCHECK_TESTS (run only the guest programs whose
# name matches one of these shell patterns, e.g. 'lib/backend* kselftest/*';
# a quick way to iterate on one failure), KCHECK_FUZZ_TIME (seconds of
# guest/gvfuzz: 30, 240 with KASAN; '240 SEED' replays the run that
# printed that seed). Under KASAN=1 the library tests' watchdogs wait ten
# times longer (GV_TEST_TIME_SCALE=10 in the guest, tests/lib/sub.h).
#
# Everything heavy lives in the cache, never in the repository:
#   tree-VERSION/   linux-source-6.12 unpacked, a git repository whose
#                   "pristine" tag is the Debian source; kcheck checks out
#                   pristine + kernel/patches/*.patch there
#   build-FLAVOUR/  the O= build directory of each flavour (plain, kasan),
#                   reused so that a changed series rebuilds incrementally
#   images/KEY/     bzImage, headers and kselftests of one (source tree,
#                   config fragments, flavour): an unchanged series and
#                   config is never rebuilt
#   runs/           initramfs, disk image and logs of the last runs
set -euo pipefail

KDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(dirname "$KDIR")
GV_SRC=${GV_SRC:-$REPO}
CACHE=${KCHECK_CACHE:-/var/cache/getvalues-kernel}
JOBS=${KCHECK_JOBS:-2}
KASAN=${KASAN:-0}
[ "$KASAN" = 0 ] && KASAN=
FLAVOUR=${KASAN:+kasan}
FLAVOUR=${FLAVOUR:-plain}
TIMEOUT=${KCHECK_TIMEOUT:-$([ -n "$KASAN" ] && echo 3600 || echo 1800)}
TEST_TIMEOUT=${KCHECK_TEST_TIMEOUT:-$([ -n "$KASAN" ] && echo 1200 || echo 600)}
FUZZ_TIME=${KCHECK_FUZZ_TIME:-$([ -n "$KASAN" ] && echo 240 || echo 30)}
KSERIES=6.12
SRC_PKG=linux-source-$KSERIES
SRC_TARBALL=/usr/src/$SRC_PKG.tar.xz
# Called from make: keep its flags and variables out of the kernel build.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
# Bump when the way the kernel is configured or built changes, so that
# cached images made the old way are not reused.
RECIPE=4

MODE=test
case "${1:-}" in
"") ;;
--build-only) MODE=build ;;
--shell) MODE=shell ;;
--each) MODE=each ;;
--bench) MODE=bench ;;
-h|--help) sed -n '3,32p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
*) echo "kcheck: unknown option '$1' (try --help)" >&2; exit 2 ;;
esac

say() { echo "kcheck: $*" >&2; }
die() { echo "kcheck: error: $*" >&2; exit 1; }
now() { date +%s; }

# --- dependencies -----------------------------------------------------------
install_deps() {
	if [ -x "$REPO/scripts/deps.sh" ] || [ -f "$REPO/scripts/deps.sh" ]; then
		sh "$REPO/scripts/deps.sh" kernel
	fi
	local cmd
	for cmd in qemu-system-x86_64 busybox cpio mkfs.ext4 git make gcc flex \
		   bison bc xz timeout flock sha256sum readelf; do
		command -v "$cmd" >/dev/null 2>&1 ||
			die "'$cmd' is missing (run scripts/deps.sh kernel as root)"
	done
	[ -f "$SRC_TARBALL" ] || die "$SRC_TARBALL is missing (apt-get install $SRC_PKG)"
	# A dynamically linked busybox names its program interpreter.
	! readelf -l "$(command -v busybox)" | grep -q 'program interpreter' ||
		die "busybox is not statically linked (apt-get install busybox-static)"
}

# --- the kernel source ------------------------------------------------------
# Unpacks the Debian source once per package version into a git repository,
# so that switching between patch series rewrites only the files that
# differ and the build stays incremental.
pristine_tree() {
	local ver tmp
	ver=$(dpkg-query -W -f='${Version}' "$SRC_PKG" 2>/dev/null ||
	      stat -c %Y "$SRC_TARBALL")
	TREE=$CACHE/tree-$ver
	[ -d "$TREE/.git" ] && return 0
	say "unpacking $SRC_TARBALL (once per package version)"
	tmp=$TREE.tmp.$$
	rm -rf "$tmp"
	mkdir -p "$tmp"
	tar -xJf "$SRC_TARBALL" -C "$tmp" --strip-components=1
	(
		cd "$tmp"
		git init -q
		# Debian's top-level .gitignore ignores everything: force.
		git add -f -A .
		git -c user.name=kcheck -c user.email=kcheck@localhost \
			commit -q -m "$SRC_PKG $ver as unpacked"
		git tag pristine
	)
	mv "$tmp" "$TREE"
}

# The series: kernel/patches/*.patch but the cover letter (0000-*).
series_patches() {
	local p
	for p in "$KDIR"/patches/*.patch; do
		case "${p##*/}" in 0000-*) ;; *) echo "$p" ;; esac
	done
}

# Applies kernel/patches/*.patch on top of pristine in a scratch index and
# checks the result out; sets SERIES_TREE to the git tree id of the patched
# source, which is what the build cache is keyed by.
apply_series() {
	local index=$RUN/series.index p commit
	local -a patches
	mapfile -t patches < <(series_patches)

	[ "${#patches[@]}" -gt 0 ] || die "no patches in $KDIR/patches"
	[ -z "${1:-}" ] || patches=("${patches[@]:0:$1}")
	rm -f "$index"
	GIT_INDEX_FILE=$index git -C "$TREE" read-tree pristine
	for p in "${patches[@]}"; do
		GIT_INDEX_FILE=$index git -C "$TREE" apply --cached \
			--whitespace=nowarn "$p" ||
			die "${p##*/} does not apply to $SRC_PKG"
	done
	SERIES_TREE=$(GIT_INDEX_FILE=$index git -C "$TREE" write-tree)
	rm -f "$index"
	say "applied ${#patches[@]} patches: source tree ${SERIES_TREE:0:12}"
	commit=$(git -C "$TREE" -c user.name=kcheck -c user.email=kcheck@localhost \
		commit-tree "$SERIES_TREE" -p pristine -m "kcheck: kernel/patches")
	git -C "$TREE" reset -q --hard "$commit"
	git -C "$TREE" clean -q -f -d -x
}

fragments() {
	cat "$KDIR/config/base.config" "$KDIR/config/features.config"
	[ -z "$KASAN" ] || cat "$KDIR/config/kasan.config"
}

# Configures from allnoconfig plus the fragments, and checks that every
# option the fragments ask for survived Kconfig's dependency resolution.
configure() {
	local frag=$BUILD/kcheck.fragment line name missing=
	mkdir -p "$BUILD"
	fragments | grep -E '^CONFIG_' > "$frag"
	make -s -C "$TREE" O="$BUILD" ARCH=x86_64 KCONFIG_ALLCONFIG="$frag" \
		allnoconfig >> "$LOG" 2>&1 || die "allnoconfig failed, see $LOG"
	while IFS= read -r line; do
		name=${line%%=*}
		grep -qxF "$line" "$BUILD/.config" ||
			missing="$missing $name($(grep -E "^$name=|^# $name is not set" \
				"$BUILD/.config" || echo absent))"
	done < "$frag"
	[ -z "$missing" ] || die "config options lost to dependencies:$missing"
}

build_kernel() {
	local start img_tmp t
	IMAGE=$CACHE/images/$KEY
	if [ -f "$IMAGE/bzImage" ]; then
		say "kernel $KEY is cached"
		return 0
	fi
	start=$(now)
	BUILD=$CACHE/build-$FLAVOUR
	img_tmp=$IMAGE.tmp.$$
	rm -rf "$img_tmp"
	mkdir -p "$img_tmp"
	LOG=$img_tmp/build.log
	say "building kernel $KEY ($FLAVOUR, -j$JOBS), log in $IMAGE/build.log"
	configure
	if ! make -C "$TREE" O="$BUILD" ARCH=x86_64 -j"$JOBS" bzImage \
		>> "$LOG" 2>&1; then
		grep -E 'error|Error' "$LOG" | head -40 >&2
		mv "$img_tmp" "$IMAGE.failed.$$"
		die "kernel build failed, see $IMAGE.failed.$$/build.log"
	fi
	make -s -C "$TREE" O="$BUILD" ARCH=x86_64 headers_install \
		INSTALL_HDR_PATH="$img_tmp/usr" >> "$LOG" 2>&1 ||
		die "headers_install failed, see $LOG"
	cp "$BUILD/arch/x86/boot/bzImage" "$BUILD/.config" "$BUILD/System.map" \
		"$img_tmp/"
	# Kernel warnings from the build (not errors) are worth seeing.
	grep -E '^[^ ]+:[0-9]+:[0-9]+: warning:' "$LOG" >&2 || true
	for t in "$TREE"/tools/testing/selftests/readfile \
		 "$TREE"/tools/testing/selftests/getvalues; do
		[ -d "$t" ] || continue
		mkdir -p "$img_tmp/kselftest/${t##*/}"
		LDFLAGS=-static make -s -C "$t" OUTPUT="$img_tmp/kselftest/${t##*/}" \
			KHDR_INCLUDES="-isystem $img_tmp/usr/include" >> "$LOG" 2>&1 ||
			die "building kselftest ${t##*/} failed, see $LOG"
	done
	rm -rf "$IMAGE"
	mv "$img_tmp" "$IMAGE"
	say "kernel built in $(( $(now) - start ))s"
}

# --- the programs that run in the guest --------------------------------------
build_library_tests() {
	GV_STATIC=
	if [ ! -f "$GV_SRC/Makefile" ] || [ ! -d "$GV_SRC/tests" ]; then
		say "no library test suite in $GV_SRC: running the kselftests only"
		return 0
	fi
	say "building the library tests statically in $GV_SRC/build-static"
	make -s -C "$GV_SRC" STATIC=1 -j"$JOBS" tests tools benches >&2 ||
		die "make STATIC=1 tests tools benches failed in $GV_SRC"
	GV_STATIC=$GV_SRC/build-static
}

guest_backend() {
	if [ -n "${KCHECK_BACKEND+set}" ]; then
		echo "$KCHECK_BACKEND"
	elif [ -f "$GV_SRC/src/native.c" ]; then
		echo native
	fi
}

# The standalone probe runs in the guest as well: it must say "native" there
# (KCHECK_EXPECT=none for a series whose getvalues(2) does not answer).
# Each kernel/guest/*.c is one static program: init runs those in DIR one
# by one; one marked "kcheck-guest: helper" goes to HELPERS instead (init
# starts it itself), one marked "kcheck-guest: libgetvalues" links the
# library's static build (and is left out without one).
build_guest_programs() {
	local dir=$1 helpers=$2 src name out
	local -a libs
	gcc -O2 -Wall -Wextra -static -o "$dir/native_probe" \
		"$KDIR/probe/native_probe.c" || die "building native_probe failed"
	echo "--expect ${KCHECK_EXPECT:-native}" > "$dir/native_probe.args"
	# failnth: fault injection; gvfuzz: randomized calls for FUZZ_TIME
	for src in "$KDIR"/guest/*.c; do
		name=${src##*/}
		name=${name%.c}
		out=$dir
		libs=()
		grep -q 'kcheck-guest: helper' "$src" && out=$helpers
		if grep -q 'kcheck-guest: libgetvalues' "$src"; then
			if [ -z "$GV_STATIC" ]; then
				say "guest/$name needs the library: left out"
				continue
			fi
			libs=(-I"$GV_SRC/include" "$GV_STATIC/libgetvalues.a"
			      -luring -lpthread)
		fi
		gcc -O2 -Wall -Wextra -static -o "$out/$name" "$src" \
			"${libs[@]}" || die "building $name failed"
	done
	echo "$FUZZ_TIME" > "$dir/gvfuzz.args"
}

make_initramfs() {
	local root=$RUN/root d f
	rm -rf "$root"
	mkdir -p "$root"/{bin,etc,kselftest,gv/tests,gv/tools,gv/bench,gv/guest,gv/sbin,proc,sys,dev,tmp,root,run}
	cp "$(command -v busybox)" "$root/bin/busybox"
	install -m 755 "$KDIR/guest/init" "$root/init"
	printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' \
		> "$root/etc/passwd"
	printf 'root:x:0:\nnogroup:x:65534:\n' > "$root/etc/group"
	{
		echo "KCHECK_BACKEND='$(guest_backend)'"
		echo "KCHECK_TEST_TIMEOUT='$TEST_TIMEOUT'"
		echo "GV_TEST_TIME_SCALE='$([ -n "$KASAN" ] && echo 10 || echo 1)'"
		echo "KCHECK_KASAN='$KASAN'"
		echo "KCHECK_TESTS='${KCHECK_TESTS:-}'"
		echo "KCHECK_BENCH='$([ "$MODE" = bench ] && echo 1)'"
	} > "$root/kcheck.env"
	if [ -d "$IMAGE/kselftest" ]; then
		cp -r "$IMAGE/kselftest/." "$root/kselftest/"
	fi
	if [ -n "$GV_STATIC" ]; then
		for d in tests tools bench; do
			[ -d "$GV_STATIC/$d" ] || continue
			for f in "$GV_STATIC/$d"/*; do
				[ -f "$f" ] && [ -x "$f" ] && cp "$f" "$root/gv/$d/"
			done
		done
	fi
	# the fuzz target's inputs, which tests/getvalues_fuzz replays
	if [ -d "$GV_SRC/tests/fuzz" ]; then
		mkdir -p "$root/gv/fuzz"
		cp -r "$GV_SRC/tests/fuzz/corpus" "$GV_SRC/tests/fuzz/regressions" \
			"$root/gv/fuzz/" 2>/dev/null || true
	fi
	build_guest_programs "$root/gv/guest" "$root/gv/sbin"
	(cd "$root" && find . | cpio -o -H newc -R 0:0 --quiet) > "$RUN/initramfs.cpio"
}

make_disk() {
	rm -f "$RUN/disk.img"
	truncate -s 512M "$RUN/disk.img"
	mkfs.ext4 -q -F -L kcheck "$RUN/disk.img"
}

# --- booting ------------------------------------------------------------------
qemu_cmd() {
	local append="console=ttyS0 panic=-1 oops=panic loglevel=5 rdinit=/init"
	# audit from the first process on; IMA measures what root reads
	append="$append audit=1 ima_policy=tcb"
	[ "$MODE" = shell ] && append="$append kcheck.shell=1"
	QEMU=(qemu-system-x86_64 -accel tcg -smp 2
	      -m "$([ -n "$KASAN" ] && echo 2048 || echo 1024)"
	      -nographic -no-reboot
	      -kernel "$IMAGE/bzImage" -initrd "$RUN/initramfs.cpio"
	      -append "$append"
	      -drive "file=$RUN/disk.img,format=raw,if=virtio")
}

boot_shell() {
	qemu_cmd
	say "booting to a shell; 'reboot -f' in the guest (or Ctrl-A X) leaves"
	exec "${QEMU[@]}" -serial mon:stdio -serial "file:$RUN/results.log"
}

# Boots the guest with the console on ttyS0 (a log file) and the results on
# ttyS1 (another file), shows the results as they come, and waits.
boot_tests() {
	local start qpid rc=0
	qemu_cmd
	: > "$RUN/console.log"
	: > "$RUN/results.log"
	start=$(now)
	say "booting (TCG, time limit ${TIMEOUT}s); console in $RUN/console.log"
	timeout -k 10 "$TIMEOUT" "${QEMU[@]}" -monitor none \
		-serial "file:$RUN/console.log" -serial "file:$RUN/results.log" \
		> "$RUN/qemu.log" 2>&1 &
	qpid=$!
	tail -n +1 --pid="$qpid" -f "$RUN/results.log" 2>/dev/null |
		grep --line-buffered -E '^@@@ (BEGIN|END)' |
		sed -u 's/^@@@ /kcheck: guest: /' >&2 || true
	wait "$qpid" || rc=$?
	GUEST_SECONDS=$(( $(now) - start ))
	QEMU_RC=$rc
}

# --- the verdict ---------------------------------------------------------------
# Prints the results as TAP: one test per program, its own TAP indented
# above it, then "N passed, N failed". Returns non-zero on any failure.
report() {
	local results=$RUN/results.clean
	tr -d '\r' < "$RUN/results.log" > "$results"
	awk -v qemu_rc="$QEMU_RC" -v timeout="$TIMEOUT" -v counts="$RUN/counts" '
	function finish(rc,   ok) {
		ok = (rc == 0 && notok == 0 && plan >= 0 &&
		      (plan == 0 || oks == plan))
		n++
		why = ""
		if (rc == "unfinished") why = " did not finish"
		else if (rc != 0) why = why " exit " rc
		if (notok) why = why " " notok " not ok"
		if (rc == "unfinished") ;
		else if (plan < 0) why = why " no plan"
		else if (plan > 0 && oks + notok != plan)
			why = why " ran " oks + notok " of " plan
		if (ok) { passed++; printf "ok %d - %s (%d checks)\n", n, name, oks }
		else { failed++; printf "not ok %d - %s:%s\n", n, name, why }
		inside = 0
	}
	/^@@@ KERNEL / { sub(/^@@@ /, "# "); print; next }
	/^@@@ BEGIN / {
		if (inside) finish("unfinished")
		name = substr($0, 11); inside = 1; oks = 0; notok = 0; plan = -1
		printf "# %s\n", name
		next
	}
	/^@@@ END / {
		if (!inside) next
		rc = $NF; sub(/^rc=/, "", rc)
		finish(rc)
		next
	}
	/^@@@ DONE/ { done = 1; next }
	{
		if (!inside) next
		print "    " $0
		if ($0 ~ /^ok([ \t]|$)/) oks++
		else if ($0 ~ /^not ok([ \t]|$)/) {
			if ($0 ~ /# *TODO/) oks++; else notok++
		} else if ($0 ~ /^1\.\.[0-9]+/) {
			plan = substr($0, 4) + 0
		}
	}
	END {
		if (inside) finish("unfinished")
		if (!done) {
			n++; failed++
			if (qemu_rc == 124 || qemu_rc == 137)
				printf "not ok %d - guest finished within %ds: timed out\n", n, timeout
			else
				printf "not ok %d - guest ran to the end: stopped early (qemu exit %d)\n", n, qemu_rc
		}
		printf "1..%d\n", n
		printf "%d %d\n", passed, failed > counts
	}' "$results"
}

# The benchmarks' markdown, as the guest wrote it between its "@@@" lines.
bench_report() {
	local problems
	tr -d '\r' < "$RUN/results.log" > "$RUN/results.clean"
	problems=$(console_problems)
	[ -z "$problems" ] || die "the guest console shows kernel problems:
$problems"
	grep -q '^@@@ DONE' "$RUN/results.clean" ||
		die "the guest did not finish its benchmarks, see $RUN"
	awk '/^@@@ END / { inside = 0; if ($NF != "rc=0") bad = 1; print ""; next }
	     /^@@@ CMD bench\/lsof/ {
		print "### gvlsof on plain system calls and on the native calls"
		print ""
	     }
	     /^@@@ CMD / {
		sub(/^@@@ CMD /, "")
		print "Run in the guest: `build/" $0 "`."
		print ""
		next
	     }
	     /^@@@ BEGIN / { inside = 1; next }
	     /^@@@ / { next }
	     inside { print }
	     END { exit bad }' "$RUN/results.clean" ||
		die "a benchmark failed in the guest, see $RUN/results.clean"
	say "guest ran ${GUEST_SECONDS}s; logs in $RUN"
}

# Every kernel problem on the console. Between the markers guest/failnth
# writes, the reports of the allocation failures it injects (a "page
# allocation failure" or "failslab" line, then its trace up to </TASK>)
# are expected; any other trace there still counts.
console_problems() {
	tr -d '\r' < "$RUN/console.log" | awk '
	/kcheck: fault injection begins/ { faults = 1 }
	/kcheck: fault injection ends/ { faults = 0 }
	faults && /page allocation failure|FAULT_INJECTION: forcing/ {
		expected = 1; injected++; next
	}
	/<\/TASK>/ { if (expected) { expected = 0; next } }
	/Kernel command line/ { next }
	/BUG:|WARNING:|Oops|KASAN|[Pp]anic|Call Trace:|general protection|INFO: task .* blocked|rcu: INFO|detected stall/ {
		if (expected && /Call Trace:/) next
		printf "%d:%s\n", NR, $0
	}'
}

# Builds the kernel with the first N-1, ..., 2, 1 patches of the series
# (the whole series is what every normal run builds), incrementally in the
# normal build directory: each step rebuilds what its prefix changes, and
# a normal run afterwards finds its image in images/ or rebuilds what the
# rest of the series changes.
build_each_prefix() {
	local n i start
	n=$(series_patches | wc -l)
	BUILD=$CACHE/build-$FLAVOUR
	LOG=$RUN/each.log
	for ((i = n - 1; i >= 1; i--)); do
		start=$(now)
		apply_series "$i"
		configure
		make -C "$TREE" O="$BUILD" ARCH=x86_64 -j"$JOBS" bzImage \
			>> "$LOG" 2>&1 || die "the first $i patches do not build, see $LOG"
		say "the first $i patches build ($(( $(now) - start ))s)"
	done
}

main() {
	local problems passed failed

	mkdir -p "$CACHE/runs" "$CACHE/images"
	install_deps
	RUN=$(mktemp -d "$CACHE/runs/$(date +%Y%m%d-%H%M%S)-XXXX")
	# Keep the last twenty runs.
	ls -1dt "$CACHE"/runs/*/ 2>/dev/null | tail -n +21 | xargs -r rm -rf

	# The source tree and the build directories are shared by every
	# checkout on this machine: one build at a time.
	exec 9> "$CACHE/lock"
	if ! flock -n 9; then
		say "waiting for another kcheck build to finish"
		flock 9
	fi
	pristine_tree
	if [ "$MODE" = each ]; then
		build_each_prefix
		return 0
	fi
	apply_series
	KEY=$( { echo "recipe $RECIPE flavour $FLAVOUR tree $SERIES_TREE"
		 gcc --version | head -1; fragments; } | sha256sum | cut -c1-16)
	build_kernel
	flock -u 9

	build_library_tests
	make_initramfs
	make_disk
	say "run directory $RUN"
	case "$MODE" in
	build) say "built $IMAGE/bzImage"; return 0 ;;
	shell) boot_shell ;;
	esac

	boot_tests
	if [ "$MODE" = bench ]; then
		bench_report
		return
	fi
	report
	read -r passed failed < "$RUN/counts"
	problems=$(console_problems)
	if [ -n "$problems" ]; then
		echo "kcheck: the guest console shows kernel problems:" >&2
		echo "$problems" | head -40 >&2
		failed=$((failed + 1))
	fi
	say "guest ran ${GUEST_SECONDS}s; logs in $RUN"
	echo "$passed passed, $failed failed"
	if [ "$failed" -ne 0 ]; then
		[ -n "$problems" ] || tail -n 30 "$RUN/console.log" >&2
		return 1
	fi
}

# On one line, so that bash has read it before it runs: editing this file
# while it runs cannot make it run anything else afterwards.
main; exit
