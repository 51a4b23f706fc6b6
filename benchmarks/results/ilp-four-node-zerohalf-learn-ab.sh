#!/bin/bash
# A/B of the ILP root levers on bench_learn's datasets, one run at a time under the lock, alternating arms.
cd "${TREE:-.}" && . /work/venv/bin/activate && export PYTHONPATH=$PWD
OUT=/tmp/ilp-four-node-zerohalf-learn-ab.jsonl
for d in "$@"; do
  for arm in old new; do
    if [ $arm = old ]; then A="--option four_node_cuts=False --param separating/zerohalf/maxroundsroot=20"; else A="--option four_node_cuts=True --param separating/zerohalf/maxroundsroot=-1 $EXTRA"; fi
    echo "# $d $arm $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg)" >> /tmp/ilp-four-node-zerohalf-learn-ab.log
    flock /work/cpu.lock timeout 400 python benchmarks/bench_learn.py $d --bf 3 --time-limit 300 $A --out $OUT >> /tmp/ilp-four-node-zerohalf-learn-ab.log 2>&1
  done
done
