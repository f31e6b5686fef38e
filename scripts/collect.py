#!/usr/bin/env python
"""Merge the records of a results folder into one tidy CSV: one row per (config, repetition).

    python scripts/collect.py RESULTS_DIR [RESULTS_DIR ...] -o OUT.csv

Columns: the record's scalar fields (algo, dataset, public, eps, delta, rho, T, k, workload_size,
num_queries, run, seed, n_private, n_public, support_size, max_error, mean_error, runtime_s,
per_iter_s, config_hash, delta_bias, public_fraction, ...), then the algorithm options
(``opt_<name>``), dataset options (``dataset_<name>``), public-source options (``public_<name>``)
and scalar trace entries (``trace_<name>``). Temp files of interrupted writes are ignored.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import pandas as pd

from experiments.store import ResultsStore

#: the leading columns, in this order (the issue's required set plus the public parameters).
COLUMNS = ["algo", "dataset", "public", "eps", "delta", "rho", "T", "k", "workload_size",
           "num_queries", "run", "seed", "n_private", "n_public", "support_size", "max_error",
           "mean_error", "runtime_s", "per_iter_s", "config_hash", "delta_bias",
           "public_fraction"]
_NESTED = {"options": "opt_", "dataset_options": "dataset_", "public_options": "public_",
           "trace": "trace_"}
#: public options that are top-level columns already (delta_bias, public_fraction).
_PUBLIC_TOP_LEVEL = ("delta", "fraction")


def flatten(record: dict[str, Any]) -> dict[str, Any]:
    """A record as one flat row (the full ``config`` copy is left out)."""
    row = {k: v for k, v in record.items() if k not in _NESTED and k != "config"}
    for key, prefix in _NESTED.items():
        row.update({prefix + name: value for name, value in record.get(key, {}).items()
                    if not (key == "public_options" and name in _PUBLIC_TOP_LEVEL)})
    return row


def collect(*results_dirs: str | Path) -> pd.DataFrame:
    """All records under the ``results_dirs`` as a DataFrame, required columns first."""
    rows = [flatten(record) for folder in results_dirs
            for record in ResultsStore(folder).records()]
    if not rows:
        raise ValueError(f"no records under {', '.join(map(str, results_dirs))}; run "
                         f"`python run.py results_dir={results_dirs[0]}` first")
    table = pd.DataFrame(rows)
    rest = sorted(c for c in table.columns if c not in COLUMNS)
    table = table.reindex(columns=COLUMNS + rest)
    return table.sort_values(["algo", "dataset", "public", "eps", "T", "config_hash", "seed",
                              "run"], kind="stable").reset_index(drop=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results_dirs", nargs="+", metavar="RESULTS_DIR",
                        help="the runner's results_dir (several are merged)")
    parser.add_argument("-o", "--output", required=True, help="CSV file to write")
    args = parser.parse_args(argv)
    missing = [d for d in args.results_dirs if not Path(d).is_dir()]
    if missing:
        print(f"error: {missing[0]} is not a folder; pass the runner's results_dir",
              file=sys.stderr)
        return 2
    try:
        table = collect(*args.results_dirs)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.output, index=False)
    print(f"{len(table)} records -> {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
