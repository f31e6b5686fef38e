"""What a mechanism released, written for the data user to take away (``save_release=true``).

One folder per (configuration, repetition), beside the records:
``<results_dir>/releases/<config_hash>/seed<seed>-run<run>/``, holding

* ``weights.csv`` — for a release that is a distribution over rows (PMW^Pub and public-only on
  the public support X̂, MWEM on the whole domain X, DualQuery's T records, the best mixture
  reference): one row per support row, its value codes (one column per attribute, in the
  domain's order) and its ``weight`` in the released distribution, written to 17 significant
  digits, i.e. exactly the floats of the release;
* ``records.csv`` — synthetic records (value codes): for the Private-PGM family (AIM, MST,
  JAM-PGM), whose release is a graphical model, ``release_rows`` records drawn from the model
  (null: n, the number of private rows); for a weighted release, ``release_rows`` records drawn
  from the weights when it is set;
* ``weights_labelled.csv``, ``records_labelled.csv`` — for a user's own table (``dataset=csv``,
  ``pubpriv_core.data.frames``): the same rows in the table's column names and labels, a binned
  column's code as its interval [e_i, e_{i+1});
* ``metadata.json`` — the algorithm and its options, the target and spent privacy (ρ, ε, δ),
  the config hash, base seed and repetition, the domain (attribute names and sizes; for a user's
  table also ``labels``, its domain spec: every column's categories or bin edges and
  representative values), the files and what they hold.

Nothing here reads the private data: the files hold the release (and draws from it,
``pubpriv_core.algorithms.release_sample``, which are post-processing with their own random
stream, the third child of ``SeedSequence([seed, run])``; the runner's data and algorithm
streams are the first two). The files are written into a
temporary folder that is renamed into place, so a folder is complete or absent.
"""
from __future__ import annotations

import json
import os
import shutil
import time
import uuid
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import pubpriv_core
from pubpriv_core.algorithms.base import Release
from pubpriv_core.algorithms.release_sample import draw_records
from pubpriv_core.data.frames import FrameDomain
from pubpriv_core.data.labels import decode
from pubpriv_core.harness import ReleaseProblem

#: rows written per block when the support is the whole domain (MWEM)
_BLOCK = 1_000_000


def release_folder(results_dir: str | os.PathLike, chash: str, seed: int, run: int) -> Path:
    """``<results_dir>/releases/<config_hash>/seed<seed>-run<run>``."""
    return Path(results_dir) / "releases" / chash / f"seed{seed}-run{run}"


def sample_stream(seed: int, run: int) -> np.random.Generator:
    """The generator of the records drawn from a release: the third child of
    ``SeedSequence([seed, run])`` (the first two are the runner's data and algorithm streams)."""
    return np.random.default_rng(np.random.SeedSequence([seed, run]).spawn(3)[2])


def save_release(folder: str | os.PathLike, release: Release, problem: ReleaseProblem, *,
                 metadata: dict[str, Any], rows: int | None,
                 rng: np.random.Generator) -> list[Path]:
    """Write ``release`` of ``problem`` into ``folder`` (replaced whole); returns the files.
    ``metadata`` is merged into metadata.json; ``rows`` as ``release_rows`` (see module)."""
    target = Path(folder)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = target.parent / f".tmp-{uuid.uuid4().hex}"
    staging.mkdir()
    try:
        files = _write(staging, release, problem, metadata, rows, rng)
        if target.exists():
            shutil.rmtree(target)
        os.replace(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return [target / name for name in files]


def _write(folder: Path, release: Release, problem: ReleaseProblem, metadata: dict[str, Any],
           rows: int | None, rng: np.random.Generator) -> list[str]:
    domain = problem.private.domain
    labelled = isinstance(domain, FrameDomain)
    files: dict[str, str] = {}
    if release.weights is not None:
        _write_weights(folder, release, domain, labelled)
        files["weights.csv"] = ("the released distribution: one row per support row (value "
                                "codes) with its weight")
        draws = rows or 0
    elif "model" in release.trace:
        draws = problem.n if rows is None else rows
    else:
        raise ValueError(f"{release.algo} released neither weights nor a model; nothing to save")
    if draws or release.weights is None:
        records = draw_records(release, domain, draws, rng)
        _write_records(folder / "records.csv", records, list(domain.attributes))
        files["records.csv"] = f"{draws} synthetic records drawn from the release (value codes)"
        if labelled:
            decode(records, domain).to_csv(folder / "records_labelled.csv", index=False)
    if labelled:
        for name in list(files):
            files[name.replace(".csv", "_labelled.csv")] = (
                f"{name} in the table's own column names and labels (a bin as its interval)")
    meta = {**metadata, "algo": release.algo, "rho": float(release.rho),
            "eps_spent": float(release.eps), "delta": float(release.delta),
            "domain": dict(zip(domain.attributes, map(int, domain.shape))), "files": files,
            "release": "weights over rows" if release.weights is not None else
            "graphical model (records drawn from it)",
            "version": pubpriv_core.__version__, "created": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    if labelled:
        meta["labels"] = domain.spec()
    (folder / "metadata.json").write_text(json.dumps(meta, indent=1, sort_keys=True))
    return [*files, "metadata.json"]


def _write_weights(folder: Path, release: Release, domain, labelled: bool) -> None:
    """weights.csv (codes, weight), written in blocks of rows; with ``labelled`` also
    weights_labelled.csv (the same rows in the table's labels)."""
    columns = list(domain.attributes)
    weights = np.asarray(release.weights, dtype=float)
    with ExitStack() as stack:
        names = ["weights.csv", "weights_labelled.csv"] if labelled else ["weights.csv"]
        handles = [stack.enter_context((folder / name).open("w")) for name in names]
        for handle in handles:
            handle.write(",".join([*columns, "weight"]) + "\n")
        for start in range(0, weights.size, _BLOCK):
            block = np.arange(start, min(start + _BLOCK, weights.size))
            rows = (np.asarray(release.support)[block] if release.support is not None else
                    np.stack(np.unravel_index(block, domain.shape), axis=1))
            _append(handles[0], pd.DataFrame(rows, columns=columns), weights[block])
            if labelled:
                _append(handles[1], decode(rows, domain), weights[block])


def _append(handle, rows: pd.DataFrame, weights: np.ndarray) -> None:
    rows.assign(weight=weights).to_csv(handle, header=False, index=False, float_format="%.17g")


def _write_records(path: Path, records: np.ndarray, columns: list[str]) -> None:
    pd.DataFrame(np.asarray(records, dtype=np.int64), columns=columns).to_csv(path, index=False)


def load_release(folder: str | os.PathLike) -> dict[str, Any]:
    """A saved release read back: ``metadata`` (dict), ``weights`` and ``records`` (DataFrames,
    None when absent)."""
    folder = Path(folder)
    read = {name: pd.read_csv(folder / f"{name}.csv") if (folder / f"{name}.csv").exists()
            else None for name in ("weights", "records")}
    return {"metadata": json.loads((folder / "metadata.json").read_text()), **read}
