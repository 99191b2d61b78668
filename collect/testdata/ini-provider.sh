#!/bin/sh
# A V1 out-of-process collect procedure in POSIX shell (see ../PROTOCOL.md)
# that learns its title indexes as a Windows performance DLL does: the
# engine hands it First Counter and First Help (PERFC_FIRST_COUNTER,
# PERFC_FIRST_HELP), and it adds the offsets of its symbol file to them:
#
#   #define TRANSFER_OBJECT      0   (single instance)
#   #define BYTES_SENT           2   (PERF_COUNTER_RAWCOUNT)
#   #define AVAILABLE_BANDWIDTH  4   (PERF_COUNTER_RAWCOUNT)
#
#   ini-provider.sh BYTES-SENT AVAILABLE-BANDWIDTH
#
# The arguments are the two counters' values. Global and index lists that
# name its object get it; Costly, Foreign and other lists get "OK 0 0"; a
# buffer smaller than the object gets MORE. Without the variables OPEN fails
# (a DLL without its Performance key values). The object is written in
# winperf.h's 32-bit layout: PERF_OBJECT_TYPE (64 bytes), two
# PERF_COUNTER_DEFINITIONs (40 bytes each), a PERF_COUNTER_BLOCK of 16 bytes
# (its length, the two values, padding to 8 bytes): 160 bytes.
set -f
sent=$1
bandwidth=$2
size=160

# u32 writes its argument as 4 little-endian bytes, each as a printf octal
# escape computed by shell arithmetic (no command substitution: no fork).
u32() {
	v=$1
	for bits in 0 8 16 24; do
		b=$(((v >> bits) & 255))
		printf "\\$(((b >> 6) & 7))$(((b >> 3) & 7))$((b & 7))"
	done
}

# counter NAME-OFFSET VALUE-OFFSET writes a PERF_COUNTER_DEFINITION.
counter() {
	u32 40                          # ByteLength
	u32 $((first_counter + $1))     # CounterNameTitleIndex
	u32 0                           # CounterNameTitle
	u32 $((first_help + $1))        # CounterHelpTitleIndex
	u32 0                           # CounterHelpTitle
	u32 0                           # DefaultScale
	u32 100                         # DetailLevel: novice
	u32 65536                       # CounterType: PERF_COUNTER_RAWCOUNT
	u32 4                           # CounterSize
	u32 "$2"                        # CounterOffset in the counter block
}

object() {
	u32 $size                       # TotalByteLength
	u32 144                         # DefinitionLength
	u32 64                          # HeaderLength
	u32 $((first_counter + 0))      # ObjectNameTitleIndex: TRANSFER_OBJECT
	u32 0                           # ObjectNameTitle
	u32 $((first_help + 0))         # ObjectHelpTitleIndex
	u32 0                           # ObjectHelpTitle
	u32 100                         # DetailLevel
	u32 2                           # NumCounters
	u32 0                           # DefaultCounter
	u32 4294967295                  # NumInstances: PERF_NO_INSTANCES
	u32 0                           # CodePage
	u32 0; u32 0                    # PerfTime
	u32 0; u32 0                    # PerfFreq
	counter 2 4                     # BYTES_SENT
	counter 4 8                     # AVAILABLE_BANDWIDTH
	u32 16                          # PERF_COUNTER_BLOCK.ByteLength
	u32 "$sent"
	u32 "$bandwidth"
	u32 0                           # padding
}

number() {
	case $1 in
	'' | *[!0-9]*) return 1 ;;
	esac
	return 0
}

wanted() {
	[ -z "$1" ] && return 0
	case $1 in
	[Gg][Ll][Oo][Bb][Aa][Ll]) return 0 ;;
	[Cc][Oo][Ss][Tt][Ll][Yy] | [Ff][Oo][Rr][Ee][Ii][Gg][Nn]*) return 1 ;;
	esac
	for w in $1; do
		[ "$w" = "$first_counter" ] && return 0
	done
	return 1
}

while IFS= read -r line; do
	verb=${line%% *}
	case $verb in
	HELLO) echo "HELLO 1" ;;
	OPEN)
		first_counter=${PERFC_FIRST_COUNTER:-}
		first_help=${PERFC_FIRST_HELP:-}
		if number "$first_counter" && number "$first_help"; then
			echo "OK"
		else
			first_counter=
			echo "ERR PERFC_FIRST_COUNTER or PERFC_FIRST_HELP is not set"
		fi
		;;
	CLOSE) echo "OK" ;;
	COLLECT)
		rest=${line#COLLECT }
		bufsize=${rest%% *}
		name=${rest#"$bufsize"}
		name=${name# }
		if [ -z "${first_counter:-}" ]; then
			echo "ERR not opened"
		elif ! wanted "$name"; then
			echo "OK 0 0"
		elif [ "$size" -gt "$bufsize" ]; then
			echo "MORE"
		else
			echo "OK $size 1"
			object
		fi
		;;
	*) echo "ERR unknown request $verb" ;;
	esac
done
