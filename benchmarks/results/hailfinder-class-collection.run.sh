#!/bin/bash
# locked, <= 6 min: side by side before (main 5e49179) / after (hail13 f42fe21) on the same files
T0=$(date +%s)
echo "=== $(date -u) start"; uptime; ps aux --sort=-%cpu | sed -n 2,4p | cut -c1-160
(cd /tmp/hail13/before && PYTHONPATH=. timeout 140 /work/venv/bin/python /tmp/hail13/run1.py /tmp/bench1314/jkl/hailfinder100.bic.bf20.jkl 20 120 before)
echo "=== $(date -u)"; uptime
(cd /tmp/hail13/after && PYTHONPATH=. timeout 140 /work/venv/bin/python /tmp/hail13/run1.py /tmp/bench1314/jkl/hailfinder100.bic.bf20.jkl 20 120 after)
for f in wine.bic.bf20:20 alarm1000.bic.bf20:20 zoo.bic.bf20:20 voting.bic.bf20:20; do
  file=${f%%:*}; bf=${f##*:}
  for side in before after; do
    left=$(( 340 - ($(date +%s) - T0) ))
    if [ $left -lt 45 ]; then echo "=== skip $side $file (time)"; continue; fi
    echo "=== $(date -u) $side $file"; uptime | cut -c40-
    (cd /tmp/hail13/$side && PYTHONPATH=. timeout $left /work/venv/bin/python /tmp/hail13/run1.py /tmp/bench1314/jkl/$file.jkl $bf 40 $side)
  done
done
echo "=== end $(date -u)"; uptime
