"""Benchmarks of climbing_trees against scikit-learn; run ``python -m benchmarks``."""
