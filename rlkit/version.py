"""The package version, in a module of its own so that every layer can read it without importing rlkit's
public API (which sits above the algorithms)."""

__version__ = "0.1.0"
