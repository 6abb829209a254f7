#!/bin/bash
# SPDX-License-Identifier: MIT
# bare_chroot.sh - make check, the demo and the tools in a chroot without
# /proc, where a root user who chroots into a fresh debootstrap runs them:
# a test program, the Python suite and the fuzz round skip and say
# "/proc is not mounted" (exit 0, no bail out, no hang); make demo goes on
# past the steps that need /proc, saying why; getvalues says why xattr:
# fails; gvlsof ends as lsof 4.95 does there, with an error and status 1.
# The chroot is a bind mount of / (which leaves out /proc, /sys and every
# other mount) in a mount namespace of its own, with /dev and this tree
# bound into it. Root only; a TAP program for prove.
set -u
cd "$(dirname "$0")/.." || exit 1
top=$PWD
B=$(cd "${GV_BUILD:-build}" && pwd)

skip_all() { echo "1..0 # SKIP $*"; exit 0; }

[ "$(id -u)" -eq 0 ] ||
	skip_all "needs root: it mounts a chroot in a mount namespace of its own"
[ -x "$B/tools/getvalues" ] || skip_all "$B/tools/getvalues is not built"
# already in such a chroot
[ -r /proc/self/stat ] ||
	skip_all "/proc is not mounted here (mount and umount need it to make and undo the chroot)"
if [ "${GV_BARE_INNER:-}" != 1 ]; then
	unshare -m --propagation private true 2>/dev/null ||
		skip_all "unshare -m failed: no mount namespace of its own here"
	GV_BARE_INNER=1 exec unshare -m --propagation private "$0" "$@"
fi

R=$(mktemp -d /var/tmp/gv-bare.XXXXXX) || skip_all "mktemp failed"
cleanup() {
	umount -R "$R" 2>/dev/null
	rmdir "$R" 2>/dev/null
}
trap cleanup EXIT
mount --bind / "$R" 2>/dev/null || skip_all "mount --bind / failed"
mount --rbind /dev "$R/dev" 2>/dev/null ||
	skip_all "mount --rbind /dev failed"
for d in "$top" "$B"; do
	if ! mkdir -p "$R$d" 2>/dev/null ||
	   ! mount --bind "$d" "$R$d" 2>/dev/null; then
		skip_all "mount --bind $d failed"
	fi
done
[ ! -e "$R/proc/self" ] || skip_all "the bind mount of / has a /proc"

echo "1..16"
n=0 failed=0
ok() {	# condition-status description [diagnostics]
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		failed=$((failed + 1))
		echo "not ok $n - $2"
		[ -z "${3:-}" ] || printf '%s\n' "$3" | head -n 20 | sed 's/^/#   /'
	fi
}
skip() {	# count reason
	local i
	for ((i = 0; i < $1; i++)); do
		n=$((n + 1))
		echo "ok $n # SKIP $2"
	done
}
# The exit status of a tool built with SANITIZE=1: LeakSanitizer's check
# at exit needs /proc (and reads its options there), so it fails there.
status_ok() {	# condition-status description [diagnostics]
	if [ "${SANITIZE:-}" = 1 ]; then
		skip 1 "a SANITIZE=1 tool exits 1 without /proc (LeakSanitizer)"
	else
		ok "$@"
	fi
}

# Runs "$@" in the chroot from the top of the tree, with 120 s to finish
# (a hang fails, it does not block the run): sets $out, $err and $rc.
inroot() {
	local o e
	o=$(mktemp) e=$(mktemp)
	# shellcheck disable=SC2016 # expanded by the shell in the chroot
	timeout 120 chroot "$R" /usr/bin/env GV_BUILD="$B" /bin/sh -c \
		'cd "$1" && shift && exec "$@"' sh "$top" "$@" >"$o" 2>"$e"
	rc=$?
	out=$(cat "$o") err=$(cat "$e")
	rm -f "$o" "$e"
}
has() { grep -qF -- "$2" <<<"$1"; }

for prog in readfile backend_suites; do
	inroot "$B/tests/$prog"
	has "$out" "1..0 # SKIP /proc is not mounted"
	ok $? "tests/$prog skips, saying /proc is not mounted" "$out$err"
	ok "$rc" "tests/$prog exits 0 (status $rc)"
done

inroot python/run-tests
has "$out" "1..0 # SKIP /proc is not mounted"
ok $? "python/run-tests skips, saying /proc is not mounted" "$out$err"
ok "$rc" "python/run-tests exits 0 (status $rc; 124: a hang)"

fz=$(mktemp -d "$B/bare-fuzz.XXXXXX")
inroot env -u GETVALUES_BACKEND scripts/fuzz-check.sh "$fz"
rm -rf "$fz"
has "$out" "FUZZ    skipped: /proc is not mounted"
ok $? "the fuzz round skips, saying /proc is not mounted" "$out$err"
ok "$rc" "the fuzz round exits 0 (status $rc)"

inroot scripts/demo.sh
ok "$rc" "make demo's script exits 0 (status $rc)" "$err"
[ "$(grep -c 'skipped: /proc is not mounted here' <<<"$out")" -ge 5 ]
ok $? "make demo: each step that needs /proc says it is not mounted" "$out"

inroot "$B/tools/getvalues" / xattr stat:uid
if [ "$rc" -eq 0 ]; then
	skip 2 "xattr was read without /proc (this kernel's listxattrat(2) takes an O_PATH descriptor)"
else
	has "$err" "getvalues: xattr: /proc is not mounted"
	ok $? "getvalues / xattr: '/proc is not mounted', not 'Operation not supported'" "$err"
	[ "$rc" -eq 64 ] && [ "$out" = "stat:uid=0" ]
	status_ok $? "getvalues / xattr stat:uid: the other name's value, status 64 (got $rc)" "$out"
fi

inroot "$B/tools/gvlsof"
has "$err" "gvlsof: can't read /proc/self/mountinfo: No such file or directory (/proc is not mounted)"
ok $? "gvlsof: an error that says /proc is not mounted" "$err"
[ "$rc" -eq 1 ] && [ -z "$out" ]
status_ok $? "gvlsof: nothing listed, status 1 (got $rc)" "$out"

# lsof 4.95 there: "can't fopen(/proc/mounts, "r")", status 1; with -i
# alone it reads no mount table, lists nothing and exits 1 too
if command -v lsof >/dev/null; then
	inroot lsof -n -P
	want=$rc
	inroot "$B/tools/gvlsof" -n -P
	[ "$rc" -eq "$want" ]
	status_ok $? "gvlsof -n -P exits as lsof -n -P does there ($rc, lsof $want)"
	inroot lsof -i
	want=$rc wout=$out
	inroot "$B/tools/gvlsof" -i
	[ "$rc" -eq "$want" ] && [ "$out" = "$wout" ]
	status_ok $? "gvlsof -i: the output and status of lsof -i ($rc, lsof $want)" \
		"$out"
else
	skip 2 "lsof is not installed (Debian: lsof)"
fi
[ "$failed" -eq 0 ]
