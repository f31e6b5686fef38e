"""Public data sources for PMW^Pub (Liu et al. 2021, §4 and §5.2).

A public dataset D̂ of m rows enters PMW^Pub only through its support X̂ (the distinct rows) and
the empirical distribution A_0 of D̂ on X̂ (Algorithm 1, line 1). :class:`PublicSource` holds both.
Builders, every random draw from an explicit ``numpy.random.Generator``:

(a) :func:`resample` — private and public drawn with replacement from one dataset, 0.9N and 0.1N
    rows by default (the ADULT design of §5.2, Fig. 2 with Δ = 0). Both samples are drawn from
    all N rows, so public rows are also private records: a row lands in the private sample with
    probability 1 − (1 − 1/N)^{0.9N} ≈ 1 − e^{−0.9} ≈ 59%, and so do ≈ 59% of the public rows.
    ``disjoint=True`` first splits the rows in proportion to the two shares and draws each sample
    from its own part (no public row is a private record);
(b) :func:`biased` — as (a), but each public row is drawn from the group {x : x_A = v} with
    probability r + Δ, r = that group's share of the data (ADULT: sex = Female, r ≈ 0.33), and
    uniformly with replacement within its group (Fig. 2); ``disjoint`` as in (a);
(c) another dataset (other state, year or region; Fig. 1) — :func:`from_dataset` of it;
(d) :func:`fraction` — a fraction p ∈ (0, 1] of a public dataset's rows, without replacement
    and at least one row (Fig. 3).

:func:`uniform_weights` gives the A_0-uniform-on-X̂ ablation.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from .domain import Dataset


@dataclass(frozen=True, eq=False)
class PublicSource:
    """Support X̂ (distinct public rows), A_0 (their empirical weights, summing to 1), m and how
    the source was built."""

    support: Dataset
    weights: np.ndarray
    n_rows: int
    params: dict = field(default_factory=dict)

    def __post_init__(self):
        if len(self.support) != len(self.weights) or not np.isclose(self.weights.sum(), 1.0):
            raise ValueError("PublicSource: weights must have one entry per support row and sum "
                             "to 1; build it with from_dataset")

    def rows(self) -> Dataset:
        """The m public rows as a multiset (support row i repeated A_0(i)·m times)."""
        counts = np.rint(self.weights * self.n_rows).astype(np.int64)
        return Dataset(np.repeat(self.support.records, counts, axis=0), self.support.domain)


class Split(NamedTuple):
    """A private dataset and a public source built from the same data (unpacks as a pair)."""

    private: Dataset
    public: PublicSource


def from_dataset(public: Dataset, **params) -> PublicSource:
    """X̂ = distinct rows of ``public``, A_0 = their frequencies / m."""
    if len(public) == 0:
        raise ValueError("public dataset is empty; a public source needs at least one row")
    support, counts = np.unique(public.records, axis=0, return_counts=True)
    return PublicSource(Dataset(support, public.domain), counts / len(public), len(public),
                        {"kind": "dataset", **params})


def uniform_weights(support: Dataset) -> np.ndarray:
    """A_0 uniform on X̂ (the ablation of §5.3)."""
    return np.full(len(support), 1.0 / len(support))


def resample(data: Dataset, rng: np.random.Generator, private_share: float = 0.9,
             public_share: float = 0.1, disjoint: bool = False) -> Split:
    """Private and public samples of private_share·N and public_share·N rows drawn with
    replacement from ``data`` (design (a)); with ``disjoint``, each from its own part of the
    rows."""
    n_private, n_public = _sizes(len(data), private_share, public_share)
    private_pool, public_pool = _pools(len(data), private_share, public_share, disjoint, rng)
    private = data.take(private_pool[rng.integers(0, private_pool.size, n_private)])
    public = data.take(public_pool[rng.integers(0, public_pool.size, n_public)])
    return Split(private, from_dataset(public, kind="resample", private_rows=n_private,
                                       disjoint=disjoint))


def biased(data: Dataset, rng: np.random.Generator, delta: float, attribute: str = "sex",
           value: int = 0, private_share: float = 0.9, public_share: float = 0.1,
           disjoint: bool = False) -> Split:
    """As :func:`resample`, but public rows come from {x_attribute = value} with probability
    r + delta, r = that group's share in ``data`` (design (b); defaults: ADULT's Female); with
    ``disjoint``, the public groups are those of the public part of the rows."""
    in_group = data.column(attribute) == value
    share = float(in_group.mean())
    target = share + delta
    if not 0.0 <= target <= 1.0:
        raise ValueError(f"r + delta = {share:.4f} + {delta} = {target:.4f} is outside [0, 1]; "
                         f"choose delta in [{-share:.4f}, {1 - share:.4f}]")
    n_private, n_public = _sizes(len(data), private_share, public_share)
    private_pool, public_pool = _pools(len(data), private_share, public_share, disjoint, rng)
    private = data.take(private_pool[rng.integers(0, private_pool.size, n_private)])
    from_group = rng.random(n_public) < target
    rows = np.empty(n_public, dtype=np.int64)
    kept = np.zeros(len(data), dtype=bool)
    kept[public_pool] = True
    for mask, pool, relation in ((from_group, np.flatnonzero(in_group & kept), "="),
                                 (~from_group, np.flatnonzero(~in_group & kept), "≠")):
        if mask.any() and pool.size == 0:
            raise ValueError(f"biased: no rows with {attribute} {relation} {value} to sample "
                             "from; pick another attribute value or delta")
        rows[mask] = rng.choice(pool, size=int(mask.sum()), replace=True) if pool.size else 0
    params = dict(kind="biased", attribute=attribute, value=value, delta=delta, share=share,
                  private_rows=n_private, disjoint=disjoint)
    return Split(private, from_dataset(data.take(rows), **params))


def fraction(public: Dataset | PublicSource, p: float,
             rng: np.random.Generator) -> PublicSource:
    """A fraction ``p`` ∈ (0, 1] of the rows of ``public`` (a dataset, or the m rows of a
    source), without replacement, ≥ 1 row (design (d))."""
    if not 0.0 < p <= 1.0:
        raise ValueError(f"public fraction p must be in (0, 1], got {p}")
    parent = public.params if isinstance(public, PublicSource) else {}
    public = public.rows() if isinstance(public, PublicSource) else public
    size = max(1, int(round(p * len(public))))
    rows = rng.choice(len(public), size=size, replace=False)
    return from_dataset(public.take(rows), kind="fraction", p=p, parent=parent)


def _pools(n: int, private_share: float, public_share: float, disjoint: bool,
           rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The row indices the private and the public sample are drawn from: all rows for both
    (the paper's design), or with ``disjoint`` a random split of the rows in proportion to the
    shares (each part at least one row)."""
    everything = np.arange(n)
    if not disjoint:
        return everything, everything
    if n < 2:
        raise ValueError("disjoint samples need at least 2 rows; use disjoint=false")
    order = rng.permutation(n)
    cut = min(n - 1, max(1, int(round(n * private_share / (private_share + public_share)))))
    return order[:cut], order[cut:]


def _sizes(n: int, private_share: float, public_share: float) -> tuple[int, int]:
    for name, f in (("private_share", private_share), ("public_share", public_share)):
        if f <= 0:
            raise ValueError(f"{name} must be > 0, got {f}")
    return max(1, int(round(private_share * n))), max(1, int(round(public_share * n)))
