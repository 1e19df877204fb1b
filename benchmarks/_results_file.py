"""Shared by the benchmarks whose committed results file a chapter reads (``sac_temperature.py``,
``replay_schemes.py``, ``overestimation.py``, ``epsilon_schedules.py``, ``ppo_ablation.py``): the file's record of
how it was measured, a pool of runs that rewrites the file after every finished run, so that an interrupted pass
keeps what it measured, and the whole command line of a (setting, seed) sweep (:func:`sweep_main`)."""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

from benchmarks.comparisons.compare_sb3 import commit, machine, now, portable
from rlkit import atomic, hardware


def seed_sweep_parser(description: str, results: Path) -> argparse.ArgumentParser:
    """The options every such benchmark takes: ``--seeds`` (0-9), ``--workers``, ``--out`` and ``--table``;
    the script adds its budget option and checks the values with :func:`check_sweep`."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", nargs="+", type=int, default=list(range(10)))
    parser.add_argument("--workers", type=int, default=2, help="processes, one CPU thread each")
    parser.add_argument("--out", type=Path, default=results)
    parser.add_argument("--table", action="store_true", help="print --out's summary table and stop")
    return parser


def check_sweep(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuse what would run nothing or run a seed twice: no workers, a repeated seed, or (for a script with
    a ``--steps`` budget) a budget below one step."""
    if args.workers < 1 or len(set(args.seeds)) != len(args.seeds):
        parser.error("--workers must be >= 1 and --seeds must not repeat")
    if getattr(args, "steps", None) is not None and args.steps < 1:
        parser.error("--steps must be >= 1")


def provenance(module: str) -> dict:
    """Where and how the file was measured: the command (``python -m module``, paths made portable), rlkit's
    commit, the machine, the versions, the load at the start and the start time."""
    return {
        "command": f"python -m {module} " + " ".join(portable(sys.argv[1:])),
        "rlkit_commit": commit(), "machine": machine(), "versions": hardware.versions(),
        "load_average_at_start": os.getloadavg(), "started": now(), **preloaded(),
        "vector_extensions": vector_extensions(),
    }  # fmt: skip


#: The vector instruction sets whose presence tells two CPUs of one name apart.
VECTOR_EXTENSIONS = ("avx2", "fma", "avx512f", "avx512_bf16", "amx_tile")


def vector_extensions(cpuinfo: Path = Path("/proc/cpuinfo")) -> list[str] | None:
    """Which of :data:`VECTOR_EXTENSIONS` the CPU has (None off Linux). "AMD EPYC" names CPUs of several
    generations, and the same TensorFlow run computed other numbers on two of them (``RESULTS.md``,
    "Endings"; chapter 40): a pass records what its machine's name does not say."""
    try:
        text = cpuinfo.read_text()
    except OSError:
        return None
    flags = next((line.split(":", 1)[1].split() for line in text.splitlines() if line.startswith("flags")), [])
    return [extension for extension in VECTOR_EXTENSIONS if extension in flags]


def preloaded() -> dict:
    """The libraries preloaded into the pass (``LD_PRELOAD``), by file name, when there are any: one that
    answers MKL's vendor check changes torch's numbers on another vendor's CPU (chapter 40), so a pass made
    with one must say so."""
    names = [Path(library).name for library in os.environ.get("LD_PRELOAD", "").replace(":", " ").split()]
    return {"preloaded": names} if names else {}


def run_into_file(
    document: dict,
    out: Path,
    run_one: Callable,
    tasks: Iterable,
    workers: int,
    order: Callable[[dict], tuple],
    report: Callable[[dict], str],
) -> None:
    """Run ``run_one`` on every task in ``workers`` spawned processes, appending each finished run to
    ``document["runs"]`` (sorted by ``order``) and writing ``out`` after each, then once more, finished."""

    def write(finished: bool) -> None:
        document["runs"].sort(key=order)
        document["finished"] = now() if finished else None
        out.parent.mkdir(parents=True, exist_ok=True)
        atomic.write_text(out, json.dumps(document, indent=1) + "\n")  # a kill keeps the last whole file

    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        for run in pool.imap_unordered(run_one, list(tasks)):
            document["runs"].append(run)
            write(finished=False)
            print(report(run), flush=True)
    write(finished=True)
    print(f"wrote {out}")


def by_setting(document: dict, field: str, settings: list[str], value: str) -> dict[str, dict[int, float]]:
    """Each run's ``value`` by its setting (named by ``field``, in the order of ``settings``), then by seed."""
    table: dict[str, dict[int, float]] = {name: {} for name in settings}
    for run in document["runs"]:
        table[run[field]][run["seed"]] = run[value]
    return table


def sweep_main(
    description: str,
    results: Path,
    field: str,
    settings: list[str],
    run_one: Callable,
    markdown_table: Callable[[dict], str],
    report: Callable[[dict], str],
    header: dict,
    steps: int | None,
    seeds: int | list[int] = 10,
) -> None:
    """The command line of a seed sweep whose runs are (setting, seed, steps) tasks: every setting on every seed,
    the runs kept in the file by setting then seed, ``--steps`` for each run (None: the algorithm's own budget),
    ``--table`` to print the file's summary. ``header`` is what the file says of all its runs (claim, algorithm,
    framework, environment); ``field`` names the setting in each run's record; ``seeds`` are the default seeds
    (a count: 0 to seeds - 1)."""
    parser = seed_sweep_parser(description, results)
    parser.set_defaults(seeds=list(range(seeds)) if isinstance(seeds, int) else seeds)
    parser.add_argument("--steps", type=int, default=steps, help="environment steps per run")
    args = parser.parse_args()
    if args.table:
        print(markdown_table(json.loads(args.out.read_text())))
        return
    check_sweep(parser, args)
    module = sys.modules["__main__"].__spec__.name  # the script's module, as `python -m` ran it
    document = {**header, "steps": args.steps, **provenance(module), "runs": []}
    tasks = [(setting, seed, args.steps) for seed in args.seeds for setting in settings]

    def order(run: dict) -> tuple:
        return settings.index(run[field]), run["seed"]

    run_into_file(document, args.out, run_one, tasks, args.workers, order=order, report=report)
