"""The embedded default dataset: seeded chain Bayesian networks with exact divergences.

A :class:`ChainModel` over X = X_1 × … × X_d is the distribution

    P(x) = p_1(x_1) · Π_{j=2..d} T_j(x_{j−1}, x_j),

with an initial distribution p_1 and row-stochastic transition tables T_j (random Dirichlet rows
give correlated attributes). The *public* model of a :class:`SyntheticPair` mixes every
conditional of the private model P with those of an independent random chain R:

    Q = chain with p_1^Q = (1 − λ) p_1 + λ r_1 and T_j^Q = (1 − λ) T_j + λ R_j,

so λ = ``shift`` ∈ [0, 1] controls the distance (λ = 0: Q = P) and Q(x) ≥ (1 − λ)^d P(x), i.e.
D_∞(P‖Q) ≤ d · log(1/(1 − λ)). Because both models factor along the same chain, the Rényi
divergences between them are exact for any d (they are the quantities in the public-data bounds,
e.g. Liu et al. 2021, Thm 4.4; Bassily et al. 2020):

* D_α(P‖Q) = 1/(α−1) · log Σ_x P(x)^α Q(x)^{1−α}: a sum-product (transfer-matrix) recursion
  v_j(b) = Σ_a v_{j−1}(a) · T_j(a,b)^α T_j^Q(a,b)^{1−α}, run in log space; α = 2 gives
  D_2 = log Σ P²/Q.
* D_∞(P‖Q) = log max_x P(x)/Q(x): the same recursion in the max-product semiring.
* D_1 (Kullback–Leibler): Σ_j E_P[log T_j/T_j^Q] over the exact pairwise marginals.

Also exact: the pmf of any record and every marginal (products of transition matrices).
Presets (:data:`PRESETS`) range from ``tiny`` (5 attributes, 1,000 rows) to ``acs_full``
(the 67-attribute ACS domain shape, 130,000 rows).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp

from . import acs, adult
from .domain import Dataset, Domain


class ChainModel:
    """P(x) = p_1(x_1) Π_j T_j(x_{j−1}, x_j) over ``domain`` (attributes in chain order)."""

    def __init__(self, domain: Domain, initial: np.ndarray, transitions: list[np.ndarray]):
        if len(transitions) != len(domain) - 1:
            raise ValueError(f"ChainModel needs {len(domain) - 1} transition tables for "
                             f"{len(domain)} attributes, got {len(transitions)}")
        tables = [np.asarray(initial, float)[None, :]] + [np.asarray(t, float) for t in transitions]
        for j, table in enumerate(tables):
            rows = 1 if j == 0 else domain.shape[j - 1]
            if table.shape != (rows, domain.shape[j]) or (table < 0).any() or \
                    not np.allclose(table.sum(axis=1), 1.0):
                raise ValueError(f"ChainModel table {j} must be a ({rows}, {domain.shape[j]}) "
                                 "row-stochastic matrix; normalise its rows")
        self.domain = domain
        self.tables = tables  # tables[0] is p_1 as a 1-row matrix, tables[j] is T_{j+1}

    @classmethod
    def random(cls, domain: Domain, rng: np.random.Generator,
               concentration: float = 0.5) -> "ChainModel":
        """Initial distribution and transition rows drawn i.i.d. Dirichlet(concentration)."""
        if concentration <= 0:
            raise ValueError(f"concentration must be > 0, got {concentration}; pass a positive "
                             "Dirichlet parameter")
        shape = domain.shape
        initial = rng.dirichlet(np.full(shape[0], concentration))
        transitions = [rng.dirichlet(np.full(shape[j], concentration), size=shape[j - 1])
                       for j in range(1, len(shape))]
        return cls(domain, initial, [_floor(t) for t in transitions])

    def mixed(self, other: "ChainModel", weight: float) -> "ChainModel":
        """The chain whose every conditional is (1 − weight)·self + weight·other."""
        if not 0.0 <= weight <= 1.0:
            raise ValueError(f"mixing weight must be in [0, 1], got {weight}")
        if other.domain != self.domain:
            raise ValueError("mixed: both chains must share one domain")
        tables = [(1 - weight) * a + weight * b for a, b in zip(self.tables, other.tables)]
        return ChainModel(self.domain, tables[0][0], tables[1:])

    def log_pmf(self, records: np.ndarray) -> np.ndarray:
        """log P(x) for each row of an (n, d) code array."""
        x = np.asarray(records)
        with np.errstate(divide="ignore"):
            out = np.log(self.tables[0][0, x[:, 0]])
            for j in range(1, len(self.domain)):
                out = out + np.log(self.tables[j][x[:, j - 1], x[:, j]])
        return out

    def pmf(self, records: np.ndarray) -> np.ndarray:
        """P(x) for each row of an (n, d) code array."""
        return np.exp(self.log_pmf(records))

    def sample(self, n: int, rng: np.random.Generator) -> Dataset:
        """n i.i.d. records by ancestral sampling (inverse CDF on each conditional row)."""
        records = np.empty((n, len(self.domain)), dtype=np.int64)
        previous = np.zeros(n, dtype=np.int64)
        for j, table in enumerate(self.tables):
            rows, k = table.shape
            cdf = np.cumsum(table, axis=1)
            cdf[:, -1] = 1.0
            # Row a of the CDF shifted to [a, a + 1]: one sorted array serves every row.
            flat = (cdf + np.arange(rows)[:, None]).ravel()
            hits = np.searchsorted(flat, previous + rng.random(n), side="right") - previous * k
            records[:, j] = np.minimum(hits, k - 1)
            previous = records[:, j]
        return Dataset(records, self.domain)

    def node_marginals(self) -> list[np.ndarray]:
        """P(x_j) for every attribute j (forward pass p_1 T_2 … T_j)."""
        out = [self.tables[0][0]]
        for table in self.tables[1:]:
            out.append(out[-1] @ table)
        return out

    def marginal(self, attributes) -> np.ndarray:
        """The exact marginal table P(x_S), axes in the order of ``attributes``."""
        attributes = list(attributes)
        axes = list(self.domain.axes(attributes))
        order = sorted(range(len(axes)), key=lambda i: axes[i])
        chain = [axes[i] for i in order]
        table = self.node_marginals()[chain[0]]
        for start, stop in zip(chain, chain[1:]):
            step = np.eye(self.domain.shape[start])
            for j in range(start + 1, stop + 1):
                step = step @ self.tables[j]
            table = table[..., None] * step.reshape((1,) * (table.ndim - 1) + step.shape)
        return np.transpose(table, np.argsort(order))


def renyi_divergence(p: ChainModel, q: ChainModel, alpha: float) -> float:
    """Exact D_α(P‖Q) for chains on one domain; alpha = 1 is KL, alpha = np.inf is D_∞."""
    if p.domain != q.domain:
        raise ValueError("renyi_divergence: both chains must share one domain")
    if alpha <= 0:
        raise ValueError(f"Rényi order must be > 0, got {alpha}")
    with np.errstate(divide="ignore", invalid="ignore"):
        if alpha == 1:
            return _kl(p, q)
        logs = [_log_factor(a, b, alpha) for a, b in zip(p.tables, q.tables)]
        reduce = _max_plus if np.isinf(alpha) else _log_sum
        value = logs[0][0]
        for factor in logs[1:]:
            value = reduce(value[:, None] + factor)
        total = value.max() if np.isinf(alpha) else logsumexp(value)
        return float(total if np.isinf(alpha) else total / (alpha - 1))


def _log_factor(a: np.ndarray, b: np.ndarray, alpha: float) -> np.ndarray:
    """Elementwise log of a^α b^{1−α} (or log a/b for α = ∞); 0 where a = 0."""
    la, lb = np.log(a), np.log(b)
    value = la - lb if np.isinf(alpha) else alpha * la + (1 - alpha) * lb
    return np.where(a > 0, value, -np.inf)


def _max_plus(m: np.ndarray) -> np.ndarray:
    return m.max(axis=0)


def _log_sum(m: np.ndarray) -> np.ndarray:
    return logsumexp(m, axis=0)


def _kl(p: ChainModel, q: ChainModel) -> float:
    marginals = [np.ones(1)] + p.node_marginals()[:-1]
    total = 0.0
    for weight, a, b in zip(marginals, p.tables, q.tables):
        terms = np.where(a > 0, a * (np.log(a) - np.log(b)), 0.0)
        total += float(weight @ terms.sum(axis=1))
    return total


def d2(p: ChainModel, q: ChainModel) -> float:
    """D_2(P‖Q) = log Σ_x P(x)²/Q(x), exact."""
    return renyi_divergence(p, q, 2.0)


def dinf(p: ChainModel, q: ChainModel) -> float:
    """D_∞(P‖Q) = log max_x P(x)/Q(x), exact."""
    return renyi_divergence(p, q, np.inf)


def _floor(table: np.ndarray, eps: float = 1e-12) -> np.ndarray:
    """Keep every probability ≥ eps (Dirichlet draws can underflow to 0) and rows stochastic."""
    table = np.maximum(table, eps)
    return table / table.sum(axis=1, keepdims=True)


@dataclass(frozen=True)
class Preset:
    """A named synthetic configuration: the domain and the default number of rows."""

    domain: Domain
    rows: int


PRESETS: dict[str, Preset] = {
    "tiny": Preset(Domain([f"a{i}" for i in range(5)], [2, 3, 4, 2, 3]), 1_000),
    "small": Preset(Domain([f"a{i}" for i in range(10)], [2, 3, 2, 4, 2, 3, 5, 2, 2, 3]), 10_000),
    "adult": Preset(adult.DOMAIN, 48_790),
    "acs_reduced": Preset(acs.REDUCED_DOMAIN, 130_000),
    "acs_full": Preset(acs.FULL_DOMAIN, 130_000),
}


@dataclass(frozen=True)
class SyntheticPair:
    """A private chain P and a public chain Q = mix(P, R; shift) on one domain."""

    private: ChainModel
    public: ChainModel
    shift: float

    @classmethod
    def build(cls, domain: Domain, shift: float, rng: np.random.Generator,
              concentration: float = 0.5) -> "SyntheticPair":
        private = ChainModel.random(domain, rng, concentration)
        other = ChainModel.random(domain, rng, concentration)
        return cls(private, private.mixed(other, shift), shift)

    def d2(self) -> float:
        return d2(self.private, self.public)

    def dinf(self) -> float:
        return dinf(self.private, self.public)


def make_pair(preset: str = "tiny", shift: float = 0.1, seed: int = 0,
              concentration: float = 0.5) -> SyntheticPair:
    """The pair of models of ``preset``; the tables depend only on (preset, seed,
    concentration) and the mixing on ``shift``."""
    if preset not in PRESETS:
        raise ValueError(f"unknown synthetic preset {preset!r}; choose one of {list(PRESETS)}")
    model_seed = np.random.SeedSequence([seed, 0])
    return SyntheticPair.build(PRESETS[preset].domain, shift, np.random.default_rng(model_seed),
                               concentration)


def load_synthetic(preset: str = "tiny", role: str = "private", n: int | None = None,
                   shift: float = 0.1, seed: int = 0, concentration: float = 0.5,
                   draw: int = 0) -> Dataset:
    """``n`` rows (default: the preset's) drawn from the private or the public model; the two
    roles use independent streams of ``seed``. ``draw`` > 0 takes another sample of the same
    models (an independent stream; e.g. a validation release of the private model)."""
    roles = ("private", "public")
    if role not in roles:
        raise ValueError(f"synthetic role must be one of {roles}, got {role!r}")
    pair = make_pair(preset, shift, seed, concentration)
    n = PRESETS[preset].rows if n is None else int(n)
    if n < 1:
        raise ValueError(f"synthetic n must be ≥ 1, got {n}")
    if draw < 0:
        raise ValueError(f"synthetic draw must be ≥ 0, got {draw}")
    stream = [seed, 1 + roles.index(role)] + ([draw] if draw else [])
    rng = np.random.default_rng(np.random.SeedSequence(stream))
    model = pair.private if role == "private" else pair.public
    return model.sample(n, rng)
