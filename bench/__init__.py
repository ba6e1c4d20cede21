"""Benchmarks: `python -m bench.run` measures us against the peers (see bench/run.py)."""
