"""Published figures the benchmarks print beside ours (one copy, shared by every script).

Sources: Liao, Sharma, Cussens and van Beek, "Finding all Bayesian network
structures within a factor of optimal", AAAI 2019 (Tables 1 and 2; 2.2 GHz
Xeon, CPLEX, scoring excluded, 24 h limit), and ``../shared/data/README.md``
(GOBNILP, Liao et al.'s modified C code on SCIP 6.0.2 + SoPlex, measured on
this project's kind of 2-core machine; and counts checked there by
exhaustive enumeration).

The paper's |M| column is wrong in places (the data README shows several
counts by d-separation), and alarm1000.csv / insurance1000.csv are not the
paper's samples: for those two, compare with ``GOBNILP_HERE`` and ``CHECKED``.
"""

from __future__ import annotations

#: Table 1 (BIC): data -> BF -> (T seconds, |G|, |M|); None = out of time (24 h).
PAPER_TABLE1: dict[str, dict[int, tuple[float, int, int] | None]] = {
    "tic-tac-toe": {3: (1.9, 192, 64), 20: (2.0, 192, 64), 150: (3.3, 544, 160)},
    "wine": {3: (4.1, 308, 51), 20: (24.9, 3449, 576), 150: (143.7, 26197, 4497)},
    "adult": {3: (17.5, 324, 162), 20: (45.1, 1140, 570), 150: (55.7, 2281, 1137)},
    "nltcs": {3: (53.8, 240, 120), 20: (201.7, 1200, 600), 150: (1005.1, 4606, 2303)},
    "letter": {3: None, 20: None, 150: None},
    "voting": {3: (1.3, 27, 2), 20: (4.0, 441, 33), 150: (14.3, 2222, 170)},
    "zoo": {3: (8.1, 49, 13), 20: (21.9, 1111, 270), 150: (299.3, 21683, 5392)},
    "insurance1000": {3: (49.8, 8226, 2062), 20: (244.9, 104870, 25580), 150: (414.5, 148925, 36072)},
    "alarm1000": {3: (6.3, 1508, 122), 20: (684.2, 123352, 9323), 150: (2258.4, 150000, 8484)},
    "hailfinder100": {3: (171.5, 150000, 20), 20: (149.4, 150000, 748), 150: (214.6, 150000, 294)},
    # the wider datasets (data README, "More published figures"); lung cancer is lung-cancer.csv here
    "sensors": {3: None, 20: None, 150: None},
    "wdbc": {3: (396.1, 398, 107), 20: (10144.2, 28424, 8182), 150: (45938.2, 150000, 54846)},
    "soybean": {3: (7729.4, 150000, 150000), 20: (16096.8, 150000, 62704), 150: (8893.5, 150000, 118368)},
    "bands": {3: (100.9, 7092, 810), 20: (2032.6, 150000, 44899), 150: (16974.8, 150000, 95774)},
    "spectf": {3: (432.4, 27770, 4510), 20: (7425.2, 150000, 51871), 150: (19664.8, 150000, 63965)},
    "lung-cancer": {3: (584.3, 150000, 40621), 20: (966.6, 150000, 79680), 150: (2739.7, 150000, 48236)},
}

#: Table 2 (BDeu, ESS 1, BF 20): data -> (|G|, |M|), as quoted in the data README.
PAPER_TABLE2_BF20: dict[str, tuple[int, int]] = {
    "tic-tac-toe": (152, 24), "wine": (8734, 6262), "adult": (792, 19), "nltcs": (652, 326),
    "letter": (20, 10), "voting": (621, 207), "zoo": (29073, 6761), "insurance1000": (1081, 133),
}

#: GOBNILP (Liao et al.'s code) on this kind of machine, BIC: data -> BF -> (solve to OPT s, collect s, networks).
GOBNILP_HERE: dict[str, dict[int, tuple[float | None, float | None, int]]] = {
    "tic-tac-toe": {3: (1.24, 2.08, 192), 20: (1.12, 2.02, 192)},
    "wine": {3: (4.11, 4.75, 308), 20: (2.84, 43.71, 3449), 150: (None, None, 26153)},
    "voting": {3: (2.42, 2.53, 27), 20: (1.35, 4.60, 441)},
    "zoo": {3: (59.23, 13.88, 49), 20: (7.25, 49.95, 1111), 150: (None, None, 21679)},
    "alarm1000": {3: (5.49, 3.47, 24), 20: (4.60, 8.21, 424)},
    "insurance1000": {3: (0.72, 0.87, 10), 20: (None, None, 117)},
}

#: Counts checked by exhaustive enumeration (data README): (data, score, BF) -> (networks, classes or None).
CHECKED: dict[tuple[str, str, int], tuple[int, int | None]] = {
    ("tic-tac-toe", "BIC", 3): (192, 8), ("tic-tac-toe", "BIC", 20): (192, None),
    ("tic-tac-toe", "BIC", 150): (544, 40), ("wine", "BIC", 3): (308, 7), ("wine", "BIC", 20): (3449, None),
    ("voting", "BIC", 3): (27, None), ("voting", "BIC", 20): (441, 33), ("zoo", "BIC", 3): (49, 13),
    ("zoo", "BIC", 20): (1111, 265), ("tic-tac-toe", "BDeu", 20): (152, 24), ("wine", "BDeu", 20): (8734, 1877),
    ("alarm1000", "BIC", 3): (24, None), ("alarm1000", "BIC", 20): (424, None),
    ("insurance1000", "BIC", 3): (10, None), ("insurance1000", "BIC", 20): (117, None),
}

#: Optimal BIC scores (no parent limit) checked by an independent program (data README).
CHECKED_BIC_OPT: dict[str, float] = {
    "tic-tac-toe": -9396.375858, "wine": -1258.445909, "voting": -4642.631030, "zoo": -612.261239,
    "nltcs": -20033.595540, "alarm1000": -11783.052412, "insurance1000": -14350.471361,
}
