"""Pitfall experiments: small functions that run one claim's experiment and return its measurements.

Notebooks call these and assert on the result, so the experiment a chapter teaches is tested code.
"""
