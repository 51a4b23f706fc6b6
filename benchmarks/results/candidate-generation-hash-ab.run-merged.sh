#!/bin/bash
# one locked session: base (c9ede7a) vs hash14, alternating, spectf palim=5 BIC BF 3
for round in 3 4; do
  for w in /work/wt/hash14-main7762 /work/wt/hash14-mergecheck; do
    echo "=== round $round $w $(git -C $w rev-parse --short HEAD) $(date -u +%H:%M:%S)"
    uptime
    ps aux --sort=-%cpu | head -5
    cd $w && /usr/bin/time -v env PYTHONPATH=. /work/venv/bin/python /tmp/lead/scoreone.py spectf 5 2>/tmp/hash14/time_${round}_$(basename $w).txt
    grep -E "Elapsed|Maximum resident|User time" /tmp/hash14/time_${round}_$(basename $w).txt
  done
done
