"""The course package: pitfall experiments, exercises, estimators, measured results, plots, timing, assignments."""
