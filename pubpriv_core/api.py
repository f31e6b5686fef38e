"""The harness from Python, without the command line: load data and a public source, build a
workload, run any algorithm with a budget, read its answers, errors and privacy spent.

    from pubpriv_core import api

    data = api.load("synthetic", "resample")                 # private rows + public source
    workload = api.workload(data, k=3, size=64)               # 64 random 3-way marginals
    problem = api.problem(data, workload)
    result = api.run("pmwpub", problem, eps=1.0, T=50)       # any name of api.algorithms()
    result.errors["max_error"], result.rho, result.eps
    api.save(result, problem, "my_release")                   # weights.csv, metadata.json

Your own table: ``api.from_frames(private_df, public_df, domain)`` in place of ``api.load``, and
``api.records(result, problem, n)`` for synthetic records in its column names and labels.

Every step is the runner's own code, in the library beneath it: the defaults and value rules are
the declarations ``run.py`` derives its config from (:mod:`pubpriv_core.specs`,
:mod:`pubpriv_core.algorithms.settings`), the private/public split is
:func:`pubpriv_core.problems.split` with the runner's random streams, and the release is
:func:`pubpriv_core.harness.run_algorithm` with the harness's ledger. So ``api.run`` with the same
config, seed and repetition returns the numbers ``run.py`` stores.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from pubpriv_core.harness import ReleaseProblem
from pubpriv_core.job import Job
from pubpriv_core.options import defaults as option_defaults
from pubpriv_core.options import value_errors
from pubpriv_core.specs import DATASETS, PUBLIC_SOURCES, BudgetSpec
from pubpriv_core.algorithms.base import Release
from pubpriv_core.data.domain import Dataset
from pubpriv_core.data.public import PublicSource
from pubpriv_core.queries import MarginalWorkload


@dataclass
class Data:
    """A private dataset and the public source built beside it (what ``dataset=`` and
    ``public=`` of ``run.py`` select; None: no public data), with the config they came from."""

    private: Dataset
    public: PublicSource | None
    config: dict[str, Any]


@dataclass
class Result:
    """One release: the algorithm's :class:`~pubpriv_core.algorithms.base.Release` (weights,
    support, answers, trace), its errors against the private answers and the privacy spent."""

    release: Release
    errors: dict[str, float]
    seed: int = 0
    run: int = 0

    @property
    def answers(self) -> np.ndarray:
        """q(A) for every query of the workload."""
        return self.release.answers

    @property
    def rho(self) -> float:
        """zCDP ρ spent (0 for the non-private references)."""
        return float(self.release.rho)

    @property
    def eps(self) -> float:
        """ε spent at :attr:`delta`."""
        return float(self.release.eps)

    @property
    def delta(self) -> float:
        return float(self.release.delta)


def algorithms() -> list[str]:
    """Every algorithm ``run`` accepts: the built-in ones and installed plugins."""
    from pubpriv_core.algorithms import ALGORITHMS, register_plugins

    register_plugins()
    return sorted(ALGORITHMS)


def defaults(group: str, option: str) -> dict[str, Any]:
    """The default options of ``group`` (``dataset``, ``public``, ``algo``) option ``option``,
    e.g. ``defaults("algo", "aim")``: the runner's, read from the same declarations."""
    return {k: v for k, v in option_defaults(_declaration(group, option)).items()
            if k not in ("name", "kind")}


def load(dataset: str = "synthetic", public: str = "resample", *, seed: int = 0, run: int = 0,
         data_root: str | Path | None = None, dataset_options: dict | None = None,
         public_options: dict | None = None) -> Data:
    """The private dataset and public source of repetition ``run`` of base seed ``seed``.

    ``dataset`` and ``public`` name config options (``adult``, ``nist_acs``, ``acs``,
    ``synthetic``; ``resample``, ``biased``, ``dataset``); ``*_options`` set their fields, e.g.
    ``public_options={"delta": 0.1}``. Values are checked by the runner's rules; a missing file
    raises :class:`~pubpriv_core.data.paths.DataUnavailableError` naming it."""
    from pubpriv_core.problems import data_context, repetition_streams, split

    dataset_cfg = {"name": dataset, **_values("dataset", dataset, dataset_options or {})}
    public_cfg = {"kind": public, **_values("public", public, public_options or {})}
    _check_values(BudgetSpec, {"seed": seed}, "")
    data_rng, _ = repetition_streams(seed, run)
    with data_context(None if data_root is None else str(data_root)):
        private, source = split(dataset_cfg, public_cfg, data_rng)
    cfg = {"dataset": dataset_cfg, "public": public_cfg, "seed": seed,
           "data_root": None if data_root is None else str(data_root), "run": run}
    return Data(private, source, cfg)


def from_frames(private: pd.DataFrame, public: pd.DataFrame | None = None, domain=None, *,
                show: bool = True) -> Data:
    """Your own table as the private dataset, and another as the public source (None: no public
    data; algorithms that need it are then refused).

    ``domain`` fixes each column's categories or bins: a mapping column -> entry, a JSON/YAML
    file, or the ``private.domain`` of an earlier ``Data`` (entries: ``pubpriv_core.data.frames``);
    what it leaves open is read from ``public``, never from ``private``. The domain is printed
    unless ``show`` is false; a private value outside it is a one-line ``ValueError``."""
    from pubpriv_core.data.frames import encode_frames
    from pubpriv_core.data.public import from_dataset

    tables = encode_frames(private, public, domain)
    if show:
        print(tables.domain.describe())
    source = None if tables.public is None else from_dataset(tables.public, kind="frame")
    return Data(tables.private, source, {"dataset": {"name": "frames",
                                                     "domain": tables.domain.spec()},
                                         "public": {"kind": "frame" if public is not None
                                                    else "none"}})


