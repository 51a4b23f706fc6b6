#!/bin/bash
# The runs of gobnilp-cut-families-ablation.md, in order, each under the shared lock (see run.sh).
cd "$(dirname "$0")"
T=alarm10000.BDeu.p3
C4OFF=()
for f in b c d e g h i; do C4OFF+=("constraints/convex4_cuts/${f}_enable = FALSE"); done
C4ON=()
for f in b c d e g h i; do C4ON+=("constraints/convex4_cuts/${f}_enable = TRUE"); done
MOFF=("constraints/dagcluster/matroidcuts = FALSE" "constraints/dagcluster/matroidpaircuts = FALSE")
SEPOFF=()
for s in aggregation cgmip clique closecuts convexproj disjunctive eccuts gauge gomory impliedbounds intobj mcf oddcycle rapidlearning strongcg zerohalf; do SEPOFF+=("separating/$s/freq = -1"); done
[ "${1:-all}" = all ] || { "$@"; exit; }
# (order as run; the first run, c4_off, was started by the first version of this list)
one() { ./run.sh "$@"; }
one $T scipsepa_off full "${SEPOFF[@]}"
one $T c4b_off full "constraints/convex4_cuts/b_enable = FALSE"
one $T gomory_off full "separating/gomory/freq = -1"
one $T zerohalf_off full "separating/zerohalf/freq = -1"
one $T aggregation_off full "separating/aggregation/freq = -1"
one $T c4_off_scipsepa_off full "${C4OFF[@]}" "${SEPOFF[@]}"
one $T matroid_off full "${MOFF[@]}"
one $T c4_off_matroid_off full "${C4OFF[@]}" "${MOFF[@]}"
one $T default root
one $T c4_off root "${C4OFF[@]}"
one $T scipsepa_off root "${SEPOFF[@]}"
one hailfinder5000.BDeu.p3 default full
one hailfinder5000.BDeu.p3 c4_off full "${C4OFF[@]}"
one hailfinder5000.BDeu.p3 scipsepa_off full "${SEPOFF[@]}"
