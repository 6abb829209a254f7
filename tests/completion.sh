#!/bin/bash
# SPDX-License-Identifier: MIT
# completion.sh - the bash completion of getvalues (completion/getvalues), as
# bash calls it: options, backends, columns, groups, each group's fields as
# the tool lists them, SUBPATHs beneath PATH, and the :REST shorthand. A TAP
# program for prove.
set -u
cd "$(dirname "$0")/.."
B=${GV_BUILD:-build}
n=0 failed=0
bc=/usr/share/bash-completion/bash_completion
if [ ! -r "$bc" ]; then
	echo "1..0 # SKIP bash-completion is not installed (Debian: bash-completion)"
	exit 0
fi
# shellcheck disable=SC1090
source "$bc"
# shellcheck source=../completion/getvalues
source completion/getvalues
PATH=$B/tools:$PATH

# COMPREPLY for a command line, split into words as bash splits it (':' is
# a word break), sorted, one per line
complete_line() {
	local line=$1
	COMP_LINE=$line
	COMP_POINT=${#line}
	read -ra COMP_WORDS <<<"${line//:/ : }"
	[[ $line == *" " || $line == *: ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_getvalues getvalues "${COMP_WORDS[-1]}" "${COMP_WORDS[-2]}" 2>/dev/null
	printf '%s\n' "${COMPREPLY[@]}" | sort
}

is() {	# got want description
	n=$((n + 1))
	if [ "$1" = "$2" ]; then
		echo "ok $n - $3"
	else
		failed=$((failed + 1))
		echo "not ok $n - $3"
		printf '#   got: %s\n' "$(echo "$1" | tr '\n' ' ')"
		printf '#  want: %s\n' "$(echo "$2" | tr '\n' ' ')"
	fi
}

list() { getvalues -0 "$1" "$2" | tr '\0' '\n' | grep -v '^$' | sort; }

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/sub"
: >"$dir/status" && : >"$dir/stamp" && : >"$dir/sub/inner"

is "$(complete_line "getvalues --back")" "--backend" "an option"
is "$(complete_line "getvalues --backend ")" "$(printf '%s\n' auto native sync uring)" \
	"--backend: the four mechanisms"
is "$(complete_line "getvalues -o id,ta")" "id,target" "-o: a column after a comma"
is "$(complete_line "getvalues $dir/su")" "$dir/sub" "the first operand is a path"
is "$(complete_line "getvalues $dir ")" "$(list / '' | sed 's/$/:/')" \
	"a name: the groups the tool lists, each with its colon"
is "$(complete_line "getvalues $dir stat:")" "$(list / stat)" \
	"stat: its fields, as the tool lists them"
is "$(complete_line "getvalues $dir fs:f")" "$(list / fs | grep '^f')" \
	"fs:f: the fs fields starting with f"
is "$(complete_line "getvalues $dir data:st")" "$(printf '%s\n' stamp status)" \
	"data: files beneath PATH"
is "$(complete_line "getvalues $dir data:sub/")" "sub/inner" \
	"data: a SUBPATH in a directory beneath PATH"
is "$(complete_line "getvalues $dir stat:size:su")" "sub" \
	"stat:FIELD: a SUBPATH beneath PATH"
is "$(complete_line "getvalues -E --fd 3 stat:ino")" "ino" \
	"-E: no PATH operand, names at once"
is "$(complete_line "getvalues $dir stat:size :mo")" "mode" \
	":REST: a field of the previous name's group"
is "$(complete_line "getvalues $dir stat:size :mode :ui")" "uid" \
	":REST after :REST: the group of the name before them"
is "$(complete_line "getvalues $dir data:stamp :st")" "$(printf '%s\n' stamp status)" \
	":REST after data: files beneath PATH"
is "$(complete_line "getvalues $dir :mo")" "" \
	":REST first: nothing, there is no previous name"
echo "1..$n"
[ "$failed" -eq 0 ]
