"""SCIP-free search engines and their shared primitives (numpy only; never imports pyscipopt)."""
