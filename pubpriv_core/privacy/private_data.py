"""The private dataset behind charged mechanisms: what every algorithm receives instead of the data.

The harness opens a :class:`~pubpriv_core.privacy.ledger.Ledger` for a release and gives the
algorithm a :class:`PrivateData` built on it. Its methods are the project's mechanisms; each one
computes the private statistic it needs itself, with the sensitivity this module states for it,
charges the ledger *before* it draws (a charge past the budget raises and draws nothing), and
returns only the mechanism's output. Public data (the support, its weights, the workload, the
domain and n, public under replace-one neighbours) is the algorithm's to read freely.

Sensitivities (replace one record, n public; Liu et al. 2021 §2):

* one counting query as a fraction, and |q(A) − q(D)| for a fixed A: Δ = 1/n;
* the max over a marginal's cells of |q(D) − q(A)|: Δ = 1/n; a whole marginal of fractions:
  L2 Δ₂ = √2/n (one record leaves one cell, enters another);
* a marginal of counts: L1 2, L2 √2 (``add_remove``: 1 and 1), and an L1 distance to a
  data-independent vector moves by at most the L1 sensitivity;
* the best mixture error f(X̂) (Liu et al. 2021, Lemma 4.2): Δ = 1/n;
* DualQuery's query distribution at round t (Gaboardi et al. 2014): log-weights
  η·Σ_{i<t}(q(D) − q(x_i)) move by at most η(t − 1)/n, so one draw is ε_t = 2η(t − 1)/n-DP and
  ε_t-bounded-range.

Every draw uses the generator the harness gave (the repetition's algorithm stream, shared with the
algorithm's own post-processing draws, so a release is the same whichever way it is launched).
:meth:`PrivateData.unverified` is the one escape hatch: it returns the raw data and marks the
ledger, so the record and the figure legend say "privacy not verified".
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Protocol, Sequence

import numba as nb
import numpy as np

from pubpriv_core.privacy._checks import positive
from pubpriv_core.privacy.accounting import (bounded_range_zcdp, gaussian_zcdp, pure_dp_zcdp)
from pubpriv_core.privacy.ledger import Ledger
from pubpriv_core.privacy.noise import gaussian_mechanism, laplace_mechanism
from pubpriv_core.privacy.selection import (exponential_mechanism, exponential_samples,
                                            permute_and_flip)

#: L2 sensitivity of a whole marginal of fractions, times n (replace one record)
MARGINAL_L2 = math.sqrt(2.0)
QUERY_SELECTIONS = ("permute_and_flip", "exponential", "exponential_bounded_range")


@dataclass(frozen=True)
class Relation:
    """A neighbouring relation: the L1 and L2 sensitivities of a marginal of counts and whether
    the number of records n is public."""

    name: str
    marginal_l1: float
    marginal_l2: float
    public_n: bool


REPLACE_ONE = Relation("replace_one", 2.0, math.sqrt(2.0), True)
ADD_REMOVE = Relation("add_remove", 1.0, 1.0, False)
RELATIONS = {r.name: r for r in (REPLACE_ONE, ADD_REMOVE)}


def relation(name: str) -> Relation:
    """The relation called ``name``; an unknown one is a one-line ValueError."""
    if name not in RELATIONS:
        raise ValueError(f"unknown algo.relation={name!r}; choose from {', '.join(RELATIONS)}")
    return RELATIONS[name]


class PrivateSource(Protocol):
    """What the harness's problem gives the handle (never the algorithm)."""

    n: int
    workload: Any
    private: Any                       # the private Dataset
    true_answers: np.ndarray           # q(D) of every workload query

    def query_candidates(self, answerer) -> "QueryCandidates": ...

    def private_marginal(self, clique: tuple[str, ...]) -> np.ndarray: ...

    @property
    def best_mixture_error(self) -> float: ...


