#!/bin/sh
# A V1 provider (../PROTOCOL.md) that starts a process which inherits its
# stdout and stderr and outlives it unless its process group is killed.
#
#   forking-provider.sh PIDFILE WHEN
#
# WHEN=open: OPEN starts `sleep 3600` in the background, writes its pid to
# PIDFILE and answers OK; everything else is answered normally (COLLECT
# with OK 0 0). WHEN=collect: the first COLLECT does the same and answers
# OK 0 0; the second one never answers (the shell waits for the sleep).
pidfile=$1
when=$2
collects=0

grandchild() {
	sleep 3600 &
	echo $! >"$pidfile"
}

while IFS= read -r line; do
	case $line in
	HELLO*) echo "HELLO 1" ;;
	OPEN)
		[ "$when" = open ] && grandchild
		echo "OK"
		;;
	CLOSE) echo "OK" ;;
	COLLECT*)
		collects=$((collects + 1))
		if [ "$when" = collect ]; then
			[ $collects -eq 1 ] && grandchild
			[ $collects -ge 2 ] && wait
		fi
		echo "OK 0 0"
		;;
	*) echo "ERR unknown request" ;;
	esac
done
