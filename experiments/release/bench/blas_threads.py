"""One release per cell in fresh processes, this tree against another checkout.

Each cell is run by ``run.py`` in a fresh process, in this tree and (``--before``) in another
checkout, alternating which goes first; prints the release time, the process's wall and CPU time,
the errors, and whether the two trees' records agree. Made to compare releases on one BLAS
thread (this tree: ``run_algorithm`` limits it) with OpenBLAS's default of one thread per core (a
checkout before that limit, e.g. ``git archive 3004edb | tar -x -C DIR``). The default cells are
the artefacts' BLAS users on ADULT. Each line gives the 1-minute load average at the start of the
process.

    PUBPRIV_DATA=../shared/data python scripts/bench.py blas_threads [--before DIR] [--repeats 1]
        [--cell "experiment=sota_adult algo=jam_pgm eps=0.1 public.delta=0.0" ...]
"""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from experiments.console import ArgumentParser, positive_int, run_or_fail
from experiments.release.bench import REPO

CELLS = ("experiment=sota_adult algo=jam_pgm eps=0.1 public.delta=0.0",
         "experiment=sota_adult algo=aim eps=1.0 public.delta=0.0",
         "experiment=sota_adult algo=mst eps=1.0 public.delta=0.0",
         "experiment=sota_adult algo=pep eps=1.0 T=10 public.delta=0.0",
         "dataset=adult public=biased public.delta=0.0 workload.k=3 workload.size=256 "
         "algo=pmwpub eps=1.0 T=50")
COMPARED = ("max_error", "mean_error", "trace")   # the trace without its timings


def release(tree: Path, cell: str, out: Path) -> dict:
    """``run.py <cell> runs=1`` in ``tree`` with records under ``out``: the record, with the
    process's wall and CPU seconds and the load at its start."""
    load = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    tick = time.perf_counter()
    env = dict(os.environ, PYTHONPATH=str(tree))
    command = [sys.executable, "run.py", *cell.split(), "runs=1", f"results_dir={out}",
               "hydra.sweeper.params={}", "progress=false"]
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - tick
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    records = sorted(out.glob("records/*/seed*-run0.json"))
    if done.returncode != 0 or not records:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"run.py {cell} failed in {tree}: {tail}")
    record = json.loads(records[0].read_text())
    record.update(wall_s=wall, load=load,
                  cpu_s=after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return record


def untimed(value):
    """A record field without its timings (a trace's ``*_s`` entries), to compare two runs."""
    if isinstance(value, dict):
        return {k: v for k, v in value.items() if not k.endswith("_s")}
    return value


def line(side: str, cell: str, r: dict) -> str:
    return (f"| {cell} | {side} | {r['runtime_s']:.1f} | {r['wall_s']:.1f} | {r['cpu_s']:.1f} "
            f"| {r['max_error']:.6f} | {r['mean_error']:.3g} | {r['load']:.1f} |")


def bench(args) -> None:
    trees = [("this tree", REPO)] + ([("before", Path(args.before).resolve())]
                                      if args.before else [])
    print("| cell | tree | release s | process wall s | process CPU s | max error | mean error "
          "| load |\n|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for i, cell in enumerate(args.cell or CELLS):
            for rep in range(args.repeats):
                order = trees if (i + rep) % 2 == 0 else trees[::-1]
                records = {}
                for side, tree in order:
                    out = Path(tmp) / f"{i}-{rep}-{side.replace(' ', '_')}"
                    records[side] = release(tree, cell, out)
                    print(line(side, cell, records[side]), flush=True)
                if len(records) == 2:
                    same = [k for k in COMPARED
                            if untimed(records["this tree"].get(k))
                            == untimed(records["before"].get(k))]
                    print(f"|  | records agree on | {', '.join(same) or 'nothing compared'} "
                          "|  |  |  |  |  |", flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", help="another checkout to run the same cells in")
    parser.add_argument("--repeats", type=positive_int, default=1)
    parser.add_argument("--cell", action="append",
                        help="run.py overrides of one cell (repeatable; default: ADULT cells)")
    args = parser.parse_args(argv)
    if args.before and not (Path(args.before) / "run.py").is_file():
        parser.error(f"--before {args.before} holds no run.py; pass a checkout of this project")
    run_or_fail(bench, args)

