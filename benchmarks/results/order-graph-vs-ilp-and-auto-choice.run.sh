#!/bin/bash
# One pass under the lock, most important first; every row lands in /tmp/b12/all.jsonl as measured.
cd /work/wt/bench12
B="env PYTHONPATH=. /work/venv/bin/python benchmarks/bench_engines.py --tables /tmp/b12/tables --jsonl /tmp/b12/all.jsonl --score-budget 600"
step() { echo "$1 start $(date -u +%T) | $(uptime) | $(ps -eo pcpu,args --sort=-pcpu | sed -n 2,4p | cut -c1-90 | tr '\n' ';')" >> /tmp/b12/log.txt; shift; "$@" > /tmp/b12/$STEP.md 2> /tmp/b12/$STEP.err; echo "  end $(date -u +%T) rc=$? | $(uptime)" >> /tmp/b12/log.txt; }
STEP=s1 step s1 $B tic-tac-toe wine voting zoo shuttle adult nltcs letter --bf 3 20 150 --methods ordergraph auto --budget 600
STEP=s2 step s2 $B sensors mushroom --bf 3 --palim 3 --methods ordergraph --budget 900
STEP=s3 step s3 $B tic-tac-toe wine voting zoo shuttle adult nltcs letter --bf 3 --methods ilp --ilp-budget 300
STEP=s4 step s4 $B sensors --bf 3 --palim 3 --methods ilp --ilp-budget 300
STEP=s7 step s7 $B mushroom --bf 3 --palim 3 --methods ilp --ilp-budget 300
STEP=s6 step s6 $B steel --bf 3 --palim 3 --methods ordergraph --budget 600
STEP=s5 step s5 $B tic-tac-toe wine voting zoo shuttle adult --bf 20 150 --methods ilp --ilp-budget 120
echo "A3 end $(date -u +%T)" >> /tmp/b12/log.txt
