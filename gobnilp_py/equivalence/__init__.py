"""Markov equivalence classes (CPDAGs), their member DAGs, and model averaging.

Score-equivalent scores (BIC, BDeu) give every DAG of a Markov equivalence
class the same score, so an ε-BNSL collection is best read class by class:
:func:`group_by_class` groups networks by :func:`class_key` and gives each
class its essential graph (:func:`cpdag`); :mod:`.extensions` counts, lists
and counts arrows over a class's member DAGs exactly (optionally restricted
by structural constraints); :mod:`.averaging` turns scores into posterior
probabilities of networks, classes, edges and arrows, from listed networks
or from whole classes; :mod:`.consensus` turns those probabilities into one
network (the arrows or edges reaching a threshold, kept acyclic).
"""

from __future__ import annotations

from .averaging import (
    ClassWeight,
    arrow_probabilities,
    class_arrow_probabilities,
    class_edge_probabilities,
    class_feature_table,
    class_probabilities,
    class_weights,
    edge_probabilities,
    feature_table,
    mec_probabilities,
    network_weights,
)
from .cpdag import (
    CPDAG,
    ClassKey,
    EquivalenceClass,
    class_key,
    cpdag,
    cpdag_from_masks,
    group_by_class,
    network_parts,
)
from .consensus import ConsensusNetwork, consensus_network
from .extensions import Extensions, MemberConstraints, arrow_counts, count_members, iter_members

__all__ = [
    "CPDAG",
    "ClassKey",
    "EquivalenceClass",
    "class_key",
    "cpdag",
    "cpdag_from_masks",
    "group_by_class",
    "network_parts",
    "Extensions",
    "MemberConstraints",
    "count_members",
    "iter_members",
    "arrow_counts",
    "network_weights",
    "edge_probabilities",
    "arrow_probabilities",
    "feature_table",
    "mec_probabilities",
    "ClassWeight",
    "class_weights",
    "class_probabilities",
    "class_edge_probabilities",
    "class_arrow_probabilities",
    "class_feature_table",
    "ConsensusNetwork",
    "consensus_network",
]
