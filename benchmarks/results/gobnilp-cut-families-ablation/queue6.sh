#!/bin/bash
# Root-node-only runs of the variants that moved the result, for their root-end bound.
cd "$(dirname "$0")"
T=alarm10000.BDeu.p3
C4OFF=(); for f in b c d e g h i; do C4OFF+=("constraints/convex4_cuts/${f}_enable = FALSE"); done
SEPOFF=(); for s in aggregation cgmip clique closecuts convexproj disjunctive eccuts gauge gomory impliedbounds intobj mcf oddcycle rapidlearning strongcg zerohalf; do SEPOFF+=("separating/$s/freq = -1"); done
./run.sh $T c4_off_scipsepa_off root "${C4OFF[@]}" "${SEPOFF[@]}"
./run.sh $T c4_off_scipsepa_off_spc_off root "${C4OFF[@]}" "${SEPOFF[@]}" "gobnilp/addspc = FALSE"
./run.sh $T scipsepa_off root "${SEPOFF[@]}"
./run.sh $T zerohalf_off root "separating/zerohalf/freq = -1"
./run.sh $T spc_off root "gobnilp/addspc = FALSE"
