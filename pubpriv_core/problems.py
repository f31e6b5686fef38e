"""Build — and cache in-process — the :class:`ReleaseProblem` of one (config, repetition).

Random streams (common random numbers). Repetition ``run`` of base seed ``seed`` owns
``SeedSequence([seed, run])``, spawned into two children: the *data* stream draws the
private/public split and the public sample, the *algorithm* stream drives the mechanism. The data
stream depends on (seed, run) only — not on the algorithm, ε or T — so every algorithm and budget
of a sweep is compared on the same private/public split, and no number depends on ``n_jobs`` or
on the order in which repetitions run.

Caching. A Hydra multirun with the basic launcher runs its jobs one after another in this process,
so datasets (via the data layer's cache) and problems — with their true answers and public
answerer — are kept in an LRU cache keyed explicitly by (dataset, public, workload, seed, run,
data root) and reused across ε, T and algorithms. The cache is bounded by memory (``cache_gb``),
not by count, since one problem takes from kilobytes (synthetic) to ≈ 200 MB (full ACS, W = 4096).
"""
from __future__ import annotations

import json
from collections import OrderedDict
from contextlib import contextmanager
from typing import Any, Iterator, Mapping

import numpy as np

from pubpriv_core.harness import ReleaseProblem
from pubpriv_core.job import Job
from pubpriv_core.data import load_dataset, public as public_sources
from pubpriv_core.data.csv_files import load_public_csv
from pubpriv_core.data.paths import data_root, set_data_root
from pubpriv_core.queries import MarginalWorkload
from pubpriv_core.queries.engine import ID_TABLE_MAX_ENTRIES, TABLE_CELLS_MAX_ENTRIES
from pubpriv_core.queries.plan import MAX_TABLE_CELLS, cell_budget

#: memory budget of the problem cache per process (an ADULT 3-way W=256 problem ≈ 20 MB).
DEFAULT_CACHE_BYTES = 4 * 2 ** 30


def repetition_streams(seed: int, run: int) -> tuple[np.random.Generator, np.random.Generator]:
    """(data, algorithm) generators of repetition ``run``: children of SeedSequence([seed, run])."""
    data_seq, algo_seq = np.random.SeedSequence([seed, run]).spawn(2)
    return np.random.default_rng(data_seq), np.random.default_rng(algo_seq)


@contextmanager
def data_context(root: str | None) -> Iterator[None]:
    """Use ``root`` as the data root inside the block (``None``: keep env/cache lookup)."""
    if root is None:
        yield
        return
    set_data_root(root)
    try:
        yield
    finally:
        set_data_root(None)


def problem_key(cfg: Mapping[str, Any], run: int) -> str:
    """The explicit cache key: every input of the problem of repetition ``run`` (the config's
    ``dataset``, ``public``, ``workload`` and ``seed``, and the data root), as canonical
    JSON."""
    parts = {"dataset": cfg["dataset"], "public": cfg["public"], "workload": cfg["workload"],
             "seed": cfg["seed"], "run": run, "data_root": str(data_root())}
    return json.dumps(parts, sort_keys=True)


class ProblemCache:
    """Least-recently-used problems, evicted once their estimated memory exceeds ``max_bytes``
    (the newest problem is always kept)."""

    def __init__(self, max_bytes: int = DEFAULT_CACHE_BYTES):
        self.max_bytes = max_bytes
        self._items: OrderedDict[str, tuple[ReleaseProblem, int]] = OrderedDict()

    def get(self, key: str) -> ReleaseProblem:
        if key in self._items:
            self._items.move_to_end(key)
            return self._items[key][0]
        problem = make_problem(key)
        self._items[key] = (problem, problem_bytes(problem))
        while len(self._items) > 1 and self.nbytes > self.max_bytes:
            self._items.popitem(last=False)
        return problem

    @property
    def nbytes(self) -> int:
        return sum(size for _, size in self._items.values())

    def __len__(self) -> int:
        return len(self._items)


def problem_bytes(problem: ReleaseProblem) -> int:
    """Memory of a problem once its true answers and public answerer exist: private records,
    support records and codes, the answer vectors and (upper estimates of) the plan's
    table-to-member maps and the rows' kept ids (4-byte query ids, or with super-marginals
    2-byte table cells)."""
    support = problem.support_size * len(problem.private.domain)
    grouped = cell_budget(problem.support_size, problem.workload) > 0
    maps = 4 * (problem.workload.num_marginals * MAX_TABLE_CELLS if grouped
                else problem.workload.num_queries)
    entries = problem.support_size * problem.workload.num_marginals
    cells = 2 * min(entries, TABLE_CELLS_MAX_ENTRIES) if grouped else 0
    ids = 4 * entries if not grouped and entries <= ID_TABLE_MAX_ENTRIES else 0
    return (problem.private.records.nbytes + 9 * support + 16 * problem.workload.num_queries
            + maps + cells + ids)


