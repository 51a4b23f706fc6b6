#!/bin/bash
# Confirmation on hailfinder5000.BDeu.p3: SCIP separators off, and both families off.
cd "$(dirname "$0")"
T=hailfinder5000.BDeu.p3
C4OFF=(); for f in b c d e g h i; do C4OFF+=("constraints/convex4_cuts/${f}_enable = FALSE"); done
SEPOFF=(); for s in aggregation cgmip clique closecuts convexproj disjunctive eccuts gauge gomory impliedbounds intobj mcf oddcycle rapidlearning strongcg zerohalf; do SEPOFF+=("separating/$s/freq = -1"); done
./run.sh $T c4_off_scipsepa_off full "${C4OFF[@]}" "${SEPOFF[@]}"
./run.sh $T scipsepa_off full "${SEPOFF[@]}"
