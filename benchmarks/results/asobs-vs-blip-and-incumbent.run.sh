#!/bin/bash
# Issue 16 item 3: the ASOBS incumbent in the product (ILP warm start, order-graph start, global-gap LB).
cd /work/wt/ws16
B="env PYTHONPATH=. /work/venv/bin/python benchmarks/bench_asobs_warmstart.py --asobs-time 5 --json /tmp/ws16/ws.jsonl"
D=/work/shared/data
log() { echo "=== $(date -u +%H:%M:%S) $*"; uptime; ps aux --sort=-%cpu | awk 'NR>1 && $3>20 {print "   beside:", $3"%", $11, $12, $13, $14}' | head -4; }
log start
log carpo100;      $B --data $D/carpo100.csv --palim 3 --engines ilp --time-limit 150
log soybean;       $B --data $D/soybean.csv --bf 3 --engines ilp --time-limit 120
log alarm1000;     $B --data $D/alarm1000.csv --bf 3 --engines ilp --time-limit 120 --gap
log hailfinder100; $B --data $D/hailfinder100.csv --bf 3 --engines ilp --time-limit 120 --gap
log insurance1000; $B --data $D/insurance1000.csv --bf 3 --engines ilp,ordergraph --time-limit 120 --gap
log adult;         $B --data $D/adult.csv --bf 3 --engines ordergraph --time-limit 120 --gap
log letter;        $B --data $D/letter.csv --bf 3 --engines ordergraph --time-limit 120
log mushroom;      $B --data $D/mushroom.csv --bf 3 --engines ordergraph --time-limit 120
log zoo;           $B --data tests/data/zoo.csv --bf 3 --engines ilp,ordergraph --time-limit 120 --gap
log wdbc-table; env PYTHONPATH=. /work/venv/bin/python /tmp/ws16/wdbc.py /tmp/ws16/wdbc.bic.bf3.jkl
log end
