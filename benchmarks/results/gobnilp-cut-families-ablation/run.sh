#!/bin/bash
# run.sh TABLE NAME MODE [SETTING ...]
# One run of the GOBNILP C program under the shared lock, on /work/bench-data/ilp-hard/jkl/TABLE.jkl.
# MODE full: limits/time = 120; MODE root: limits/time = 120 and limits/nodes = 1 (root node only).
# Writes NAME.TABLE.MODE.set (the settings file) and NAME.TABLE.MODE.log (stdout+stderr, with the
# start time and the load before and after as comment lines) beside this script; prints one summary line.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
TABLE=$1; NAME=$2; MODE=$3; shift 3
JKL=/work/bench-data/ilp-hard/jkl/$TABLE.jkl
GOB=/work/shared/tools/gobnilp-ebnsl/gobnilp
X=$HERE/$NAME.$TABLE.$MODE
{ echo "limits/time = 120"
  [ "$MODE" = root ] && echo "limits/nodes = 1"
  for s in "$@"; do echo "$s"; done; } > "$X.set"
flock /work/cpu.lock bash -c "
  { echo \"# start_utc \$(date -u +%FT%TZ) load_before \$(cut -d' ' -f1-3 /proc/loadavg)\"
    echo \"# cmd: $GOB -g=$X.set -f=jkl $JKL\"
    /usr/bin/time -f '# wall_s %e cpu_s %U+%S' $GOB -g=$X.set -f=jkl $JKL 2>&1
    echo \"# end_utc \$(date -u +%FT%TZ) load_after \$(cut -d' ' -f1-3 /proc/loadavg)\"; } > $X.log 2>&1"
st=$(grep -a '^SCIP Status' "$X.log" | sed 's/.*\[\(.*\)\]/\1/')
t=$(grep -a '^Solving Time' "$X.log" | awk -F': *' '{print $2}')
n=$(grep -a '^Solving Nodes' "$X.log" | awk -F': *' '{print $2}')
p=$(grep -a '^Primal Bound' "$X.log" | awk -F': *' '{print $2}' | awk '{print $1}')
d=$(grep -a '^Dual Bound' "$X.log" | awk -F': *' '{print $2}')
g=$(grep -a '^Gap  ' "$X.log" | awk -F': *' '{print $2}')
b35=$(awk -F'|' '/^ *[0-9.]+s\|/ { t = $1 + 0; if (t <= 35) b = $3 } END { printf "%.1f", b }' "$X.log")
w=$(grep -a "unknown parameter" "$X.log" | tr '\n' ' ')
echo "$TABLE $NAME $MODE | $st | ${t}s | nodes $n | primal $p | dual $d | gap $g | disp_bound_le35s $b35 | $(grep -a '^# start' "$X.log") $(grep -a '^# end' "$X.log") $w"
