#!/bin/bash
# ilp13 issue 13: before (7028dc3, /tmp/ilp13/before) vs after (branch ilp13) vs GOBNILP eBNSL, same .jkl files.
J=/tmp/bench1314/jkl
PY=/work/venv/bin/python
mark() { echo "=== $(date -u +%H:%M:%S) $*"; uptime; ps aux --sort=-%cpu | awk 'NR>1 && $3>20 {print "   beside:", $3"%", $11, $12, $13, $14}' | head -4; }
ours() {  # label code jkl bf timelimit
   mark "$1 $3 BF $4"
   ( cd /tmp/ilp13 && PYTHONPATH=$2 timeout $(( $5 + 60 )) $PY /tmp/ilp13/run1.py $J/$3 $4 $5 class | sed "s/^/$1 /" )
}
gob() {  # jkl bf timeout
   mark "gobnilp $1 BF $2"
   RESULTS=/tmp/ilp13/gob OPT_TIMEOUT=$3 timeout $(( 2 * $3 + 30 )) /work/shared/tools/gobnilp-ebnsl/run_one.sh --jkl $J/$1 $2 $3 | sed "s/^/gobnilp /"
}
mark start
for rep in 1 2; do
  ours before /tmp/ilp13/before alarm1000.bic.bf20.jkl 20 120
  ours after /work/wt/ilp13 alarm1000.bic.bf20.jkl 20 120
  gob alarm1000.bic.bf20.nocomments.jkl 20 120
  ours before /tmp/ilp13/before insurance1000.bic.bf3.jkl 3 120
  ours after /work/wt/ilp13 insurance1000.bic.bf3.jkl 3 120
  gob insurance1000.bic.bf3.nocomments.jkl 3 120
done
ours before /tmp/ilp13/before hailfinder100.bic.bf20.jkl 20 60
ours after /work/wt/ilp13 hailfinder100.bic.bf20.jkl 20 60
mark end
