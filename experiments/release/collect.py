"""Merge the records of results folders into one tidy CSV: one row per (config, repetition).

Columns: the record's scalar fields (algo, dataset, public, eps, delta, rho, T, k, workload_size,
num_queries, run, seed, n_private, n_public, support_size, max_error, mean_error, runtime_s,
per_iter_s, config_hash, delta_bias, public_fraction, ...), then the algorithm options
(``opt_<name>``), dataset options (``dataset_<name>``), public-source options (``public_<name>``)
and scalar trace entries (``trace_<name>``). Temp files of interrupted writes are ignored. A damaged
record file (empty, truncated, foreign, missing fields) is named in a ``warning:`` line on stderr
and skipped; in strict mode any damaged file is an error (exit 1, no CSV written).
"""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pandas as pd

from experiments.release.store import ResultsStore, scan

#: the leading columns, in this order (the required set plus the public parameters).
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


def collect(*results_dirs: str | Path, damaged: list[str] | None = None) -> pd.DataFrame:
    """All usable records under the ``results_dirs`` as a DataFrame, required columns first;
    one line per damaged file is appended to ``damaged``."""
    rows = []
    for folder in results_dirs:
        records, bad = scan(ResultsStore(folder))
        rows += [flatten(record) for record in records]
        if damaged is not None:
            damaged += bad
    if not rows:
        raise ValueError(f"no records under {', '.join(map(str, results_dirs))}; run "
                         f"`python run.py results_dir={results_dirs[0]}` first")
    table = pd.DataFrame(rows)
    rest = sorted(c for c in table.columns if c not in COLUMNS)
    table = table.reindex(columns=COLUMNS + rest)
    return table.sort_values(["algo", "dataset", "public", "eps", "T", "config_hash", "seed",
                              "run"], kind="stable").reset_index(drop=True)


def write_csv(results_dirs: list[str], output: str, strict: bool = False) -> int:
    """Collect ``results_dirs`` into the CSV ``output`` (written atomically); returns the exit
    status: 0, 2 for bad input (no folder, no records), 1 for damaged records under ``strict``
    or a failed write."""
    missing = [d for d in results_dirs if not Path(d).is_dir()]
    if missing:
        print(f"error: {missing[0]} is not a folder; pass the runner's results_dir",
              file=sys.stderr)
        return 2
    damaged: list[str] = []
    try:
        table = collect(*results_dirs, damaged=damaged)
    except ValueError as err:
        table = None
        problem = str(err)
    for line in damaged:
        print(f"error: {line}" if strict else f"warning: {line}; skipped", file=sys.stderr)
    if strict and damaged:
        print(f"error: {len(damaged)} damaged record file(s); re-run the sweep (it moves them to "
              "records/.corrupt/ and recomputes them) or drop --strict", file=sys.stderr)
        return 1
    if table is None:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    path = Path(output)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial")
    try:
        table.to_csv(partial, index=False)
        os.replace(partial, path)
    except OSError as err:
        partial.unlink(missing_ok=True)
        print(f"error: cannot write {path}: {err.strerror}; free space or pick another -o",
              file=sys.stderr)
        return 1
    print(f"{len(table)} records -> {output}")
    return 0
