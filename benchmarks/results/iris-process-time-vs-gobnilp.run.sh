#!/bin/sh
# Issue 13, iris: the locked run behind benchmarks/results/iris-process-time-vs-gobnilp.md (run from the worktree root):
#   flock /work/cpu.lock sh benchmarks/results/iris-process-time-vs-gobnilp.run.sh
set -e
OUT=${OUT:-/tmp/iris13-bench}
mkdir -p "$OUT"
echo "start $(date -u +%H:%M:%S) $(uptime)"
ps -eo pid,pcpu,etimes,args --sort=-pcpu | head -8
git log --oneline -1 main; git log --oneline -1 HEAD
# 1. main vs this branch, source-only and precompiled, beside GOBNILP per process (15 rounds per BF)
PYTHONPATH=. /work/venv/bin/python benchmarks/results/iris-process-time-vs-gobnilp.run.py --refs main iris13 --reps 15 \
    --workdir "$OUT" --out "$OUT/runs.jsonl" > /dev/null
# 2. the bench's own rows (this branch; it compiles the package first)
PYTHONPATH=. /work/venv/bin/python benchmarks/bench_classes.py iris --bf 3 20 150 --engines auto gobnilp --cap 240 \
    --out "$OUT/bench_classes.jsonl" > /dev/null
echo "end $(date -u +%H:%M:%S) $(uptime)"
ps -eo pid,pcpu,etimes,args --sort=-pcpu | head -8
