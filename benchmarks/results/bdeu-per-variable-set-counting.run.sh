#!/bin/bash
# issue 14, session 13: BDeu scoring, per-pair counting (OLD tree) against per-set counting (NEW tree), side by side.
# OLD=/path/to/tree-at-22b5e26 NEW=/path/to/tree-with-per-set-counting; each holds gobnilp_py/ (copied trees
# compile their own numba cache, so each arm is run once first to warm it).  Run under the machine's CPU lock.
set -u
BENCH=${BENCH:-benchmarks/bench_scoring.py}
DATA=${DATA:-../shared/data}
echo "start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
for arm in "$OLD" "$NEW"; do
  PYTHONPATH=$arm python "$BENCH" --data-dir "$DATA" --datasets voting nltcs --scores BDeu --bf 3 --budget 600 > /dev/null 2>&1
done
echo "warmed $(date -u +%T)"
for ds in tic-tac-toe wine voting zoo nltcs adult iris; do
  for arm in "$OLD" "$NEW"; do
    echo "== $ds $arm $(date -u +%T)"
    PYTHONPATH=$arm python "$BENCH" --data-dir "$DATA" --datasets $ds --scores BDeu --bf 3 --repeat 5 \
        --pgmpy-sample 100 --budget 600 2>&1 | grep "^| $ds"
  done
done
echo "end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
