"""Markov equivalence classes (CPDAGs) and model averaging over collected networks.

Score-equivalent scores (BIC, BDeu) give every DAG of a Markov equivalence
class the same score, so an ε-BNSL collection is best read class by class:
:func:`group_by_class` groups networks by :func:`class_key` and gives each
class its essential graph (:func:`cpdag`); :mod:`.averaging` turns the scores
into posterior probabilities of networks, classes, edges and arrows.
"""

from __future__ import annotations

from .averaging import (
    arrow_probabilities,
    edge_probabilities,
    feature_table,
    mec_probabilities,
    network_weights,
)
from .cpdag import CPDAG, ClassKey, EquivalenceClass, class_key, cpdag, group_by_class, network_parts

__all__ = [
    "CPDAG",
    "ClassKey",
    "EquivalenceClass",
    "class_key",
    "cpdag",
    "group_by_class",
    "network_parts",
    "network_weights",
    "edge_probabilities",
    "arrow_probabilities",
    "feature_table",
    "mec_probabilities",
]
