"""The course's benchmark scripts, one package per kind (see README.md): ``learning`` (runs that train),
``costs`` (what a call, step or process costs) and ``comparisons`` (rlkit beside Stable-Baselines3).

Each script runs from the repository's root as a module, ``python -m benchmarks.<kind>.<script>``, and imports
the shared helpers (``_common``, ``_results_file``, ``_whole_budget``) and other scripts by their full names."""
