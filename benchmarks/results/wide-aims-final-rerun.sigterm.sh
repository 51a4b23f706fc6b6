#!/bin/sh
# enumerate lung-cancer BF 3 (time limit 1500 s), SIGTERM after $1 s; print the answer's head and exit code
PYTHONPATH=$2 /work/venv/bin/python -m gobnilp_py enumerate /work/shared/data/lung-cancer.csv --no-header --bf 3 --time-limit 1500 --json > /tmp/lc_term.json 2>/tmp/lc_term.err &
P=$!
sleep $1
T0=$(date +%s.%N)
kill -TERM $P
wait $P; RC=$?
T1=$(date +%s.%N)
echo "exit $RC, $(echo "$T1 - $T0" | bc) s after SIGTERM"
/work/venv/bin/python -c "
import json; d=json.load(open('/tmp/lc_term.json'))
print({k: d.get(k) for k in ('complete','reason','threshold','opt')}, 'networks', len(d.get('networks', [])))
s=d.get('stats',{}); print({k: s.get(k) for k in ('found','listed','classes','time_collect','time_networks')})"
