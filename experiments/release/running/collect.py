"""Merge the records of results folders into one tidy CSV: one row per (config, repetition).

Columns: the record's scalar fields (algo, dataset, public, eps, delta, rho, T, k, workload_size,
num_queries, run, seed, n_private, n_public, support_size, max_error, mean_error, runtime_s,
per_iter_s, config_hash, delta_bias, public_fraction, ...), then the algorithm options
(``opt_<name>``), dataset options (``dataset_<name>``), public-source options (``public_<name>``)
and scalar trace entries (``trace_<name>``). Temp files of interrupted writes are ignored. A damaged
record file (empty, truncated, foreign, missing fields, unreadable, or an entry named like a
record that is no regular file) is named in a ``warning:`` line on stderr and skipped, a record
whose errors are NaN or infinite in a ``warning:`` line and kept; in strict mode either is an
error (exit 1, no CSV written). The output path is checked before anything is read.
"""
from __future__ import annotations

import math
import os
import sys
from pathlib import Path
from typing import Any

import pandas as pd

from experiments.console import UserError
from experiments.outputs import readable_folder, writable_file
from experiments.release.running.store import ResultsStore, scan

#: the leading columns, in this order (the required set plus the public parameters).
COLUMNS = ["algo", "dataset", "public", "eps", "delta", "rho", "T", "k", "workload_size",
           "num_queries", "run", "seed", "n_private", "n_public", "support_size", "max_error",
           "mean_error", "runtime_s", "per_iter_s", "config_hash", "delta_bias",
           "public_fraction"]
_NESTED = {"options": "opt_", "dataset_options": "dataset_", "public_options": "public_",
           "trace": "trace_"}
#: the error fields of a record (:func:`pubpriv_core.queries.errors.error_summary`, and the same
#: of the last iterate), which ``--strict`` requires finite.
ERROR_FIELDS = ("max_error", "mean_error", "rmse", "last_max_error", "last_mean_error",
                "last_rmse")
#: public options that are top-level columns already (delta_bias, public_fraction).
_PUBLIC_TOP_LEVEL = ("delta", "fraction")


def flatten(record: dict[str, Any]) -> dict[str, Any]:
    """A record as one flat row (the full ``config`` copy is left out)."""
    row = {k: v for k, v in record.items() if k not in _NESTED and k != "config"}
    for key, prefix in _NESTED.items():
        row.update({prefix + name: value for name, value in record.get(key, {}).items()
                    if not (key == "public_options" and name in _PUBLIC_TOP_LEVEL)})
    return row


def collect(*results_dirs: str | Path, damaged: list[str] | None = None,
            non_finite: list[str] | None = None) -> pd.DataFrame:
    """All usable records under the ``results_dirs`` as a DataFrame, required columns first;
    one line per damaged file is appended to ``damaged``, one per record with a NaN or infinite
    error to ``non_finite`` (such records are kept)."""
    rows = []
    for folder in results_dirs:
        store = ResultsStore(folder)
        records, bad = scan(store)
        rows += [flatten(record) for record in records]
        if damaged is not None:
            damaged += bad
        if non_finite is not None:
            non_finite += [f"record {store.path(r['config_hash'], r['seed'], r['run'])}: "
                           f"{', '.join(fields)} not finite" for r in records
                           if (fields := non_finite_errors(r))]
    if not rows:
        raise ValueError(f"no records under {', '.join(map(str, results_dirs))}; run "
                         f"`python run.py results_dir={results_dirs[0]}` first")
    table = pd.DataFrame(rows)
    rest = sorted(c for c in table.columns if c not in COLUMNS)
    table = table.reindex(columns=COLUMNS + rest)
    return table.sort_values(["algo", "dataset", "public", "eps", "T", "config_hash", "seed",
                              "run"], kind="stable").reset_index(drop=True)


def non_finite_errors(record: dict[str, Any]) -> list[str]:
    """The error fields of ``record`` that are present and not finite numbers (NaN, ±inf)."""
    return [f"{key}={record[key]!r}" for key in ERROR_FIELDS if key in record
            and not (isinstance(record[key], (int, float)) and math.isfinite(record[key]))]


def write_csv(results_dirs: list[str], output: str, strict: bool = False) -> int:
    """Collect ``results_dirs`` into the CSV ``output`` (written atomically); returns the exit
    status: 0, 2 for bad input (no folder, no records, an ``output`` that cannot be written —
    checked before anything is read), 1 for damaged records or non-finite errors under
    ``strict`` or a failed write."""
    try:
        for folder in results_dirs:
            readable_folder(folder, "RESULTS_DIR")
        path = writable_file(output, "-o")
        if len({Path(d).resolve() for d in results_dirs}) < len(results_dirs):
            raise UserError(f"a RESULTS_DIR is named twice in {' '.join(results_dirs)} (its "
                            "records would be counted twice); name each folder once")
    except UserError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    damaged: list[str] = []
    non_finite: list[str] = []
    try:
        table = collect(*results_dirs, damaged=damaged, non_finite=non_finite)
    except ValueError as err:
        table = None
        problem = str(err)
    for lines, kept in ((damaged, "skipped"), (non_finite, "kept")):
        for line in lines:
            print(f"error: {line}" if strict else f"warning: {line}; {kept}", file=sys.stderr)
    if strict and (damaged or non_finite):
        print(f"error: {len(damaged)} damaged record file(s), {len(non_finite)} record(s) with "
              "non-finite errors; re-run the sweep (it moves damaged files to records/.corrupt/ "
              "and recomputes them; delete the others first) or drop --strict", file=sys.stderr)
        return 1
    if table is None:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    return _write_atomically(table, path)


def _write_atomically(table: pd.DataFrame, path: Path) -> int:
    partial = path.with_name(f".{path.name}.partial")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        table.to_csv(partial, index=False)
        os.replace(partial, path)
    except OSError as err:
        partial.unlink(missing_ok=True)
        print(f"error: cannot write {path}: {err.strerror or err}; free space or pick another -o",
              file=sys.stderr)
        return 1
    print(f"{len(table)} records -> {path}")
    return 0
