"""Issue 24's targets, one module per target family; ``benchmarks/perf_bench.py`` runs them."""