_CACHE = ProblemCache()


def set_cache_budget(gigabytes: float) -> None:
    """Memory budget of this process's problem cache (the runner passes ``cache_gb``)."""
    _CACHE.max_bytes = int(gigabytes * 2 ** 30)


def build_problem(job: Job, run: int) -> ReleaseProblem:
    """The problem of repetition ``run`` of ``job`` (cached)."""
    return config_problem(job.config, run)


def config_problem(cfg: Mapping[str, Any], run: int) -> ReleaseProblem:
    """The problem of repetition ``run`` of a checked run config, before its job exists (the
    checks learn n from repetition 0's problem); the same cache entry as :func:`build_problem`."""
    return _CACHE.get(problem_key(cfg, run))


def make_problem(key: str) -> ReleaseProblem:
    """Build the problem named by a :func:`problem_key` (no caching)."""
    parts = json.loads(key)
    data_rng, _ = repetition_streams(parts["seed"], parts["run"])
    private, source = split(parts["dataset"], parts["public"], data_rng)
    spec = parts["workload"]
    workload = MarginalWorkload.random(private.domain, spec["k"], spec["size"], spec["seed"])
    return release_problem(private, workload, source)


def release_problem(private, workload: MarginalWorkload, source) -> ReleaseProblem:
    """The problem of ``private`` and ``workload`` with the public ``source`` (None: none)."""
    if source is None:
        return ReleaseProblem(private, workload)
    return ReleaseProblem(private, workload, public_support=source.support.records,
                          public_weights=source.weights, public_rows=source.n_rows)


def load(dataset_cfg: dict[str, Any]):
    """``load_dataset(name, **options)`` for a dataset config node."""
    options = {k: v for k, v in dataset_cfg.items() if k != "name"}
    return load_dataset(dataset_cfg["name"], **options)


def split(dataset_cfg: dict[str, Any], public_cfg: dict[str, Any], rng: np.random.Generator):
    """(private Dataset, PublicSource) for the ``public`` config (Liu et al. 2021, §5.2); the
    source is None for ``public=none``."""
    dataset = load(dataset_cfg)
    kind = public_cfg["kind"]
    if kind == "none":
        return dataset, None
    if kind in ("resample", "biased"):
        shares = {"private_share": public_cfg["private_share"],
                  "public_share": public_cfg["public_share"],
                  "disjoint": public_cfg.get("disjoint", False)}
        if kind == "resample":
            pair = public_sources.resample(dataset, rng, **shares)
        else:
            pair = public_sources.biased(dataset, rng, delta=public_cfg["delta"],
                                         attribute=public_cfg["attribute"],
                                         value=public_cfg["value"], **shares)
        private, source = pair.private, pair.public
    elif kind == "dataset":
        private = dataset
        source = public_sources.from_dataset(load(other_dataset(dataset_cfg, public_cfg)))
    elif kind == "csv":
        private = dataset
        source = public_sources.from_dataset(load_public_csv(public_cfg["path"],
                                                             dataset.domain), kind="csv")
    else:
        raise ValueError(f"unknown public kind {kind!r}; choose resample, biased, dataset, csv "
                         "or none")
    if source.support.domain != private.domain:
        raise ValueError("the public dataset's domain differs from the private one's; pick a "
                         "public dataset with the same attributes (and the same `reduced`)")
    if public_cfg["fraction"] < 1:
        source = public_sources.fraction(source, public_cfg["fraction"], rng)
    return private, source


def other_dataset(dataset_cfg: dict[str, Any], public_cfg: dict[str, Any]) -> dict[str, Any]:
    """The public dataset's config: the private one with the non-null public fields replacing it."""
    name = public_cfg.get("name") or dataset_cfg["name"]
    base = dict(dataset_cfg) if name == dataset_cfg["name"] else {"name": name}
    for key, value in public_cfg.items():
        if key not in ("kind", "fraction", "name") and value is not None:
            base[key] = value
    base["name"] = name
    if base == dataset_cfg:
        raise ValueError("public=dataset names the private dataset itself; set e.g. "
                         "public.year=2018 or public.region=national")
    return base
