"""Execute the book's chapters in parallel into its execution cache, before ``jupyter-book build`` reads them.

Jupyter Book 1 executes the notebooks of a book one after another. Each chapter runs on one CPU thread per
framework (rlkit's default), so on a machine with N cores N chapters can run at once: on 2 cores the chapters
take about half as long. This script puts every chapter into the cache that the build uses
(``_build/.jupyter_cache``, ``execute_notebooks: cache`` in ``_config.yml``) and executes those whose cached
execution is missing or out of date, one process per core. The build then finds every chapter in the cache
and only renders. A failing cell is kept with its error (``allow_errors``), as the build itself would keep it.

Usage: ``python _ext/execute_chapters.py [BUILD_FOLDER]`` (default ``_build``), from the book's root.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

import yaml


def chapters_in_toc(root: Path) -> list[Path]:
    """The notebooks ``_toc.yml`` lists, in its order."""
    found: list[Path] = []

    def walk(entry) -> None:
        if isinstance(entry, dict):
            if "file" in entry:
                path = root / f"{entry['file']}.ipynb"
                if path.is_file():
                    found.append(path)
            for value in entry.values():
                walk(value)
        elif isinstance(entry, list):
            for item in entry:
                walk(item)

    walk(yaml.safe_load((root / "_toc.yml").read_text()))
    return found


def main(argv: list[str] | None = None) -> int:
    from jupyter_cache import get_cache
    from jupyter_cache.executors import load_executor

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build", nargs="?", default="_build", type=Path)
    args = parser.parse_args(argv)
    root = Path.cwd()
    timeout = yaml.safe_load((root / "_config.yml").read_text())["execute"]["timeout"]
    cache = get_cache(str((args.build / ".jupyter_cache").resolve()))
    chapters = chapters_in_toc(root)
    for chapter in chapters:
        cache.add_nb_to_project(str(chapter.resolve()))
    stale = [record.uri for record in cache.list_unexecuted() if Path(record.uri).suffix == ".ipynb"]
    print(f"{len(chapters)} chapters, {len(stale)} to execute ({len(chapters) - len(stale)} already in the cache)")
    if not stale:
        return 0
    logging.basicConfig(format="%(message)s")
    logger = logging.getLogger("chapters")
    logger.setLevel(logging.INFO)  # the pool then reports a line as each chapter starts and ends, nothing more
    result = load_executor("local-parallel", cache=cache, logger=logger).run_and_cache(
        filter_uris=stale, timeout=timeout, allow_errors=True
    )
    print(f"executed {len(result.succeeded)}; not executed (kernel died or timed out): {len(result.excepted)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
