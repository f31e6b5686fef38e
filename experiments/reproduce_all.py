"""``python scripts/reproduce.py all``: every artefact in one command — the release catalogue
(:mod:`experiments.release.artefacts.catalogue`; those that need the internet are skipped, each with a line
saying so), the theory presets and the bound curves (:mod:`experiments.theory.reproduce`).

Each artefact is run, resumed from its records, and timed; a line per artefact and the total are
printed, and the table of wall times is written to ``<root>/walltimes.md`` and ``walltimes.csv``
(rewritten after every artefact, so an interrupted run keeps the times measured so far).
``only`` runs a subset of the targets (e.g. those an interrupted run did not reach): the rows of
the other artefacts already in the table are kept, so the table of one root gathers the runs
made into it. Output
folders under ``root`` follow the layout of ``results/``: ``<root>/<folder of the artefact>``,
``<root>/theory/<paper>``, ``<root>/bounds``.
"""
from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pandas as pd

from experiments.console import EXIT_BAD_INPUT, EXIT_FAULT, EXIT_INTERRUPTED, write_failure
from experiments.release.artefacts.catalogue import ARTEFACTS
from experiments.release.artefacts.reproduce import REPO
from experiments.theory.reproduce import BOUNDS, THEORY, reproduce_theory, theory_out


@dataclass
class Timing:
    """One artefact's line of the wall-time table."""

    artefact: str
    kind: str
    status: str
    wall_s: float
    out: str
    load_1min: float = float("nan")     # the load average when the artefact finished


def output_root(*, quick: bool, into: str) -> Path:
    """Root of the outputs of ``all`` (and of a theory target) without ``--out``: ``runs/quick``
    for ``--quick``, the committed ``results/`` for ``--into results``, else ``runs/artefacts``
    (the layout of ``experiments.release.artefacts.reproduce.output_folder``)."""
    if quick:
        return Path("runs/quick")
    return REPO / "results" if into == "results" else Path("runs/artefacts")


def targets(root: Path) -> list[tuple[str, str, Path]]:
    """(name, kind, output folder) of every artefact, release catalogue first."""
    release = [(a.name, "release", root / Path(a.out).name) for a in ARTEFACTS.values()]
    theory = [(name, "theory", theory_out(root, name)) for name in THEORY]
    return release + theory + [(BOUNDS, "bounds", theory_out(root, BOUNDS))]


def target_names() -> list[str]:
    """The names ``--targets`` may give, in the order ``all`` runs them."""
    return [name for name, _, _ in targets(Path("."))]


def run_release(name: str, out: Path, release_kwargs: dict) -> int:
    """One release artefact through :func:`experiments.release.artefacts.reproduce.reproduce`; its
    ``summary.md`` records the single-artefact command that does the same."""
    from experiments.release.artefacts.reproduce import reproduce

    return reproduce(name, out=str(out), command=equivalent_command(name, out, release_kwargs),
                     **release_kwargs)


def equivalent_command(name: str, out: Path, release_kwargs: dict) -> list[str]:
    """``reproduce.py`` arguments running artefact ``name`` alone as ``all`` runs it."""
    kw = release_kwargs
    args = [name, *(["--quick"] if kw.get("quick") else []), "--jobs", str(kw.get("jobs", 2))]
    args += ["--tuning", kw["tuning"]] if kw.get("tuning") else []
    for setting in kw.get("settings") or ():
        args += ["--set", setting]
    for key in ("data_root", "results_dir"):
        args += [f"--{key.replace('_', '-')}", str(kw[key])] if kw.get(key) else []
    args += ["--no-run"] if kw.get("no_run") else []
    args += ["--pin-workers"] if kw.get("pin") else []
    if kw.get("launcher") is not None:
        args += ["--launcher", "slurm"]
        for option in kw["launcher"].options:
            args += ["--launcher-option", option]
    return [*args, "--out", str(out)]


