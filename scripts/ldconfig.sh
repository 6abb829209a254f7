#!/bin/sh
# SPDX-License-Identifier: MIT
# After make install: makes the new libgetvalues.so.0 visible to the run-time
# linker (ldconfig), or says what the user has to do for that.
#
#   scripts/ldconfig.sh LIBDIR DESTDIR
#
# A staged install (DESTDIR set, as a package build does) is left alone: the
# package's own trigger runs ldconfig where it is installed. Into the live
# system, root runs ldconfig; anyone else is told how to find the library.
set -eu
libdir=$1
destdir=${2:-}
LDCONFIG=${LDCONFIG:-/sbin/ldconfig}

[ -z "$destdir" ] || exit 0
[ -x "$LDCONFIG" ] || exit 0	# not glibc: nothing to refresh

real=$(readlink -f "$libdir" 2>/dev/null || echo "$libdir")
searched=no
for d in $("$LDCONFIG" -N -v 2>/dev/null | sed -n 's|^\(/[^:]*\):.*|\1|p'); do
	[ "$(readlink -f "$d" 2>/dev/null || echo "$d")" = "$real" ] && searched=yes
done

if [ "$searched" = yes ] && [ "$(id -u)" -eq 0 ]; then
	echo "  LDCONFIG (the run-time linker now finds $libdir/libgetvalues.so.0)"
	"$LDCONFIG"
	exit 0
fi

echo "note: programs linked with -lgetvalues will not find libgetvalues.so.0 yet:"
if [ "$searched" = yes ]; then
	echo "  $libdir is a system library directory; run 'sudo ldconfig' once."
else
	echo "  $libdir is not searched by the run-time linker. Either link with"
	echo "  -Wl,-rpath,$libdir, or run with LD_LIBRARY_PATH=$libdir, or add"
	echo "  $libdir to a file in /etc/ld.so.conf.d/ and run 'sudo ldconfig'."
fi
