"""Benchmarks: each runs ThinkPath beside a reference in one process and reports ratios."""