def run_theory_target(name: str, out: Path, quick: bool, launcher=None) -> int:
    """One theory preset or the bound curves (a preset as one Slurm job with two cores when a
    :class:`~experiments.release.artefacts.slurm.SlurmLauncher` is given); bad input or missing data is
    one line, status 2; a failed block or Slurm job one line, status 1."""
    from experiments.release.artefacts.slurm import SlurmJobsFailed
    from pubpriv_core.data.paths import DataUnavailableError

    try:
        if launcher is not None and name != BOUNDS:
            launcher.call(reproduce_theory, name, out, quick, folder=out / "slurm")
        else:
            reproduce_theory(name, out, quick)
    except (KeyError, ValueError, DataUnavailableError) as err:
        print(f"error: {name}: {' '.join(str(err).split())}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except SlurmJobsFailed as err:
        print(f"error: {name}: {err}", file=sys.stderr)
        return EXIT_FAULT
    except RuntimeError as err:     # a block that failed (a solver error): finished ones are kept
        print(f"error: {name}: {' '.join(str(err).split())}; its finished blocks are kept under "
              f"{out / 'records'}; re-running resumes after them", file=sys.stderr)
        return EXIT_FAULT
    return 0


def timed(fn: Callable[[], int]) -> tuple[int, float]:
    """(status, wall seconds) of ``fn()``; Ctrl-C is status 130, a failed write status 1."""
    tick = time.perf_counter()
    try:
        status = fn()
    except KeyboardInterrupt:
        status = EXIT_INTERRUPTED
    except OSError as err:
        print(f"error: {write_failure(err, [])}", file=sys.stderr)
        status = EXIT_FAULT
    return status, time.perf_counter() - tick


def write_table(root: Path, rows: list[Timing], total: float) -> None:
    """``walltimes.csv`` and ``walltimes.md`` under ``root``: this run's rows, and the rows of
    other artefacts an earlier run into ``root`` wrote, in the order of :func:`targets`."""
    root.mkdir(parents=True, exist_ok=True)
    frame = pd.DataFrame([r.__dict__ for r in rows])
    if (root / "walltimes.csv").is_file():
        earlier = pd.read_csv(root / "walltimes.csv")
        frame = pd.concat([earlier[~earlier.artefact.isin(frame.artefact)], frame])
    order = {name: i for i, name in enumerate(target_names())}
    frame = frame.sort_values("artefact", key=lambda names: names.map(order))
    frame.to_csv(root / "walltimes.csv", index=False)
    lines = ["| artefact | kind | status | wall time | load at its end | output |",
             "|---|---|---|---|---|---|"]
    lines += [f"| {r.artefact} | {r.kind} | {r.status} | {r.wall_s / 60:.1f} min | "
              f"{'–' if pd.isna(r.load_1min) else f'{r.load_1min:.1f}'} | `{r.out}` |"
              for r in frame.itertuples()]
    lines += ["", f"Sum of the rows {frame.wall_s.sum() / 60:.1f} min on {os.cpu_count()} cores "
                  f"(this run {total / 60:.1f} min)."]
    (root / "walltimes.md").write_text("\n".join(lines) + "\n")


def reproduce_all(root: Path, *, quick: bool = False, release_kwargs: dict | None = None,
                  only: tuple[str, ...] = ()) -> int:
    """Run every artefact (or those named in ``only``) into ``root``; returns 0, or the first
    non-zero status (130 stops)."""
    release_kwargs = {"quick": quick, **(release_kwargs or {})}
    rows, worst, start = [], 0, time.perf_counter()
    for name, kind, out in targets(root):
        if only and name not in only:
            continue
        if kind == "release" and ARTEFACTS[name].needs_internet:
            print(f"skip {name}: needs the internet (ACS files via folktables)", flush=True)
            rows.append(Timing(name, kind, "skipped: needs internet", 0.0, str(out)))
            continue
        print(f"[all] {name} -> {out}", flush=True)
        run = (lambda: run_release(name, out, release_kwargs)) if kind == "release" else \
            (lambda: run_theory_target(name, out, quick, release_kwargs.get("launcher")))
        status, wall = timed(run)
        rows.append(Timing(name, kind, "done" if status == 0 else f"exit {status}", wall, str(out),
                           os.getloadavg()[0]))
        print(f"[all] {name}: {wall:.1f} s ({'done' if status == 0 else f'exit {status}'})", flush=True)
        worst = worst or status
        write_table(root, rows, time.perf_counter() - start)
        if status == EXIT_INTERRUPTED:
            break
    total = time.perf_counter() - start
    write_table(root, rows, total)
    print(f"[all] total wall time {total:.1f} s; table: {root / 'walltimes.md'}", flush=True)
    return worst
