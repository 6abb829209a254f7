#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kcross.sh - build-tests the readfile/getvalues series on other
# architectures with Debian's cross compilers: arm64 (with its 32-bit compat
# table), i386 and riscv64 (with its 32-bit compat table).
#
#   kernel/kcross.sh [ARCH...]    ARCH: arm64 i386 riscv64 (default: all)
#   kernel/kcross.sh --boot-arm64 arm64 only, then boot it in QEMU (TCG) with
#                                 kernel/cross/tbi_test as init: the calls
#                                 with tagged pointers (TBI)
#
# For each architecture: allnoconfig plus kernel/config/cross-common.config
# and cross-ARCH.config (every line must survive Kconfig), vmlinux, then
# the checks: the installed <asm/unistd.h> defines __NR_readfile and
# __NR_getvalues with the series' numbers, and in the built vmlinux each
# system call table (the compat one too) has the series' entry points at
# those numbers, read out of the image (kcross-table.py). Last, the
# kselftests of the series, kernel/probe and kernel/guest are
# cross-compiled statically against the installed headers. TAP on
# stdout, one test per check; exits non-zero on any failure.
#
# Environment: KCHECK_CACHE (default /var/cache/getvalues-kernel, shared
# with kcheck.sh, whose unpacked source tree-VERSION/ it uses), KCHECK_JOBS
# (2).
#
# In the cache, besides kcheck.sh's files:
#   cross-src/         a git worktree of tree-VERSION with the series
#                      applied: kcheck.sh's own checkout is left alone, so
#                      both can run at once
#   build-cross-ARCH/  the O= build directory of each architecture, reused:
#                      a changed series rebuilds incrementally, an unchanged
#                      series and config is not rebuilt (kcross.key)
#   cross-gcc/         Debian's gcc-12-TRIPLET packages, unpacked rather
#                      than installed: they conflict with gcc-multilib
set -euo pipefail

KDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(dirname "$KDIR")
CACHE=${KCHECK_CACHE:-/var/cache/getvalues-kernel}
JOBS=${KCHECK_JOBS:-2}
SRC_PKG=linux-source-6.12
SRC_TARBALL=/usr/src/$SRC_PKG.tar.xz
RECIPE=1
# The numbers of kernel/patches/0012, common numbering.
NR_READFILE=490
NR_GETVALUES=491
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES

BOOT=
case "${1:-}" in
-h|--help) sed -n '3,34p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
--boot-arm64) BOOT=1; shift; set -- arm64 ;;
esac
ARCHES=("$@")
[ ${#ARCHES[@]} -gt 0 ] || ARCHES=(arm64 i386 riscv64)

say() { echo "kcross: $*" >&2; }
die() { echo "kcross: error: $*" >&2; exit 1; }
now() { date +%s; }

N=0
FAILED=0
ok() { N=$((N + 1)); echo "ok $N - $*"; }
notok() { N=$((N + 1)); FAILED=$((FAILED + 1)); echo "not ok $N - $*"; }

# Per architecture: kernel ARCH, GNU triplet, Debian architecture, the
# prefix of the system call entry points, the tables, the size of an entry.
arch_vars() {
	case "$1" in
	arm64)	KARCH=arm64 TRIPLET=aarch64-linux-gnu DARCH=arm64 MACHINE=AArch64
		WRAP=__arm64_sys_ TABLES="sys_call_table compat_sys_call_table" ;;
	i386)	KARCH=i386 TRIPLET=i686-linux-gnu DARCH=i386 MACHINE='Intel 80386'
		WRAP=__ia32_sys_ TABLES="sys_call_table" ;;
	riscv64) KARCH=riscv TRIPLET=riscv64-linux-gnu DARCH=riscv64 MACHINE=RISC-V
		WRAP=__riscv_sys_ TABLES="sys_call_table compat_sys_call_table" ;;
	*)	die "unknown architecture '$1' (arm64, i386, riscv64)" ;;
	esac
	CROSS=$XGCC/bin/$TRIPLET-
}

