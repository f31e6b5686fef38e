"""One resolved job: everything a sweep's job is, typed and frozen, built once at the edge.

A :class:`Job` is made from a composed run config (``run.py``, ``reproduce``, a benchmark) or
from the Python API's arguments (:mod:`pubpriv_core.api`), after its checks, with the private
size n of its problem: so the ε it spends is resolved once — ``eps``, or ε = eps_equiv · n_ref / n
from the paper-equivalent ``eps_equiv`` (the same n·ε as n_ref rows) — and so are δ (null: 1/n²)
and the zCDP budget ρ(ε, δ). Everything below the edge takes the job: the problem it runs on
(:func:`pubpriv_core.problems.build_problem`), its release
(:func:`pubpriv_core.harness.release_job`), its record and where it is stored
(:attr:`Job.config`, its hash). At the algorithm boundary the job meets
the private data's handle: the harness opens the ledger for (:attr:`eps`, :attr:`delta`).
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Mapping

from pubpriv_core.privacy.accounting import default_delta
from pubpriv_core.privacy.ledger import budget_rho

#: top-level keys left out of the config hash: where or how to run, and the base seed (records
#: are stored by (hash, seed, repetition))
RUNTIME_KEYS = ("runs", "seed", "n_jobs", "results_dir", "data_root", "force", "progress",
                "cache_gb", "save_release", "release_rows")
#: fields added after records existed, each with the default that leaves a record's numbers as
#: they were (dotted key -> default): a config holding that default hashes as it did before the
#: field existed, so stored records keep their hashes.
NEUTRAL_DEFAULTS: dict[str, object] = {"eps_equiv": None, "n_ref": 100_000,
                                       "algo.output": "paper", "algo.replay_variant": "paper",
                                       "dataset.draw": 0, "public.disjoint": False,
                                       "algo.quality_check_eps": 0.0}


def matched_eps(eps_equiv: float, n_ref: int, n: int) -> float:
    """ε = eps_equiv · n_ref / n: the same n·ε as ``n_ref`` rows at ``eps_equiv``."""
    if n < 1:
        raise ValueError(f"the private dataset has {n} rows; eps_equiv needs at least one")
    return float(eps_equiv) * float(n_ref) / float(n)


class FrozenDict(dict):
    """A dict that refuses to change (picklable, JSON-serialisable, read like a dict)."""

    def _refuse(self, *args, **kwargs):
        raise TypeError("a job is frozen; build another job to change it")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _refuse

    def __reduce__(self):
        return FrozenDict, (dict(self),)


def _frozen(value: Any) -> Any:
    if isinstance(value, Mapping):
        return FrozenDict({k: _frozen(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    return value


def plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [plain(v) for v in value]
    return value


@dataclass(frozen=True)
class Outputs:
    """Where and how a job runs (none of it changes a record's numbers)."""

    results_dir: str = "runs"
    data_root: str | None = None
    save_release: bool = False
    release_rows: int | None = None
    force: bool = False
    n_jobs: int = 1
    progress: bool | None = None
    cache_gb: float = 4.0


@dataclass(frozen=True)
class Job:
    """A resolved job. ``dataset``, ``public`` and ``workload`` are the specs' values (frozen
    mappings, with ``name`` / ``kind``), ``options`` the algorithm's; ``eps``, ``delta`` and
    ``rho`` are resolved for the ``n`` private rows; ``config`` is the plain config it was made
    from (what its records keep and its hash is computed over)."""

    dataset: Mapping[str, Any]
    public: Mapping[str, Any]
    workload: Mapping[str, Any]
    algo: str
    options: Mapping[str, Any]
    n: int
    eps: float
    delta: float
    rho: float
    eps_equiv: float | None
    n_ref: int
    T: int
    runs: int
    seed: int
    outputs: Outputs
    config: Mapping[str, Any] = field(repr=False)

    @classmethod
    def from_config(cls, cfg: Mapping[str, Any], n: int) -> "Job":
        """The job of a resolved, checked run config (plain mapping, as ``run.py`` composes
        it) whose problem has ``n`` private rows."""
        eps = float(cfg["eps"]) if cfg.get("eps_equiv") is None else \
            matched_eps(cfg["eps_equiv"], cfg.get("n_ref", 100_000), n)
        delta = float(cfg["delta"]) if cfg.get("delta") is not None else default_delta(n)
        algo = cfg["algo"]
        outputs = Outputs(**{k: cfg[k] for k in Outputs.__dataclass_fields__ if k in cfg})
        return cls(dataset=_frozen(cfg["dataset"]), public=_frozen(cfg["public"]),
                   workload=_frozen(cfg["workload"]), algo=algo["name"],
                   options=_frozen({k: v for k, v in algo.items() if k != "name"}), n=int(n),
                   eps=eps, delta=delta, rho=budget_rho(eps, delta),
                   eps_equiv=cfg.get("eps_equiv"), n_ref=int(cfg.get("n_ref", 100_000)),
                   T=int(cfg["T"]), runs=int(cfg.get("runs", 1)), seed=int(cfg.get("seed", 0)),
                   outputs=outputs, config=_frozen(dict(cfg)))

    @property
    def plain_config(self) -> dict[str, Any]:
        """The config as plain, mutable containers (a copy)."""
        return plain(self.config)

    @property
    def plain_options(self) -> dict[str, Any]:
        return plain(self.options)

    def experiment_config(self) -> dict[str, Any]:
        """The part of the config that defines the numbers (:func:`experiment_config`)."""
        return experiment_config(self.plain_config)

    @property
    def config_hash(self) -> str:
        """16 hex digits of SHA-256 over the canonical JSON of :meth:`experiment_config`."""
        return config_hash(self.plain_config)


def experiment_config(config: dict[str, Any]) -> dict[str, Any]:
    """The part of a resolved config (plain dict, no ``hydra`` node) that defines the numbers:
    without the runtime keys, the :data:`NEUTRAL_DEFAULTS` fields at their neutral default, and
    ``eps`` when ``eps_equiv`` sets ε."""
    out = {k: v for k, v in config.items() if k not in RUNTIME_KEYS and k != "hydra"}
    if out.get("eps_equiv") is not None:
        out.pop("eps", None)
    for dotted, neutral in NEUTRAL_DEFAULTS.items():
        *parents, key = dotted.split(".")
        node = out
        for parent in parents:
            node = node.get(parent) if isinstance(node, dict) else None
        if isinstance(node, dict) and key in node and node[key] == neutral:
            if node is not out:       # copy the nested node before dropping from it
                node = _copy_path(out, parents)
            del node[key]
    return out


def _copy_path(config: dict[str, Any], parents: list[str]) -> dict[str, Any]:
    """The node at ``parents`` of ``config``, each dict on the way replaced by a shallow copy."""
    node = config
    for parent in parents:
        node[parent] = dict(node[parent])
        node = node[parent]
    return node


def config_hash(config: dict[str, Any]) -> str:
    """16 hex digits of SHA-256 over the canonical JSON of :func:`experiment_config`."""
    canonical = json.dumps(experiment_config(config), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]
