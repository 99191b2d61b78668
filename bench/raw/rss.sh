#!/usr/bin/env bash
# Maximum resident set (getrusage via /usr/bin/time) of a collecting
# typeperf (-si 1 -sc 5) and a collector set (logman service -run, 7 s:
# 7 samples into a compressed binary log) of every process's and thread's
# % Processor Time, at about 600 processes, for each binary given.
#   bench/raw/rss.sh ROUNDS BIN...
set -u
rounds=$1; shift
for i in $(seq 525); do sleep 3600 & done
echo "processes: $(ls /proc | grep -c '^[0-9]')"
st=$(mktemp -d)
export PERFC_STATE_DIR=$st/state
"$1" logman create counter rss -c '\Process(*)\% Processor Time' '\Thread(*)\% Processor Time' -si 1 -o "$st/rss" -f bin -y >/dev/null
for r in $(seq "$rounds"); do
  for b in "$@"; do
    rm -f "$st"/rss*.plog
    /usr/bin/time -f "$b set %M kB" timeout -s INT 7 "$b" logman service -run rss -dir "$st/state" 2>&1 | grep ' kB$'
    /usr/bin/time -f "$b typeperf %M kB" "$b" typeperf '\Process(*)\% Processor Time' '\Thread(*)\% Processor Time' -si 1 -sc 5 2>&1 >/dev/null | grep ' kB$'
  done
done
pkill -f 'sleep 3600'
rm -rf "$st"