# --- dependencies -----------------------------------------------------------
# Debian's cross compiler packages (gcc-12-TRIPLET) conflict with
# gcc-multilib, which make kcheck needs (-m32 builds): installing one
# removes the other. So only what does not conflict is installed (the
# binutils, cpp with cc1, libgcc and libc of each architecture), and the
# gcc-12-TRIPLET package of the same version is unpacked into
# cache/cross-gcc/, its driver finding cc1, as and the libc through
# symbolic links; the system's packages are left as make kcheck wants them.
XGCC=$CACHE/cross-gcc

cross_packages() {
	echo "binutils-$TRIPLET cpp-12-$TRIPLET libc6-dev-$DARCH-cross" \
	     "libgcc-12-dev-$DARCH-cross"
}

unpack_gcc() {
	local ver deb f lib=usr/lib/gcc-cross/$TRIPLET/12
	[ -x "${CROSS}gcc" ] && return 0
	ver=$(dpkg-query -W -f='${Version}' "cpp-12-$TRIPLET")
	mkdir -p "$XGCC/debs" "$XGCC/bin"
	say "unpacking gcc-12-$TRIPLET $ver into $XGCC"
	(cd "$XGCC/debs" && apt-get download -q "gcc-12-$TRIPLET=$ver") >&2 ||
		die "apt-get download gcc-12-$TRIPLET=$ver failed"
	deb=$(find "$XGCC/debs" -name "gcc-12-${TRIPLET}_*.deb" | head -1)
	dpkg -x "$deb" "$XGCC/root"
	for f in "/$lib"/*; do
		[ -e "$XGCC/root/$lib/${f##*/}" ] || ln -s "$f" "$XGCC/root/$lib/"
	done
	[ -e "$XGCC/root/usr/$TRIPLET" ] || ln -s "/usr/$TRIPLET" "$XGCC/root/usr/"
	for f in /usr/bin/"$TRIPLET"-*; do
		[ -e "$XGCC/bin/${f##*/}" ] || ln -s "$f" "$XGCC/bin/"
	done
	ln -sf "../root/usr/bin/$TRIPLET-gcc-12" "${CROSS}gcc"
	echo 'int main(void) { return 0; }' |
		"${CROSS}gcc" -static -x c - -o "$XGCC/test-$TRIPLET" ||
		die "the unpacked ${CROSS}gcc does not work"
}

# kcheck's set, plus the above (as root, installs what is missing).
install_deps() {
	local a p missing=
	sh "$REPO/scripts/deps.sh" kernel
	for a in "${ARCHES[@]}"; do
		arch_vars "$a"
		for p in $(cross_packages); do
			dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
				grep -q 'ok installed' || missing="$missing $p"
		done
	done
	if [ -n "$missing" ]; then
		[ "$(id -u)" = 0 ] ||
			die "missing:$missing; as root: apt-get install$missing"
		say "installing:$missing"
		# shellcheck disable=SC2086
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			--no-install-recommends $missing >&2 ||
			die "apt-get install$missing failed"
	fi
	for a in "${ARCHES[@]}"; do
		arch_vars "$a"
		unpack_gcc
	done
}

# --- the source ---------------------------------------------------------------
# The unpacked source, as kcheck.sh makes it (under kcheck's lock, once
# per package version, if make kcheck has not made it yet).
find_tree() {
	local ver tmp
	ver=$(dpkg-query -W -f='${Version}' "$SRC_PKG" 2>/dev/null ||
	      stat -c %Y "$SRC_TARBALL")
	TREE=$CACHE/tree-$ver
	[ -d "$TREE/.git" ] && return 0
	exec 8> "$CACHE/lock"
	flock 8
	if [ ! -d "$TREE/.git" ]; then
		say "unpacking $SRC_TARBALL (once per package version)"
		tmp=$TREE.tmp.$$
		rm -rf "$tmp"
		mkdir -p "$tmp"
		tar -xJf "$SRC_TARBALL" -C "$tmp" --strip-components=1
		git -C "$tmp" init -q
		git -C "$tmp" add -f -A .
		git -C "$tmp" -c user.name=kcheck -c user.email=kcheck@localhost \
			commit -q -m "$SRC_PKG $ver as unpacked"
		git -C "$tmp" tag pristine
		mv "$tmp" "$TREE"
	fi
	exec 8>&-
}

