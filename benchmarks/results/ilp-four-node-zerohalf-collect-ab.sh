#!/bin/bash
# ILP collections, old tree beside new, alternating, each run under the shared lock (ilp-hard-tables-vs-gobnilp.md §0).
# Run from the project root with OLD_TREE and NEW_TREE set to checkouts of the two commits.
for spec in "bands 3 class" "wine 150 class" "hailfinder100 20 class" "zoo 20 class" "spectf 3 dag"; do
  set -- $spec
  for arm in old new; do
    T=${OLD_TREE:?}; [ $arm = new ] && T=${NEW_TREE:?}
    echo "# $1 BF $2 $3 $arm $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg)" >> ab_collect.log
    PYTHONPATH=$T flock /work/cpu.lock timeout 600 python benchmarks/results/ilp-four-node-zerohalf-collect-ab.py $1 $2 $3 \
      | sed "s/^{/{\"arm\": \"$arm\", /" >> ab_collect.jsonl 2>>ab_collect.log
  done
done
