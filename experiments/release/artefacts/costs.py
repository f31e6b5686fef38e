"""Where an artefact's time goes: run times per algorithm, a ``reproduce.py all`` run's wall times.

Without options: an artefact's records' run times summed per algorithm (and per public source
within an algorithm, ``--by public``), beside the artefact's wall time as its summary.md states
it.

    python scripts/artefact_costs.py [results/fig1_nist ...] [--by public]
    python scripts/artefact_costs.py --walltimes ROOT
    python scripts/artefact_costs.py --log FILE

``--walltimes ROOT`` prints the table of a ``reproduce.py all`` run under ROOT: each artefact's
wall time (its ``walltimes.csv``), runs, summed run time, slowest run and runs over 60 s, as the
README's table of wall times prints it; ``--log FILE`` the sweeps of a saved ``reproduce.py``
console output (``... 2>&1 | tee FILE``): per sweep its problem groups, their summed time, the
sweep's wall time and how busy its workers were (summed group time / (workers × wall); the group
times are the log's rounded ones). Reads each folder's ``runs.csv`` (one row per run,
``runtime_s`` = the algorithm's own time, without building the problem or writing the record)
and the ``wall time`` of its ``summary.md``. The run times were measured beside other work on a
shared 2-core machine, so they add up to the CPU-seconds an artefact needs there (two workers
share the two cores: wall ≈ sum / 2).
"""
from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from experiments.console import ArgumentParser, run_or_fail

DEFAULT = ("fig1_nist", "fig1_paper_scale", "fig2_adult_bias", "fig3_nist", "nist_shift", "sota",
           "sota_adult", "table1")
#: columns naming a run's public source, as the records spell them
PUBLIC = ("dataset_region", "dataset_reduced", "public_region", "public_year", "public_fraction",
          "public_shift", "delta_bias")


def wall_time(folder: Path) -> str:
    """The sweep's wall time as the artefact's summary.md states it ('' if not stated)."""
    summary = folder / "summary.md"
    if not summary.is_file():
        return ""
    found = re.search(r"wall time up to collection ([\d.,]+) s", summary.read_text())
    return f"{found.group(1)} s" if found else ""


def costs(folder: Path, by_public: bool) -> pd.DataFrame:
    runs = pd.read_csv(folder / "runs.csv", low_memory=False)
    keys = ["algo"] + ([c for c in PUBLIC if c in runs and runs[c].notna().any()]
                       if by_public else [])
    table = runs.groupby(keys, dropna=False)["runtime_s"].agg(
        runs="size", total_s="sum", mean_s="mean", max_s="max")
    table["share"] = table.total_s / table.total_s.sum()
    return table.sort_values("total_s", ascending=False)


def report(folders: list[str], by_public: bool) -> None:
    for name in folders:
        folder = Path(name if "/" in name else f"results/{name}")
        if not (folder / "runs.csv").is_file():
            raise ValueError(f"{folder} has no runs.csv; pass an artefact folder under results/")
        table = costs(folder, by_public)
        print(f"## {folder.name}: {table.runs.sum()} runs, {table.total_s.sum():,.0f} s of run "
              f"time (≈ {table.total_s.sum() / 2:,.0f} s on two workers); sweep wall time "
              f"{wall_time(folder) or 'not stated'}")
        print(table.round({"total_s": 1, "mean_s": 2, "max_s": 1, "share": 3}).to_string())
        print()


#: a run slower than this misses the project's per-run goal (seconds)
SLOW_RUN_S = 60.0


def walltime_rows(root: Path) -> list[str]:
    """Markdown rows of the ``reproduce.py all`` run under ``root``: artefact, status, wall
    time, the load average when it finished, and from its ``runs.csv`` (release artefacts) the runs, summed run time, slowest run
    (algorithm) and the count of runs over ``SLOW_RUN_S``."""
    table = root / "walltimes.csv"
    if not table.is_file():
        raise ValueError(f"{root} has no walltimes.csv; pass the --out folder of "
                         "`python scripts/reproduce.py all`")
    rows = ["| artefact | status | wall time | load | runs | summed run time | slowest run | "
            "runs > 60 s |", "|---|---|---|---|---|---|---|---|"]
    timings = pd.read_csv(table)
    for line in timings.itertuples():
        load = getattr(line, "load_1min", float("nan"))
        runs_csv = Path(line.out) / "runs.csv"
        cells = ["", "", "", ""]
        if line.kind == "release" and runs_csv.is_file():
            runs = pd.read_csv(runs_csv, usecols=["algo", "runtime_s"])
            slowest = runs.loc[runs.runtime_s.idxmax()]
            cells = [f"{len(runs):,}", f"{runs.runtime_s.sum():,.0f} s",
                     f"{slowest.runtime_s:.1f} s ({slowest.algo})",
                     f"{int((runs.runtime_s > SLOW_RUN_S).sum())}"]
        rows.append(f"| {line.artefact} | {line.status} | {line.wall_s / 60:.1f} min | "
                    f"{'' if pd.isna(load) else f'{load:.1f}'} | " + " | ".join(cells) + " |")
    total = timings.wall_s.sum()
    return rows + ["", f"Total {total / 60:.1f} min ({total / 3600:.2f} h)."]


TARGET = re.compile(r"^\[all\] (\S+) ->")
SWEEP = re.compile(r"to run in (\d+) problem groups on (\d+) worker")
GROUP = re.compile(r"group \d+/\d+ in ([^)]+)\)")
DONE = re.compile(r"sweep done: .*, wall ([^;]+);")


def clock_seconds(text: str) -> float:
    """The seconds of a duration as :func:`experiments.progress.clock` prints it."""
    units = {"h": 3600.0, "m": 60.0, "s": 1.0}
    return sum(float(number) * units[unit]
               for number, unit in re.findall(r"([\d.]+)\s*([hms])", text))


def sweep_rows(log: Path) -> list[str]:
    """Markdown rows of the joblib sweeps of a ``reproduce.py`` console log (module docstring);
    sweeps on Slurm arrays, which have no worker count, are left out."""
    if not log.is_file():
        raise ValueError(f"{log} is not a file; pass the saved output of scripts/reproduce.py")
    rows = ["| artefact | groups | summed group time | wall | workers busy |",
            "|---|---|---|---|---|"]
    name, workers, groups = "", 0, []
    for line in log.read_text().splitlines():
        if found := TARGET.match(line):
            name = found.group(1)
        elif found := SWEEP.search(line):
            workers, groups = int(found.group(2)), []
        elif (found := GROUP.search(line)) and workers:
            groups.append(clock_seconds(found.group(1)))
        elif (found := DONE.search(line)) and workers:
            wall = clock_seconds(found.group(1))
            busy = f"{sum(groups) / (workers * wall):.0%}" if wall > 0 else ""
            rows.append(f"| {name} | {len(groups)} | {sum(groups):,.0f} s | {wall:,.0f} s | "
                        f"{busy} |")
            workers = 0
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", default=list(DEFAULT))
    parser.add_argument("--by", choices=("algo", "public"), default="algo")
    parser.add_argument("--walltimes", metavar="ROOT",
                        help="the table of a `reproduce.py all --out ROOT` run")
    parser.add_argument("--log", metavar="FILE",
                        help="the sweeps of a saved scripts/reproduce.py console output")
    args = parser.parse_args(argv)
    if args.log:
        print("\n".join(run_or_fail(sweep_rows, Path(args.log))))
        return
    if args.walltimes:
        print("\n".join(run_or_fail(walltime_rows, Path(args.walltimes))))
        return
    run_or_fail(report, args.folders, args.by == "public")