series_patches() {
	local p
	for p in "$KDIR"/patches/*.patch; do
		case "${p##*/}" in 0000-*) ;; *) echo "$p" ;; esac
	done
}

# Applies the series on top of pristine in cross-src, rewriting only the
# files that differ (so the builds stay incremental); sets SERIES_TREE.
apply_series() {
	local src=$CACHE/cross-src index=$CACHE/cross-series.index p commit
	if [ ! -e "$src/.git" ]; then
		rm -rf "$src"
		git -C "$TREE" worktree prune
		git -C "$TREE" worktree add -q --detach "$src" pristine
	fi
	rm -f "$index"
	GIT_INDEX_FILE=$index git -C "$TREE" read-tree pristine
	while read -r p; do
		GIT_INDEX_FILE=$index git -C "$TREE" apply --cached \
			--whitespace=nowarn "$p" ||
			die "${p##*/} does not apply to $SRC_PKG"
	done < <(series_patches)
	SERIES_TREE=$(GIT_INDEX_FILE=$index git -C "$TREE" write-tree)
	rm -f "$index"
	commit=$(git -C "$TREE" -c user.name=kcheck -c user.email=kcheck@localhost \
		commit-tree "$SERIES_TREE" -p pristine -m "kcross: kernel/patches")
	git -C "$src" reset -q --hard "$commit"
	git -C "$src" clean -q -f -d -x
	SRC=$src
	say "series applied in $SRC: source tree ${SERIES_TREE:0:12}"
}

fragments() {
	cat "$KDIR/config/cross-common.config" "$KDIR/config/cross-$1.config"
}

kmake() {
	make -C "$SRC" O="$BUILD" ARCH="$KARCH" CROSS_COMPILE="$CROSS" "$@"
}

# allnoconfig plus the fragments; every line of them must survive.
configure() {
	local frag=$BUILD/kcross.fragment line name missing=
	fragments "$1" | grep -E '^CONFIG_' > "$frag"
	kmake -s KCONFIG_ALLCONFIG="$frag" allnoconfig >> "$LOG" 2>&1 ||
		return 1
	while IFS= read -r line; do
		name=${line%%=*}
		grep -qxF "$line" "$BUILD/.config" ||
			missing="$missing $name($(grep -E "^$name=|^# $name is not set" \
				"$BUILD/.config" || echo absent))"
	done < "$frag"
	[ -z "$missing" ] || { echo "lost to dependencies:$missing" >> "$LOG"
			       say "$1: config options lost to dependencies:$missing"
			       return 1; }
}

# --- building -------------------------------------------------------------------
# vmlinux (which builds the system call tables) and the uapi headers; an
# unchanged (series, config, compiler) is not built again.
build_arch() {
	local a=$1 key start how=incremental
	BUILD=$CACHE/build-cross-$a
	mkdir -p "$BUILD"
	LOG=$BUILD/kcross.log
	: > "$LOG"
	key=$( { echo "recipe $RECIPE arch $a tree $SERIES_TREE"
		 "${CROSS}gcc" --version | head -1; fragments "$a"; } |
		sha256sum | cut -c1-16)
	if [ -f "$BUILD/vmlinux" ] && [ "$(cat "$BUILD/kcross.key" 2>/dev/null)" = "$key" ]; then
		ok "$a: vmlinux of this series and config is built (cached)"
		return 0
	fi
	[ -f "$BUILD/vmlinux" ] || how=cold
	rm -f "$BUILD/kcross.key"
	start=$(now)
	say "$a: building vmlinux ($how, -j$JOBS), log in $LOG"
	if ! configure "$a"; then
		notok "$a: allnoconfig + cross-common.config + cross-$a.config"
		return 1
	fi
	# CPU seconds say more than wall time on a shared machine.
	if ! { TIMEFORMAT='%R %U %S'
	       time kmake -j"$JOBS" vmlinux >> "$LOG" 2>&1; } 2> "$BUILD/kcross.time"
	then
		grep -E 'error|Error' "$LOG" | head -40 >&2
		notok "$a: vmlinux builds, see $LOG"
		return 1
	fi
	kmake -s headers_install INSTALL_HDR_PATH="$BUILD/usr" >> "$LOG" 2>&1 || {
		notok "$a: headers_install, see $LOG"
		return 1
	}
	grep -E '^[^ ]+:[0-9]+:[0-9]+: warning:' "$LOG" >&2 || true
	echo "$key" > "$BUILD/kcross.key"
	SECONDS_BUILT[$a]="$(( $(now) - start ))s, make $(awk \
		'{ printf "%.0fs wall, %.0f CPU-s", $1, $2 + $3 }' "$BUILD/kcross.time")"
	ok "$a: vmlinux builds ($how: ${SECONDS_BUILT[$a]})"
}

