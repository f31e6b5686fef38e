"""Benchmarks of the query-release engine and algorithms (one module each; the command lines are
``scripts/bench_<name>.py``)."""
