#!/bin/bash
# Extra runs after the first results (see gobnilp-cut-families-ablation.md): GOBNILP's set packing rows.
cd "$(dirname "$0")"
T=alarm10000.BDeu.p3
C4OFF=(); for f in b c d e g h i; do C4OFF+=("constraints/convex4_cuts/${f}_enable = FALSE"); done
SEPOFF=(); for s in aggregation cgmip clique closecuts convexproj disjunctive eccuts gauge gomory impliedbounds intobj mcf oddcycle rapidlearning strongcg zerohalf; do SEPOFF+=("separating/$s/freq = -1"); done
./run.sh $T spc_off full "gobnilp/addspc = FALSE"
./run.sh $T c4_off_scipsepa_off_spc_off full "${C4OFF[@]}" "${SEPOFF[@]}" "gobnilp/addspc = FALSE"
