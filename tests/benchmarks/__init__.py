"""The benchmark scripts: smoke runs, and the committed results files that chapters and RESULTS.md read."""
