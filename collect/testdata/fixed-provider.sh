#!/bin/sh
# A V1 out-of-process collect procedure in POSIX shell (see ../PROTOCOL.md).
#
#   fixed-provider.sh OBJECTS-FILE INDEX...
#
# OBJECTS-FILE holds one PERF_OBJECT_TYPE (with its definitions, instances
# and counter blocks) exactly as it goes on the wire; INDEX... are the object
# title indexes it serves. Global and index lists that name one of them get
# the file; Costly, Foreign and other lists get "OK 0 0" (none of mine); a
# buffer smaller than the file gets MORE.
set -f
objects=$1
shift
indexes=$*
size=$(wc -c <"$objects" | tr -d ' ')

wanted() {
	[ -z "$1" ] && return 0
	case $1 in
	[Gg][Ll][Oo][Bb][Aa][Ll]) return 0 ;;
	[Cc][Oo][Ss][Tt][Ll][Yy] | [Ff][Oo][Rr][Ee][Ii][Gg][Nn]*) return 1 ;;
	esac
	for w in $1; do
		for i in $indexes; do
			[ "$w" = "$i" ] && return 0
		done
	done
	return 1
}

while IFS= read -r line; do
	verb=${line%% *}
	case $verb in
	HELLO) echo "HELLO 1" ;;
	OPEN | CLOSE) echo "OK" ;;
	COLLECT)
		rest=${line#COLLECT }
		bufsize=${rest%% *}
		name=${rest#"$bufsize"}
		name=${name# }
		if ! wanted "$name"; then
			echo "OK 0 0"
		elif [ "$size" -gt "$bufsize" ]; then
			echo "MORE"
		else
			echo "OK $size 1"
			cat "$objects"
		fi
		;;
	*) echo "ERR unknown request $verb" ;;
	esac
done