class QueryCandidates:
    """Every workload query as a selection candidate for a model on ``answerer``'s rows.

    Present queries (some row satisfies them) are scored live, |q(A) − q(D)|. An absent query
    answers 0 on every A over those rows, so its score is the constant q(D); absent queries are
    kept as groups of equal score (value, count), which the selections treat exactly as that many
    tied candidates (a selected one is uniform within its group). Built from private answers:
    held by the harness, read only by :class:`PrivateData`.
    """

    def __init__(self, answerer, true_answers: np.ndarray):
        total = true_answers.size
        self.present = np.arange(total) if answerer.queries is None else answerer.queries
        self.true_present = true_answers[self.present]
        absent = np.ones(total, dtype=bool)
        absent[self.present] = False
        absent = np.flatnonzero(absent)
        values, group, counts = np.unique(true_answers[absent], return_inverse=True,
                                          return_counts=True)
        self.tie_values, self.tie_counts = values, counts
        self.tie_members = absent[np.argsort(group, kind="stable")]
        self.gaps = np.empty(self.present.size)

    def to_global(self, index: int) -> tuple[int, int | None]:
        """(global query id, own index in the answerer or None) of candidate ``index``."""
        if index < self.present.size:
            return int(self.present[index]), index
        return int(self.tie_members[index - self.present.size]), None


@nb.njit(nogil=True, cache=True)
def _answer_gaps(y, Z, targets, out):
    """out = |y/Z − targets|: the scores |q(A) − q(D)| of the present queries, in one pass."""
    for i in range(y.size):
        out[i] = abs(y[i] / Z - targets[i])


@dataclass(frozen=True)
class CliqueScore:
    """One candidate of :meth:`PrivateData.select_clique`: the score
    ``weight · (Σ_k coef_k·‖M_clique(D) − estimate_k‖₁ + offset)`` with data-independent
    ``weight`` ≥ 0, ``terms`` = ((coef_k, estimate_k), …) and ``offset``."""

    clique: tuple[str, ...]
    terms: tuple[tuple[float, np.ndarray], ...] = ()
    offset: float = 0.0
    weight: float = 1.0


class Budget:
    """A read-only view of the ledger for planning: the target, the total and what is left."""

    def __init__(self, ledger: Ledger):
        self._ledger = ledger

    eps = property(lambda self: self._ledger.target_eps, doc="target ε")
    delta = property(lambda self: self._ledger.target_delta, doc="target δ")
    rho_total = property(lambda self: self._ledger.rho_total, doc="zCDP budget ρ(ε, δ)")
    spent = property(lambda self: self._ledger.spent, doc="ρ charged so far")
    remaining = property(lambda self: self._ledger.remaining, doc="ρ left")
    accounting = property(lambda self: self._ledger.accounting, doc="zcdp or advanced")


@dataclass(frozen=True)
class RawPrivate:
    """The escape hatch's view: the private Dataset and its exact workload answers."""

    dataset: Any
    true_answers: np.ndarray


