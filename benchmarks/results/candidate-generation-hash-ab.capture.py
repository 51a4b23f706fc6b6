import numpy as np, pickle, sys
import gobnilp_py.scoring as S
from gobnilp_py.scoring import _walk_numba as W
got = []
real = W.generate_penalised
def gen(lv, a0, b0, j0, j1, v, k, *a, **kw):
    if k == 5:
        got.append((lv, a0, b0, j0, j1, v, k, a, kw))
        if len(got) == 40:
            pickle.dump(got, open("/tmp/hash14/calls.pkl", "wb"), protocol=5); sys.exit(0)
    return real(lv, a0, b0, j0, j1, v, k, *a, **kw)
W.generate_penalised = gen
a = np.loadtxt("/work/shared/data/spectf.csv", delimiter=",", dtype=int)
S.score(a, score="BIC", bayes_factor=3, palim=5)
