#!/bin/bash
# Issue 38: the two batches run on 2026-11-29, each as `flock /work/cpu.lock <this part>` (the first 8 lines, then the rest).
cd /work/wt/ilp && . /work/venv/bin/activate && export PYTHONPATH=/work/wt/ilp
B="python benchmarks/bench_ilp_hard.py run --no-lock --time-limit 120 --save-output /tmp/ilp2/out"
date -u; uptime
$B alarm10000.BDeu.p3 win95pts1000.BDeu.p3 --which ours,c --log /tmp/ilp2/base.jsonl
$B alarm10000.BDeu.p3 win95pts1000.BDeu.p3 --which ours --label packing3 --ours-options '{"packing": 3}' --log /tmp/ilp2/levers.jsonl
$B hailfinder5000 insurance --which ours,c --log /tmp/ilp2/base.jsonl
date -u; uptime
B="python benchmarks/bench_ilp_hard.py run --no-lock --time-limit 120 --save-output /tmp/ilp2/out --which ours --log /tmp/ilp2/levers.jsonl alarm10000.BDeu.p3"
date -u; uptime
$B --label heurfreq5 --ours-params '{"heuristics/gobnilp_sinks/freq": 5}'
$B --label relps1 --ours-params '{"branching/relpscost/minreliable": 0.0, "branching/relpscost/maxreliable": 1.0}'
$B --label warm --ours-engine '{"warm_start": true}'
$B --label kclsub --ours-options '{"kcluster_subip": true}'
date -u; uptime
