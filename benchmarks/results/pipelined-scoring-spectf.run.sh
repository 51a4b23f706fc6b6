#!/bin/sh
# before (c9ede7a, start of session) / after (main) side by side, one lock
for d in "spectf 5" "bands None"; do
 for code in /work/wt/lead-c9 /work/main; do
  cd $code; echo "== $code $d $(git log --oneline -1 | cut -c1-7) $(uptime)"
  ps aux --sort=-%cpu | awk 'NR>1 && NR<=3{print "   beside:", $3, $11, $12}'
  PYTHONPATH=. /work/venv/bin/python /tmp/lead/scoreone.py $d 2>&1 | grep RESULT
 done
done
