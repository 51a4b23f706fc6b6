#!/bin/bash
# class-collection-and-wide-scoring.run.sh -- the locked runs of issues 13 and 14 (session bench3), one group per call.
#
#   flock /work/cpu.lock bash benchmarks/results/class-collection-and-wide-scoring.run.sh GROUP
#
# run from the worktree root.  GROUP is one of
#   wide    issue 14 job 1: BIC BF 3 scoring of wdbc, bands, spectf (no parent limit, 600 s, 8 GB each),
#           then enumerate_networks(table, bayes_factor=3) (method/by auto, time_limit 600 s) on each table
#   hail    issue 13 job 2: hailfinder100 BF 20 and 150 by="class" (300 s), GOBNILP eBNSL BF 3 (300 s per step)
#   wz150   issue 13 job 3: wine, zoo BF 150: GOBNILP (400 s per step), ours auto and by="class" ILP (120 s)
#   ai150   issue 13 job 4: alarm1000, insurance1000 BF 150: GOBNILP and ours auto (300 s each)
# Every run is skipped (and says so) when its cap would end after $STOP_UTC (default 20:30 UTC).
# Before and after every run: date, uptime and the five busiest processes, in $W/locked.log.
set -u
GROUP=$1
W=${W:-/tmp/bench3}
STOP_UTC=${STOP_UTC:-20:30}
PY=/work/venv/bin/python
export PYTHONPATH=.
mkdir -p "$W/jkl"
LOG=$W/locked.log

mark() {  # label
   { echo "=== $(date -u +%H:%M:%S) $1"; uptime; ps aux --sort=-%cpu | head -6 | cut -c1-200; } >> "$LOG"
}
fits() {  # worst-case seconds -> 0 when the run can end before STOP_UTC
   local stop now
   stop=$(date -u -d "$STOP_UTC" +%s); now=$(date -u +%s)
   if [ $((now + $1)) -gt "$stop" ]; then
      echo "=== $(date -u +%H:%M:%S) SKIPPED (needs up to $1 s, would end after $STOP_UTC): $2" >> "$LOG"
      return 1
   fi
   return 0
}
run() {  # worst-case seconds, label, command...
   local t=$1 label=$2; shift 2
   fits "$t" "$label" || return 0
   mark "START $label :: $*"
   "$@" >> "$LOG" 2>&1
   echo "rc=$?" >> "$LOG"
   mark "END $label"
}

mark "GROUP $GROUP acquired the lock"
case "$GROUP" in
wide)
   for d in wdbc bands spectf; do
      run 660 "score $d" $PY benchmarks/bench_scoring.py --datasets $d --scores BIC --bf 3 --budget 600 --mem-gb 8 \
         --no-pgmpy --save-jkl "$W/jkl" --jsonl "$W/wide-score.jsonl"
   done
   for d in wdbc bands spectf; do
      [ -f "$W/jkl/$d.bic.bf3.jkl" ] || { echo "=== no table for $d: search not run" >> "$LOG"; continue; }
      run 650 "search $d" $PY benchmarks/bench_classes.py $d --bf 3 --cap 600 --engines auto --mem-gb 8 \
         --workdir "$W" --out "$W/wide-search.jsonl"
   done
   ;;
hail)
   for b in 20 150; do
      run 340 "hailfinder100 BF $b class" $PY benchmarks/bench_classes.py hailfinder100 --bf $b --cap 300 \
         --engines class --mem-gb 8 --workdir "$W" --out "$W/hail.jsonl"
   done
   run 620 "hailfinder100 BF 3 gobnilp" $PY benchmarks/bench_classes.py hailfinder100 --bf 3 --cap 300 \
      --engines gobnilp --workdir "$W" --out "$W/hail.jsonl"
   ;;
wz150)
   # ours first (auto and by="class", 120 s each), then GOBNILP (400 s per step; the OPT step of these
   # files takes seconds, so 460 s is the budget checked against STOP_UTC).  First, job 2's side-by-side:
   # ours on hailfinder100 BF 3 under the lock (GOBNILP ran in group hail)
   run 340 "hailfinder100 BF 3 class" $PY benchmarks/bench_classes.py hailfinder100 --bf 3 --cap 300 \
      --engines class --mem-gb 8 --workdir "$W" --out "$W/hail.jsonl"
   for d in wine zoo; do
      run 160 "$d BF 150 auto+class" $PY benchmarks/bench_classes.py $d --bf 150 --cap 120 --engines auto class \
         --mem-gb 8 --workdir "$W" --out "$W/wz150.jsonl"
   done
   for d in wine zoo; do
      run 460 "$d BF 150 gobnilp" $PY benchmarks/bench_classes.py $d --bf 150 --cap 400 --engines gobnilp \
         --workdir "$W" --out "$W/wz150.jsonl"
   done
   ;;
ai150)
   for d in insurance1000 alarm1000; do
      run 1000 "$d BF 150 gobnilp (incl. CLI scoring)" $PY benchmarks/bench_classes.py $d --bf 150 --cap 300 --engines gobnilp \
         --workdir "$W" --out "$W/ai150.jsonl"
      run 400 "$d BF 150 auto" $PY benchmarks/bench_classes.py $d --bf 150 --cap 300 --engines auto \
         --mem-gb 8 --workdir "$W" --out "$W/ai150.jsonl"
   done
   ;;
*) echo "unknown group $GROUP" >&2; exit 2;;
esac
mark "GROUP $GROUP releases the lock"
