"""rlkit's test suite, one folder per layer (CONTRIBUTING.md, "Repository layout"); conftest.py's fixtures
apply to all."""