# --- the checks ---------------------------------------------------------------------
# The uapi header as a program sees it: __NR_readfile and __NR_getvalues.
check_headers() {
	local a=$1 got
	got=$(echo '#include <asm/unistd.h>' |
	      "${CROSS}gcc" -I"$BUILD/usr/include" -E -dM -x c - 2>>"$LOG" |
	      awk '$2 == "__NR_readfile" || $2 == "__NR_getvalues" { print $2 "=" $3 }' |
	      sort | tr '\n' ' ')
	if [ "$got" = "__NR_getvalues=$NR_GETVALUES __NR_readfile=$NR_READFILE " ]; then
		ok "$a: <asm/unistd.h> has __NR_readfile $NR_READFILE, __NR_getvalues $NR_GETVALUES"
	else
		notok "$a: <asm/unistd.h> has __NR_readfile $NR_READFILE, __NR_getvalues $NR_GETVALUES (got: ${got:-neither})"
	fi
}

# What vmlinux's tables hold at the series' numbers, read out of the image.
check_tables() {
	local a=$1 t out
	for t in $TABLES; do
		if out=$(/usr/bin/python3 "$KDIR/kcross-table.py" "$BUILD/vmlinux" \
			"$t" "$NR_READFILE=${WRAP}readfile" \
			"$NR_GETVALUES=${WRAP}getvalues" 2>&1); then
			ok "$a: $t: $out"
		else
			notok "$a: $t: $out"
		fi
	done
}

# The series' kselftests, kernel/probe and kernel/guest, static, against
# the headers just installed.
cross_programs() {
	local a=$1 out=$BUILD/programs t src name bad='' n=0 f
	rm -rf "$out"
	mkdir -p "$out"
	for t in "$SRC"/tools/testing/selftests/readfile \
		 "$SRC"/tools/testing/selftests/getvalues; do
		[ -d "$t" ] || continue
		mkdir -p "$out/${t##*/}"
		# CC too: a Makefile test of $(CC) before lib.mk sets it
		LDFLAGS=-static make -s -C "$t" ARCH="$KARCH" CROSS_COMPILE="$CROSS" \
			CC="${CROSS}gcc" \
			OUTPUT="$out/${t##*/}" \
			KHDR_INCLUDES="-isystem $BUILD/usr/include" >> "$LOG" 2>&1 ||
			bad="$bad kselftest/${t##*/}"
	done
	for src in "$KDIR"/probe/*.c "$KDIR"/guest/*.c \
		   $([ "$a" = arm64 ] && echo "$KDIR"/cross/tbi_test.c); do
		name=${src##*/}
		# linked with the library's static build for x86_64 only
		grep -q 'kcheck-guest: libgetvalues' "$src" && continue
		# kcheck's flags: a warning is shown, not fatal
		"${CROSS}gcc" -O2 -Wall -Wextra -static \
			-isystem "$BUILD/usr/include" \
			-o "$out/${name%.c}" "$src" > "$out/$name.log" 2>&1 ||
			bad="$bad $name"
		cat "$out/$name.log" >> "$LOG"
		grep -E ': (warning|error):' "$out/$name.log" |
			sed "s|^$REPO/|# $a: |" || true
	done
	# Each must be an executable of the architecture.
	while IFS= read -r f; do
		n=$((n + 1))
		"${CROSS}readelf" -h "$f" 2>/dev/null |
			grep -q "Machine: *$MACHINE" ||
			bad="$bad ${f##*/}(not for $MACHINE)"
	done < <(find "$out" -type f -perm -u+x)
	if [ -z "$bad" ]; then
		ok "$a: $n programs cross-compiled (kselftests, probe, guest, cross)"
	else
		notok "$a: cross-compiling:$bad, see $LOG"
	fi
}

