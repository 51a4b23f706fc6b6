#!/bin/sh
# Issue 14's wide-data aims on one tree, as a new user runs them: from the CSV file, scoring and
# search in one command, BIC, BF 3, no parent limit, default workers (session 20).
#   PATH=VENV/bin:$PATH OUT=DIR LIMIT=SECONDS benchmarks/results/wide-aims-final-rerun.run.sh wdbc bands spectf lung-cancer
# Each dataset: the first three lines of the answer, the run's INFO log (stage times) and
# /usr/bin/time's wall seconds and peak resident memory of the largest process.
SHARED=${GOBNILP_SHARED:-/work/shared}
OUT=${OUT:-/tmp/s20}; LIMIT=${LIMIT:-1500}
mkdir -p "$OUT"
for d in "$@"; do
  echo "== $d $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg)"
  /usr/bin/time -f "wall %e s, peak RSS %M kB, exit %x" -o "$OUT/$d.time" \
    gobnilp-py enumerate "$SHARED/data/$d.csv" --no-header --bf 3 --time-limit "$LIMIT" \
    --log-level INFO > "$OUT/$d.out" 2> "$OUT/$d.log"
  head -3 "$OUT/$d.out"; cat "$OUT/$d.time"
  grep -i -E "scor|OPT|class|network" "$OUT/$d.log" | tail -6
done