def workload(data: Data | Dataset, k: int = 3, size: int | None = 64,
             seed: int = 0) -> MarginalWorkload:
    """``size`` k-way marginals drawn without replacement with ``seed`` (None: all C(d, k)),
    as ``workload.k``, ``workload.size`` and ``workload.seed`` of the runner."""
    private = data.private if isinstance(data, Data) else data
    return MarginalWorkload.random(private.domain, k, size, seed)


def problem(data: Data, workload: MarginalWorkload) -> ReleaseProblem:
    """The release problem: private data, workload and the public support with A_0."""
    from pubpriv_core.problems import release_problem

    return release_problem(data.private, workload, data.public)


def run(algorithm: str, problem: ReleaseProblem, *, eps: float = 1.0,
        delta: float | None = None, T: int = 50, seed: int = 0, run: int = 0,
        **options) -> Result:
    """Run ``algorithm`` with target (``eps``, ``delta``; None: 1/n²) and ``T`` rounds, its
    options at their declared defaults unless given. Random draws come from the algorithm stream
    of repetition ``run`` of ``seed``, as in the runner. Bad values raise ``ValueError`` with
    the runner's one-line message."""
    from pubpriv_core.algorithms import check_algorithm
    from pubpriv_core.harness import release_job
    from pubpriv_core.problems import repetition_streams

    if algorithm not in algorithms():
        raise ValueError(f"unknown algorithm {algorithm!r}; choose one of "
                         f"{', '.join(algorithms())}")
    settings = _values("algo", algorithm, options)
    _check_values(BudgetSpec, {"eps": eps, "delta": delta, "T": T, "seed": seed}, "")
    job = Job.from_config({"dataset": {}, "public": {}, "workload": {},
                           "algo": {"name": algorithm, **settings}, "eps": float(eps),
                           "delta": None if delta is None else float(delta), "T": int(T),
                           "seed": int(seed)}, problem.n)
    check_algorithm(algorithm, problem.public, eps=job.eps, delta=job.delta, T=job.T,
                    **settings)
    _, algo_rng = repetition_streams(seed, run)
    release = release_job(job, problem, algo_rng)
    return Result(release, release.errors(problem.true_answers), seed, run)


def save(result: Result, problem: ReleaseProblem, folder: str | Path, *,
         rows: int | None = None) -> list[Path]:
    """Write what ``result`` released into ``folder``, as ``save_release=true`` does in the
    runner (:mod:`pubpriv_core.release_files`): ``weights.csv`` for a distribution over rows,
    ``records.csv`` with ``rows`` synthetic records (null: n for a graphical model, none for
    weights), ``metadata.json`` with the privacy spent. Returns the files."""
    from pubpriv_core.release_files import sample_stream, save_release

    metadata = {"seed": result.seed, "run": result.run, "n_private": problem.n}
    return save_release(folder, result.release, problem, metadata=metadata, rows=rows,
                        rng=sample_stream(result.seed, result.run))


def records(result: Result, problem: ReleaseProblem, n: int | None = None,
            seed: int | np.random.Generator | None = None, *,
            numeric: str = "interval") -> pd.DataFrame:
    """``n`` synthetic records (None: the n private rows) drawn from what ``result`` released —
    its weights over rows, or its graphical model — with generator ``seed`` (an int, a
    Generator, or None: the stream ``save`` draws with, so the same records). For a table of
    ``from_frames`` they come in its column names and labels, a binned column as the bin's
    ``pandas.Interval`` or, with ``numeric="value"``, its representative value."""
    from pubpriv_core.release_files import sample_stream
    from pubpriv_core.algorithms.release_sample import draw_records
    from pubpriv_core.data.labels import decode

    rng = (sample_stream(result.seed, result.run) if seed is None
           else np.random.default_rng(seed))
    domain = problem.private.domain
    return decode(draw_records(result.release, domain, problem.n if n is None else n, rng),
                  domain, numeric)


def _declaration(group: str, option: str) -> type | None:
    """The dataclass that declares the options of ``group`` option ``option``."""
    from pubpriv_core.algorithms import options_of

    if group == "algo":
        return options_of(option)
    table = {"dataset": DATASETS, "public": PUBLIC_SOURCES}.get(group)
    if table is None:
        raise ValueError(f"unknown group {group!r}; choose one of dataset, public, algo")
    if option not in table:
        raise ValueError(f"unknown {group} {option!r}; choose one of {', '.join(table)}")
    return table[option]


def _values(group: str, option: str, given: dict[str, Any]) -> dict[str, Any]:
    """The options of ``group`` option ``option``: the defaults with ``given`` in place,
    checked by their rules (an unknown option is refused as the runner refuses it)."""
    declared = _declaration(group, option)
    known = defaults(group, option)
    for key in given:
        if key not in known:
            raise ValueError(f"{option} has no option {key!r}; its options: "
                             f"{', '.join(known) or 'none'}")
    values = {**known, **given}
    if declared is not None:
        _check_values(declared, values, f"{group}.")
    return values


def _check_values(declared: type, values: dict[str, Any], prefix: str) -> None:
    for problem in value_errors(declared, values, prefix):
        raise ValueError(problem)
