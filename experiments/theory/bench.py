"""Time the theory presets from empty records: wall, CPU and load per preset.

Each run is ``python run.py experiment=theory_<paper> experiment.out=<scratch>/<tree>/<paper>``
in a fresh process (the records folder is emptied first, so nothing is resumed), from one or more
source trees (``--tree``: this checkout by default; another checkout, e.g. an older commit
exported with ``git archive``, gives an A/B comparison). Trees are interleaved preset by preset,
so both see the same load. Reported per run: wall seconds, CPU seconds of the process and its
joblib workers (``RUSAGE_CHILDREN``), and the 1-minute load average before and after — the
machine is shared, so wall time alone says little.

    PUBPRIV_DATA=../shared/data python scripts/bench.py theory [theory_liu2021 ...]
        [--tree .] [--tree /path/to/older/checkout] [--scratch runs/bench_theory]
        [--set key=value]
"""
from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from experiments.console import ArgumentParser, run_or_fail
from experiments.theory.reproduce import THEORY


@dataclass
class BenchRun:
    """One preset from one source tree."""

    preset: str
    tree: str
    status: int
    wall_s: float
    cpu_s: float
    load_before: float
    load_after: float


def child_cpu() -> float:
    """User + system CPU seconds of every finished child process so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_one(tree: Path, preset: str, out: Path, overrides: list[str]) -> BenchRun:
    """``preset`` from ``tree`` into an emptied ``out``; stdout and stderr go to ``out.log``."""
    shutil.rmtree(out, ignore_errors=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(tree), "MPLBACKEND": "Agg"}
    command = [sys.executable, "run.py", f"experiment={preset}", f"experiment.out={out}", *overrides]
    load, cpu, tick = os.getloadavg()[0], child_cpu(), time.perf_counter()
    with open(f"{out}.log", "w") as log:
        status = subprocess.run(command, cwd=tree, env=env, stdout=log, stderr=log).returncode
    return BenchRun(preset, str(tree), status, time.perf_counter() - tick, child_cpu() - cpu, load,
                    os.getloadavg()[0])


def run_benchmark(presets: list[str], trees: list[Path], scratch: Path, overrides: list[str]) -> list[BenchRun]:
    """Every preset from every tree (interleaved), printing one line per run and a summary."""
    unknown = sorted(set(presets) - set(THEORY))
    if unknown:
        raise ValueError(f"unknown theory presets {unknown}; choose from {', '.join(THEORY)}")
    runs = []
    for preset in presets:
        for k, tree in enumerate(trees):
            run = run_one(tree.resolve(), preset, scratch / f"tree{k}" / preset.removeprefix("theory_"), overrides)
            runs.append(run)
            print(f"{preset:20s} tree{k} status {run.status}  wall {run.wall_s:8.1f} s  CPU {run.cpu_s:8.1f} s  "
                  f"load {run.load_before:5.1f} -> {run.load_after:5.1f}  ({tree})", flush=True)
    print(table(runs, trees))
    return runs


def table(runs: list[BenchRun], trees: list[Path]) -> str:
    """Markdown: wall and CPU per preset and tree, with the loads."""
    head = "| preset | " + " | ".join(f"tree{k} wall / CPU (load)" for k in range(len(trees))) + " |"
    lines = [head, "|---|" + "---|" * len(trees)]
    for preset in dict.fromkeys(r.preset for r in runs):
        cells = [f"{r.wall_s / 60:.1f} / {r.cpu_s / 60:.1f} min ({r.load_before:.0f}–{r.load_after:.0f})"
                 + ("" if r.status == 0 else f" exit {r.status}") for r in runs if r.preset == preset]
        lines.append(f"| {preset} | " + " | ".join(cells) + " |")
    total = [sum(r.wall_s for r in runs if r.tree == str(t.resolve())) / 60 for t in trees]
    lines.append("| total wall | " + " | ".join(f"{w:.1f} min" for w in total) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("presets", nargs="*", default=list(THEORY),
                        help="default: all theory presets")
    parser.add_argument("--tree", action="append", type=Path,
                        help="source tree to run (repeatable; default .)")
    parser.add_argument("--scratch", type=Path, default=Path("runs/bench_theory"),
                        help="records and outputs")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override for every run, e.g. experiment.n_jobs=1")
    args = parser.parse_args(argv)
    run_or_fail(run_benchmark, args.presets, args.tree or [Path(".")], args.scratch, args.set)