# --- booting arm64 -------------------------------------------------------------------
# QEMU's virt machine, TCG, the image just built; init is tbi_test.
boot_arm64() {
	local run rc=0 start
	arch_vars arm64
	BUILD=$CACHE/build-cross-arm64
	LOG=$BUILD/kcross.log
	run=$BUILD/boot
	command -v qemu-system-aarch64 >/dev/null 2>&1 || {
		[ "$(id -u)" = 0 ] ||
			die "qemu-system-aarch64 is missing; as root: apt-get install qemu-system-arm"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			--no-install-recommends qemu-system-arm >&2 ||
			die "apt-get install qemu-system-arm failed"
	}
	if ! kmake -j"$JOBS" Image >> "$LOG" 2>&1; then
		notok "arm64: Image builds, see $LOG"
		return 1
	fi
	rm -rf "$run"
	mkdir -p "$run/root/proc"
	"${CROSS}gcc" -O2 -Wall -Wextra -Werror -static -isystem "$BUILD/usr/include" \
		-o "$run/root/init" "$KDIR/cross/tbi_test.c" >> "$LOG" 2>&1 || {
		notok "arm64: cross/tbi_test.c builds, see $LOG"
		return 1
	}
	(cd "$run/root" && find . | cpio -o -H newc -R 0:0 --quiet) > "$run/initramfs.cpio"
	start=$(now)
	say "arm64: booting (TCG), console in $run/console.log"
	timeout -k 10 600 qemu-system-aarch64 -M virt,mte=on -cpu max -smp 1 \
		-m 512 -nographic -no-reboot -monitor none \
		-kernel "$BUILD/arch/arm64/boot/Image" \
		-initrd "$run/initramfs.cpio" \
		-append "console=ttyAMA0 panic=-1 loglevel=4 rdinit=/init" \
		> "$run/console.log" 2>&1 || rc=$?
	tr -d '\r' < "$run/console.log" | grep -E '^(not )?ok |^# ' | sed 's/^/    /'
	if [ "$rc" = 0 ] && grep -q '^# PASSED' "$run/console.log" &&
	   ! grep -q '^not ok' "$run/console.log"; then
		ok "arm64: tagged pointers in QEMU ($(( $(now) - start ))s)"
	else
		tail -n 20 "$run/console.log" >&2
		notok "arm64: tagged pointers in QEMU (qemu exit $rc), see $run/console.log"
	fi
}

main() {
	local a start
	declare -gA SECONDS_BUILT=()

	start=$(now)
	mkdir -p "$CACHE"
	for a in "${ARCHES[@]}"; do arch_vars "$a"; done
	install_deps
	find_tree
	# cross-src and the build-cross-* directories: one kcross at a time
	exec 9> "$CACHE/cross.lock"
	if ! flock -n 9; then
		say "waiting for another kcross to finish"
		flock 9
	fi
	apply_series
	for a in "${ARCHES[@]}"; do
		arch_vars "$a"
		build_arch "$a" || continue
		check_headers "$a"
		check_tables "$a"
		cross_programs "$a"
	done
	[ -z "$BOOT" ] || boot_arm64
	echo "1..$N"
	for a in "${!SECONDS_BUILT[@]}"; do
		say "$a: vmlinux built in ${SECONDS_BUILT[$a]}"
	done
	say "$((N - FAILED)) passed, $FAILED failed in $(( $(now) - start ))s"
	[ "$FAILED" -eq 0 ]
}

# On one line, so that bash has read it before it runs: editing this file
# while it runs cannot make it run anything else afterwards.
main; exit
