#!/bin/bash
# The rest of queue.sh's list, trimmed for time (c4_off_matroid_off, scipsepa_off root and hailfinder
# scipsepa_off dropped), in this order.
cd "$(dirname "$0")"
T=alarm10000.BDeu.p3
C4OFF=(); for f in b c d e g h i; do C4OFF+=("constraints/convex4_cuts/${f}_enable = FALSE"); done
MOFF=("constraints/dagcluster/matroidcuts = FALSE" "constraints/dagcluster/matroidpaircuts = FALSE")
SEPOFF=(); for s in aggregation cgmip clique closecuts convexproj disjunctive eccuts gauge gomory impliedbounds intobj mcf oddcycle rapidlearning strongcg zerohalf; do SEPOFF+=("separating/$s/freq = -1"); done
./run.sh $T c4_off_scipsepa_off full "${C4OFF[@]}" "${SEPOFF[@]}"
./run.sh $T zerohalf_off full "separating/zerohalf/freq = -1"
./run.sh $T default root
./run.sh $T c4_off root "${C4OFF[@]}"
./run.sh $T matroid_off full "${MOFF[@]}"
./run.sh $T aggregation_off full "separating/aggregation/freq = -1"
./run.sh hailfinder5000.BDeu.p3 default full
./run.sh hailfinder5000.BDeu.p3 c4_off full "${C4OFF[@]}"