class PrivateData:
    """The private dataset of one release, reachable only through charged mechanisms.

    ``source`` is the harness's problem (:class:`PrivateSource`), ``ledger`` the release's
    ledger and ``rng`` the repetition's algorithm generator (every mechanism refuses a draw
    without an explicit ``numpy.random.Generator``)."""

    def __init__(self, source: PrivateSource, ledger: Ledger, rng: np.random.Generator):
        self._source = source
        self._ledger = ledger
        self._rng = rng            # checked by each mechanism when it draws
        self._relation = relation(ledger.relation)
        self.budget = Budget(ledger)

    @property
    def n(self) -> int:
        """The number of private records (public under replace-one neighbours)."""
        return self._source.n

    @property
    def relation(self) -> Relation:
        return self._relation

    # ------------------------------------------------------------------ workload queries
    def select_query(self, y: np.ndarray, Z: float, answerer, eps: float,
                     selection: str = "permute_and_flip", label: str = "select"
                     ) -> tuple[int, int | None]:
        """A workload query with a large |q(A) − q(D)|, A the model whose unnormalised answers
        on ``answerer``'s present queries are ``y`` with total ``Z`` (Δ = 1/n).

        ``selection``: permute-and-flip (ε-DP, ε²/2 zCDP), the exponential mechanism charged as
        ε-DP (ε²/2) or as ε-bounded-range (``exponential_bounded_range``: ε²/8, Cesar & Rogers
        2021, Lemma 3.2). Returns (global query id, own index in ``answerer`` or None)."""
        if selection not in QUERY_SELECTIONS:
            raise ValueError(f"unknown selection {selection!r}; choose one of "
                             f"{', '.join(QUERY_SELECTIONS)}")
        self._require_public_n("select_query")
        cost = bounded_range_zcdp(eps) if selection == "exponential_bounded_range" \
            else pure_dp_zcdp(eps)
        self._ledger.charge(cost, label)
        candidates = self._source.query_candidates(answerer)
        _answer_gaps(y, Z, candidates.true_present, candidates.gaps)
        ties = (candidates.tie_values, candidates.tie_counts)
        mechanism = permute_and_flip if selection == "permute_and_flip" \
            else exponential_mechanism
        pick = mechanism(candidates.gaps, eps, 1.0 / self.n, self._rng, ties=ties)
        return candidates.to_global(pick)

    def gaussian_query(self, q: int, sigma: float, label: str = "measure") -> float:
        """q(D) + N(0, σ²) for workload query ``q`` (Δ₂ = 1/n: (1/n)²/(2σ²) zCDP)."""
        self._require_public_n("gaussian_query")
        self._ledger.charge(gaussian_zcdp(sigma, 1.0 / self.n), label)
        return float(gaussian_mechanism(self._source.true_answers[q], sigma, self._rng))

    def laplace_query(self, q: int, eps: float, label: str = "measure") -> float:
        """q(D) + Lap(1/(n·ε)) for workload query ``q``: ε-DP, ε²/2 zCDP."""
        self._require_public_n("laplace_query")
        self._ledger.charge(pure_dp_zcdp(eps), label)
        scale = 1.0 / (self.n * eps)
        return float(laplace_mechanism(self._source.true_answers[q], scale, self._rng))

    # ------------------------------------------------------------------ workload marginals
    def select_marginal(self, model_answers: np.ndarray, excluded: np.ndarray, eps: float,
                        label: str = "select") -> int:
        """A workload marginal with a large max over its cells of |q(D) − q(A)| (Δ = 1/n), by
        the exponential mechanism at ε (ε-bounded-range: ε²/8 zCDP); ``excluded`` marginals
        (a boolean mask) score −∞."""
        self._require_public_n("select_marginal")
        scores = marginal_scores(self._source.workload.offsets, self._source.true_answers,
                                 model_answers, excluded)
        self._ledger.charge(bounded_range_zcdp(eps), label)
        return int(exponential_mechanism(scores, eps, 1.0 / self.n, self._rng))

    def gaussian_marginal(self, marginal: int, sigma: float, label: str = "measure"
                          ) -> np.ndarray:
        """Every cell of workload marginal ``marginal`` as a fraction + N(0, σ²)
        (Δ₂ = √2/n: (√2/n)²/(2σ²) zCDP)."""
        self._require_public_n("gaussian_marginal")
        offsets = self._source.workload.offsets
        self._ledger.charge(gaussian_zcdp(sigma, MARGINAL_L2 / self.n), label)
        values = self._source.true_answers[offsets[marginal]:offsets[marginal + 1]]
        return gaussian_mechanism(np.asarray(values, float), sigma, self._rng)

    # ------------------------------------------------------------------ marginals of counts
    def gaussian_clique(self, clique: tuple[str, ...], sigma: float, label: str) -> np.ndarray:
        """The marginal of counts on ``clique`` + N(0, σ²) per cell (the relation's L2
        sensitivity Δ₂: Δ₂²/(2σ²) zCDP)."""
        self._ledger.charge(gaussian_zcdp(sigma, self._relation.marginal_l2),
                            f"measure {label}")
        return gaussian_mechanism(self._source.private_marginal(clique), sigma, self._rng)

    def select_clique(self, candidates: Sequence[CliqueScore], eps: float, label: str, *,
                      sensitivity: float | None = None) -> int:
        """One of ``candidates`` by the exponential mechanism at ε (ε²/8 zCDP) on their scores
        (:class:`CliqueScore`), whose sensitivity is at most the relation's L1 sensitivity times
        max weight·Σ|coef|; a larger stated ``sensitivity`` is used as given, a smaller one is
        refused."""
        bound = self._relation.marginal_l1 * max(
            c.weight * sum(abs(coef) for coef, _ in c.terms) for c in candidates)
        if sensitivity is None:
            sensitivity = bound
        elif not sensitivity >= bound:
            raise ValueError(f"select_clique: stated sensitivity {sensitivity!r} is below the "
                             f"scores' sensitivity {bound!r}; state at least that")
        scores = np.array([self._clique_score(c) for c in candidates])
        self._ledger.charge(bounded_range_zcdp(eps), f"select {label}")
        return int(exponential_mechanism(scores, eps, sensitivity, self._rng))

    def _clique_score(self, candidate: CliqueScore) -> float:
        total = 0.0
        if candidate.terms:
            private = self._source.private_marginal(candidate.clique)
            for coef, estimate in candidate.terms:
                total += coef * np.abs(private - estimate).sum()
        return candidate.weight * (total + candidate.offset)

    # ------------------------------------------------------------------ named statistics
    def dual_queries(self, counts: np.ndarray, rounds: int, eta: float, size: int
                     ) -> np.ndarray:
        """``size`` i.i.d. draws from DualQuery's query distribution after ``rounds`` played
        records: P(q) ∝ exp(η·(rounds·q(D) − counts_q)) over Q, and the negation ¬q (id
        |Q| + q) with the opposite log-weight (Gaboardi et al. 2014, §3). Each draw is
        ε_t = 2η·rounds/n-DP: charged as ``size`` pure steps (advanced accounting) or
        ``size``·ε_t²/8 (zCDP, bounded range); the first round reads nothing private."""
        self._require_public_n("dual_queries")
        eta = positive("eta", eta, "pass a positive DualQuery learning rate such as 2.0")
        step_eps = 2.0 * eta * rounds / self.n
        if rounds > 0:
            if self._ledger.accounting == "advanced":
                self._ledger.charge_pure(step_eps, size, f"round {rounds + 1}")
            else:
                self._ledger.charge(size * bounded_range_zcdp(step_eps), f"round {rounds + 1}")
        logw = eta * (rounds * self._source.true_answers - counts)
        return exponential_samples(np.concatenate([logw, -logw]), size, self._rng)

    def best_mixture_error(self, eps: float, label: str = "quality_check") -> float:
        """f(X̂) + Lap(1/(n·ε)), the best mixture error of the public support (Liu et al.
        2021, Def. 4.1, Lemma 4.2: Δ = 1/n): ε-DP, ε²/2 zCDP."""
        self._require_public_n("best_mixture_error")
        self._ledger.charge(pure_dp_zcdp(eps), label)
        value = self._source.best_mixture_error
        return float(laplace_mechanism(value, 1.0 / (self.n * eps), self._rng))

    # ------------------------------------------------------------------ escape hatch
    def unverified(self, reason: str) -> RawPrivate:
        """The raw private data, outside every mechanism. The ledger is marked: the record
        says ``privacy: not verified`` (or, for a declared non-private reference, ``non-private
        reference``) and figures mark the line. ``reason`` says why, for the record."""
        self._ledger.mark_unverified(str(reason))
        return RawPrivate(self._source.private, self._source.true_answers)

    def _require_public_n(self, mechanism: str) -> None:
        if not self._relation.public_n:
            raise ValueError(f"{mechanism} states sensitivities for replace-one neighbours "
                             f"(n public), not {self._relation.name}; use relation=replace_one")


def marginal_scores(offsets: np.ndarray, data_answers: np.ndarray, model_answers: np.ndarray,
                    excluded: np.ndarray) -> np.ndarray:
    """max over the cells of each marginal of |data − model| (cells of marginal w at
    ``offsets[w]:offsets[w+1]``); −∞ for the marginals flagged in ``excluded``."""
    gaps = np.abs(np.subtract(data_answers, model_answers, dtype=float))
    scores = np.maximum.reduceat(gaps, offsets[:-1])
    return np.where(excluded, -np.inf, scores)
