"""Do two results folders hold the same runs? Their records matched run by run, errors compared.

A and B are each a runner's ``results_dir`` (e.g. an artefact regenerated from empty records
against an earlier run's folder, or the same artefact swept by joblib and by Slurm) or an
artefact's folder with its collected ``runs.csv`` and no records (e.g. the committed
``results/fig2_adult_bias``, read to the bit). Records are matched on (config hash, seed,
repetition); a pair differs when its max or mean error differ by more than ``--tol`` (default 0:
the same bits; NaN on both sides counts as equal). Prints the counts, the runs found on one side
only, and each differing pair with both values; exit status 0 when no common pair differs, 1 when
one does, 2 on bad input (a path that is no folder, a folder without records). Records are read
by :func:`experiments.release.running.collect.collect` (damaged files skipped with a
``warning:`` line).

    python scripts/compare_records.py A B [--tol 0]
"""
from __future__ import annotations

import sys

import pandas as pd

from experiments.console import ArgumentParser, non_negative_float, run_or_fail
from experiments.outputs import readable_folder
from experiments.release.running.collect import collect

KEY = ["config_hash", "seed", "run"]
COMPARED = ["max_error", "mean_error"]


def compare(a: str, b: str, tol: float) -> tuple[pd.DataFrame, int, int, int]:
    """(the common pairs that differ, with ``algo`` and both sides' errors; runs only in A; runs
    only in B; common pairs)."""
    left, right = (_records(folder) for folder in (a, b))
    merged = left.merge(right, on=["algo", *KEY], how="outer", suffixes=("_a", "_b"),
                        indicator=True)
    common = merged[merged["_merge"] == "both"]
    differs = pd.Series(False, index=common.index)
    for column in COMPARED:
        a_side, b_side = common[f"{column}_a"], common[f"{column}_b"]
        differs |= ~(((a_side - b_side).abs() <= tol) | (a_side.isna() & b_side.isna()))
    counts = merged["_merge"].value_counts()
    return (common[differs].drop(columns="_merge"), int(counts.get("left_only", 0)),
            int(counts.get("right_only", 0)), len(common))


def _records(folder: str) -> pd.DataFrame:
    """The folder's records (key, algorithm and errors), or its ``runs.csv`` when it holds no
    records; a ``warning:`` line on stderr for each damaged record file, which is skipped."""
    path = readable_folder(folder, "a results folder")
    if (path / "runs.csv").is_file() and not (path / "records").is_dir():
        return pd.read_csv(path / "runs.csv")[["algo", *KEY, *COMPARED]]
    damaged: list[str] = []
    table = collect(path, damaged=damaged)
    for line in damaged:
        print(f"warning: {line}; skipped", file=sys.stderr)
    return table[["algo", *KEY, *COMPARED]]


def report(a: str, b: str, tol: float) -> int:
    differing, only_a, only_b, common = compare(a, b, tol)
    print(f"{common} runs in both, {only_a} only in {a}, {only_b} only in {b}; "
          f"{len(differing)} differ (max or mean error, tolerance {tol:g})")
    if len(differing):
        with pd.option_context("display.width", 160, "display.float_format", "{:.10g}".format):
            print(differing.to_string(index=False))
    return 1 if len(differing) else 0


def main(argv: list[str] | None = None) -> int:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", metavar="A", help="a results_dir (or an artefact's runs.csv folder)")
    parser.add_argument("b", metavar="B", help="the folder to compare it with")
    parser.add_argument("--tol", type=non_negative_float, default=0.0,
                        help="largest difference of an error counted as equal (default 0)")
    args = parser.parse_args(argv)
    return run_or_fail(report, args.a, args.b, args.tol)

