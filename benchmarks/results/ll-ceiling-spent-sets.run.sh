#!/bin/bash
# Session 18: spent sets (not extended) and int16 ids, old vs new, BIC BF 3, no parent limit, one
# core, a fresh process per (arm, dataset, round): the first score() call and the median of REPS
# warm calls (small-data-scoring-vs-c-scorer.one.py), rounds interleaved.  OLD and NEW are trees holding a
# gobnilp_py package (git archive REV gobnilp_py); "python" must be the project's environment.
#   PATH=VENV/bin:$PATH OLD=/tmp/arm_old NEW=/tmp/arm_new ROUNDS=2 REPS=3 \
#       benchmarks/results/ll-ceiling-spent-sets.run.sh alarm1000 insurance1000 nltcs ...
HERE=$(cd "$(dirname "$0")" && pwd)
cd /tmp     # not the checkout: its package must not come first
for name in "$@"; do
  for round in $(seq "${ROUNDS:-2}"); do
    for arm in old new; do
      p=$OLD; [ $arm = new ] && p=$NEW
      echo "$arm $round $(PYTHONPATH=$p python "$HERE/small-data-scoring-vs-c-scorer.one.py" "$name" "${REPS:-3}" BIC)"
    done
  done
done
