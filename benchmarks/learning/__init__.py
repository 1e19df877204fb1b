"""Benchmarks that train: steps and seconds to solve, the agent a default call returns, and the seed sweeps
whose committed results files the chapters read (``python -m benchmarks.learning.<script>``)."""
