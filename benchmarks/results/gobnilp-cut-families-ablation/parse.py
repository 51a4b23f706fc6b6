"""Summarise the logs of gobnilp-cut-families-ablation (one row per log, Markdown).

python parse.py [LOG ...]   (default: every *.log beside this script)
Bound at 35 s = the "Best Network Possible" column of the last display line at or before 35.0 s
(the C program prints a line per root separation round and per new incumbent, so this is the bound
as of that line, not sampled exactly at 35 s).
"""
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def field(text, pat):
    m = re.search(pat, text, re.M)
    return m.group(1).strip() if m else "-"


def row(path):
    t = path.read_text(errors="replace")
    parts = path.name[:-4].split(".")
    name, table, mode = parts[0], ".".join(parts[1:-1]), parts[-1]
    disp = [(float(m.group(1)), float(m.group(2)), float(m.group(3)))
            for m in re.finditer(r"^\s*([0-9.]+)s\|\s*(\S+)\s*\|\s*(\S+)\s*\|", t, re.M)]
    b35 = [d for s, _, d in disp if s <= 35.0]
    status = field(t, r"^SCIP Status\s*:\s*(.*)$")
    status = re.sub(r".*\[(.*)\].*", r"\1", status)
    load = field(t, r"load_before (\S+)")
    start = field(t, r"start_utc (\S+)")
    secs = field(t, r"^Solving Time .sec.\s*:\s*(\S+)")
    nodes = field(t, r"^Solving Nodes\s*:\s*(\S+)")
    primal = float(field(t, r"^Primal Bound\s*:\s*(\S+)"))
    dual = float(field(t, r"^Dual Bound\s*:\s*(\S+)"))
    gap = field(t, r"^Gap\s*:\s*(.*)$")
    bound35 = b35[-1] if b35 else float("nan")
    return (f"| {table} | {name} | {mode} | {status} | {secs} | {nodes} | {primal:.1f} | {dual:.1f} | {gap} | "
            f"{bound35:.1f} | {start} | {load} |")


paths = [Path(p) for p in sys.argv[1:]] or sorted(HERE.glob("*.log"), key=lambda p: p.stat().st_mtime)
print("| table | variant | mode | status | s | nodes | primal | dual bound | gap | bound at 35 s | start UTC | load |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for p in paths:
    if "# end_utc" in p.read_text(errors="replace"):
        print(row(p))
