"""order_graph_optimum with the dense and the sparse best-parent backends, side by side, one process (session 16).

Random 22/24/25-variable tables (as order-graph-time-limit.run.py), the mushroom table without its isolated
constant column, letter, adult, voting, zoo (BIC, BF 3).  Prints per table: n, families, then per backend
status, score, seconds, seconds building the lookups.   python order-graph-time-limit.backend.py
"""
import numpy as np, warnings, time, sys
warnings.simplefilter("ignore")
import gobnilp_py as gp
from gobnilp_py.data.dataset import Dataset
from gobnilp_py.search.order_graph import order_graph_optimum
from gobnilp_py.solve.inputs import acquire_table
from gobnilp_py.scoring.constants import isolated_core
tabs = {}
for n in (22, 24, 25):
    rng = np.random.default_rng(n)
    base = rng.integers(0, 2, size=(12, 4))
    codes = np.stack([base[:, j % 4] ^ (rng.random(12) < 0.2) for j in range(n)], 1).astype(np.int64)
    tabs[f"random{n}"] = gp.score(Dataset([f"V{j}" for j in range(n)], [2] * n, codes), palim=2, bayes_factor=3, n_jobs=1)
t, _ = acquire_table("/work/shared/data/mushroom.csv", epsilon=None, constraints=None, scoring_options={"header": False}, optimum_only=True)
tabs["mushroom-core"] = isolated_core(t).table
for name in ("letter", "adult", "voting", "zoo"):
    tabs[name] = gp.score(f"/work/shared/data/{name}.csv", header=False, bayes_factor=3)
for name, tab in tabs.items():
    row = [name, tab.n, len(tab)]
    for be in ("dense", "sparse"):
        t0 = time.perf_counter(); r = order_graph_optimum(tab, backend=be, time_limit=120); el = time.perf_counter() - t0
        row += [be, r.status, round(r.score, 6), round(el, 2), round(r.stats.get("time_best_parents", 0), 2)]
    print(*row, flush=True)
