#!/bin/bash
# Session 15: old vs new scoring on bigger data, one core, a fresh process per (arm, dataset, score,
# round): the first score() call and the median of 3 warm calls (small-data-scoring-vs-c-scorer.one.py), two
# interleaved rounds.  OLD and NEW are trees holding a gobnilp_py package (git archive REV gobnilp_py).
# "python" must be the project's environment (numpy, numba): put its bin first on PATH.
#   PATH=VENV/bin:$PATH OLD=/tmp/arm_old NEW=/tmp/arm_new benchmarks/results/small-data-scoring-int32-ids.bigger.sh
HERE=$(cd "$(dirname "$0")" && pwd)
cd /tmp     # not the checkout: its package must not come first
for spec in "alarm1000 BIC" "insurance1000 BIC" "nltcs BIC" "adult BIC" "letter BIC" "voting BDeu" "zoo BDeu" "wine BDeu"; do
  set -- $spec
  for round in 1 2; do
    for arm in old new; do
      p=$OLD; [ $arm = new ] && p=$NEW
      echo "$arm $round $(PYTHONPATH=$p python "$HERE/small-data-scoring-vs-c-scorer.one.py" $1 3 $2) score=$2"
    done
  done
done
