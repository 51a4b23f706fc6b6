#!/bin/bash
# soybean BIC BF 20 and 150: the optimum, ours (learn, default method) beside GOBNILP's opt step, same .jkl, 300 s each
cd /tmp/s13/soy
echo "start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
for bf in 20 150; do
  jkl=/tmp/sweep12/jkl/soybean.bic.bf$bf.jkl
  echo "== ours bf$bf $(date -u +%T)"
  /usr/bin/time -f "wall %e s, maxrss %M KB" /work/venv/bin/gobnilp-py learn $jkl --time-limit 300 2>&1 | grep -v "^\s*$" | head -6
  echo "== gobnilp bf$bf $(date -u +%T)"
  rm -rf res$bf; RESULTS=/tmp/s13/soy/res$bf OPT_TIMEOUT=300 COLLECT_TIMEOUT=1 bash /work/shared/tools/gobnilp-ebnsl/run_one.sh --jkl /tmp/sweep12/jkl/soybean.bic.bf$bf.nocomments.jkl $bf 1 2>&1 | tail -1
done
echo "end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
