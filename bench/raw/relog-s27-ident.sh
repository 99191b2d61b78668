#!/bin/bash
# usage: ident.sh PERFC OUTDIR
P=$1; O=$2; rm -rf $O; mkdir -p $O
export TZ=UTC PERFC_WARNINGS=on
T=/work/main/perflog/blg/testdata
declare -A B E C
add() { IN[${#IN[@]}]=$1; B[$1]=$2; E[$1]=$3; C[$1]=$4; }
IN=()
add $T/CounterSamples.blg "11/26/2016 13:46:50" "11/26/2016 13:47:20" '\\charlieparker\processor(_total)\% processor time'
add $T/CounterSamples.csv "11/26/2016 13:46:50" "11/26/2016 13:47:20" '\\charlieparker\processor(_total)\% processor time'
add $T/CounterSamples.tsv "11/26/2016 13:46:50" "11/26/2016 13:47:20" '\\charlieparker\processor(_total)\% processor time'
add $T/BadCounterSamples.blg "7/3/2007 0:00:00" "7/4/2007 0:00:00" '\\s14185201\Processor(_Total)\% Processor Time'
add $T/SampleLog.blg "8/14/2007 15:43:00" "8/14/2007 15:48:00" '\\ZACH-PC\Processor(_Total)\% User Time'
add /tmp/long/CounterSamples-x24.blg "11/26/2016 13:50:00" "11/26/2016 14:05:00" '\\charlieparker\memory\cache faults/sec'
add /tmp/long/BadCounterSamples-x2.blg "7/4/2007 0:00:00" "7/6/2007 0:00:00" '\\s14185207\Processor(_Total)\% Processor Time'
add /tmp/long/SampleLog-x5.blg "8/14/2007 15:55:00" "8/14/2007 16:20:00" '\Processor(*)\% Processor Time'
add /tmp/relog-inputs/process-bin.plog "11/28/2026 23:48:55" "11/28/2026 23:49:05" '\Process(*)\% Processor Time'
add /tmp/relog-inputs/system-binz.plog "11/28/2026 23:48:30" "11/28/2026 23:48:50" '\Processor(*)\*'
n=0
for f in "${IN[@]}"; do
  n=$((n+1)); k=$n-$(basename $f)
  r() { local tag=$1; shift; "$P" relog "$f" "$@" > $O/$k.$tag.out 2> $O/$k.$tag.err; echo "rc=$?" >> $O/$k.$tag.err; }
  r csv -f csv
  r tsv -f tsv
  r t3 -f csv -t 3
  r be -f csv -b "${B[$f]}" -e "${E[$f]}"
  r c -f csv -c "${C[$f]}"
  r ct3 -f tsv -c "${C[$f]}" -t 2 -b "${B[$f]}"
  # BIN and SQL, read back to CSV
  "$P" relog "$f" -f bin -o $O/$k.plog -y > /dev/null 2> $O/$k.bin.err; echo "rc=$?" >> $O/$k.bin.err
  "$P" relog $O/$k.plog -f csv > $O/$k.bin2csv.out 2> $O/$k.bin2csv.err; echo "rc=$?" >> $O/$k.bin2csv.err
  "$P" relog "$f" -f bin -t 3 -o $O/$k.t3.plog -y > /dev/null 2> $O/$k.bint3.err; echo "rc=$?" >> $O/$k.bint3.err
  "$P" relog $O/$k.t3.plog -f csv > $O/$k.bint3csv.out 2> $O/$k.bint3csv.err; echo "rc=$?" >> $O/$k.bint3csv.err
  "$P" relog "$f" -f sql -o "SQL:$O/$k.db!run" -y > /dev/null 2> $O/$k.sql.err; echo "rc=$?" >> $O/$k.sql.err
  "$P" relog "SQL:$O/$k.db!run" -f csv > $O/$k.sql2csv.out 2> $O/$k.sql2csv.err; echo "rc=$?" >> $O/$k.sql2csv.err
  rm -f $O/$k.plog $O/$k.t3.plog $O/$k.db
done
