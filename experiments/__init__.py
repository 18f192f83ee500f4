"""Simulators, benchmarks, replay, off-policy evaluation and MLflow tracking."""
