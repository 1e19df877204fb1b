"""Benchmarks of what one call, step or process costs: updates, optimizers, BLAS, checks, replay sampling,
GPU crossover, Ray workers (``python -m benchmarks.costs.<script>``)."""
