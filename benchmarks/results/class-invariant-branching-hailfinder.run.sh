#!/bin/bash
# one locked run: old (31a578d) and new at --time-limit 120, then new without a limit
J=/tmp/hh/hail150.jkl
for spec in "old 120" "new 120" "new none"; do
  set -- $spec
  tag=$1; tl=$2
  echo "# $(date -u +%T) start $tag tl=$tl loadavg: $(cat /proc/loadavg)" >&2
  if [ "$tl" = none ]; then TL=""; else TL="--time-limit $tl"; fi
  (cd /tmp/hh/$tag && PYTHONPATH=/tmp/hh/$tag /work/venv/bin/python benchmarks/bench_search_table.py $J --bf 150 $TL --method ilp --by class | sed "s/^/$tag $tl /")
  echo "# $(date -u +%T) end $tag loadavg: $(cat /proc/loadavg)" >&2
done
