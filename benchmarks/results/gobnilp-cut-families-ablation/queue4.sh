#!/bin/bash
# convex4 families c..i are off by default in this binary (c4b_off ran the same root as c4_off), so
# instead of switching them off one at a time: all seven on.
cd "$(dirname "$0")"
C4ON=(); for f in b c d e g h i; do C4ON+=("constraints/convex4_cuts/${f}_enable = TRUE"); done
./run.sh alarm10000.BDeu.p3 c4_all_on full "${C4ON[@]}"
