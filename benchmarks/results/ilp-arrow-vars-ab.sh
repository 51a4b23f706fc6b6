#!/bin/bash
# Issue 38: GOBNILP-style arrow variables (model option arrow_vars) beside the defaults, one run at a time
# under the shared lock, arms alternating per instance.  Part 1: the hard-table suite (bench_ilp_hard.py,
# API mode, 120 s); part 2: the learning benchmarks (bench_learn.py, BIC BF 3, 300 s).
# Usage: TREE=/path/to/tree bash benchmarks/results/ilp-arrow-vars-ab.sh [suite|learn]...
cd "${TREE:-.}" && . /work/venv/bin/activate && export PYTHONPATH=$PWD
LOG=${LOG:-/tmp/ilp-arrow-vars-ab}
for part in ${*:-suite learn}; do
  if [ "$part" = suite ]; then
    for inst in ${SUITE:-insurance1000.BDeu.p3 insurance1000.BDeu.p4 insurance1000.BIC.p3 insurance1000.BIC.p4 insurance10000.BDeu.p3 hailfinder5000.BDeu.p3 alarm10000.BDeu.p3 win95pts1000.BDeu.p3}; do
      for arm in default arrow; do
        if [ $arm = arrow ]; then O='{"arrow_vars": true}'; else O='{}'; fi
        python benchmarks/bench_ilp_hard.py run $inst --which ours --time-limit 120 --label arrows-$arm \
          --ours-options "$O" --log $LOG.suite.jsonl
      done
    done
  else
    for d in ${LEARN:-tic-tac-toe wine voting zoo alarm1000 insurance1000 nltcs adult soybean}; do
      for arm in default arrow; do
        if [ $arm = arrow ]; then A="--option arrow_vars=True"; else A=""; fi
        echo "# $d $arm $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg)" >> $LOG.learn.log
        flock /work/cpu.lock timeout 400 python benchmarks/bench_learn.py $d --bf 3 --time-limit 300 $A \
          --out $LOG.learn.jsonl >> $LOG.learn.log 2>&1
      done
    done
  fi
done
