"""Adaptive Measurements (Liu, Vietri & Wu 2021, "Iterative Methods for Private Synthetic Data:
Unifying Framework and New Methods", NeurIPS, arXiv 2106.07153, Alg. 1): the round logic that
PEP, GEM and RAP^softmax share; they differ in the distribution family and the update.

Each round t = 1..T, on workload marginals (selected marginals are measured whole):

* score of an unmeasured marginal w = max over its cells |q(D) − q(A_{t−1})|
  (:func:`marginal_scores`; measured marginals score −∞ and cannot be chosen again). A score
  moves by at most Δ = 1/n when one record is replaced;
* select w_t by the exponential mechanism, P(w) ∝ exp(α·ε0·score(w)/Δ), i.e. the harness'
  :func:`~pubpriv_core.privacy.exponential_mechanism` at parameter ε_sel = 2·α·ε0 (which samples
  ∝ exp(ε_sel·score/(2Δ))). It is ε_sel-bounded-range, hence ε_sel²/8 = (α·ε0)²/2 zCDP
  (Cesar & Rogers 2021, Lemma 3.2);
* measure every cell of w_t: a = clip(q_w(D) + N(0, σ²I), 0, 1) with σ = Δ₂/((1 − α)·ε0) and
  Δ₂ = √2/n, the L2 sensitivity of a marginal of fractions under replace-one (one record leaves
  one cell and enters another): Δ₂²/(2σ²) = ((1 − α)·ε0)²/2 zCDP (Bun & Steinke 2016,
  Prop. 1.6);
* update A_t from all measurements so far (the algorithm's own step).

Budget: ρ = ρ(ε, δ) by the CKS conversion (:func:`~pubpriv_core.privacy.rho_from_eps`), and per
selection ε0 = sqrt(2ρ / (S·(α² + (1 − α)²))) with S = T·s selections (s marginals per round,
RAP; 1 otherwise), so the S selections and S measurements spend exactly ρ (α = 0.5 by default:
the paper's and its code's ``get_per_round_budget_zCDP``). Every charge goes to one
:class:`~pubpriv_core.privacy.ZCDPBudget` before its mechanism runs. The model sees the private
data only through the clipped noisy measurements; the private answers enter only the scores,
and the scores only the exponential mechanism.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from pubpriv_core import privacy
from pubpriv_core.algorithms.base import Release, ReleaseProblem
from pubpriv_core.algorithms.budget_checks import check_steps, target_rho
from pubpriv_core.algorithms.multiplicative_weights import check_budget, ledger_totals

#: L2 sensitivity of a whole marginal of fractions, times n (replace-one neighbours)
MARGINAL_L2 = math.sqrt(2.0)


@dataclass(frozen=True)
class RoundBudget:
    """ε0 and the two mechanisms' parameters for S selections of ρ in total."""

    rho: float
    selections: int
    alpha: float
    n: int

    @property
    def eps0(self) -> float:
        """ε0 = sqrt(2ρ / (S·(α² + (1 − α)²)))."""
        share = self.alpha ** 2 + (1.0 - self.alpha) ** 2
        return math.sqrt(2.0 * self.rho / (self.selections * share))

    @property
    def select_eps(self) -> float:
        """ε_sel = 2αε0: the exponential mechanism samples ∝ exp(αε0·score/Δ)."""
        return 2.0 * self.alpha * self.eps0

    @property
    def sensitivity(self) -> float:
        """Δ = 1/n: a marginal's max error moves by at most one record's weight."""
        return 1.0 / self.n

    @property
    def sigma(self) -> float:
        """σ = (√2/n) / ((1 − α)·ε0)."""
        return MARGINAL_L2 / (self.n * (1.0 - self.alpha) * self.eps0)


def marginal_scores(offsets: np.ndarray, data_answers: np.ndarray, model_answers: np.ndarray,
                    measured: np.ndarray) -> np.ndarray:
    """max over the cells of each marginal of |data − model| (cells of marginal w at
    ``offsets[w]:offsets[w+1]``); −∞ for the marginals flagged in ``measured``. A pure function
    of the two answer vectors."""
    gaps = np.abs(np.asarray(data_answers, float) - np.asarray(model_answers, float))
    scores = np.maximum.reduceat(gaps, offsets[:-1])
    return np.where(measured, -np.inf, scores)


def noisy_marginal(values: np.ndarray, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """clip(values + N(0, σ²I), 0, 1) through the harness' Gaussian mechanism."""
    return np.clip(privacy.gaussian_mechanism(np.asarray(values, float), sigma, rng), 0.0, 1.0)


@dataclass
class Measurements:
    """The measured marginals (workload indices) and their noisy cells, in order."""

    marginals: list[int] = field(default_factory=list)
    values: list[np.ndarray] = field(default_factory=list)

    def add(self, marginal: int, values: np.ndarray) -> None:
        self.marginals.append(int(marginal))
        self.values.append(values)

    def flat(self) -> np.ndarray:
        """All measured cells, marginal after marginal."""
        return np.concatenate(self.values) if self.values else np.empty(0)

    def __len__(self) -> int:
        return len(self.marginals)


class MeasurementModel(Protocol):
    """A distribution family with its update (PEP's histogram, GEM's generator, RAP's rows)."""

    def answers(self) -> np.ndarray:
        """q(A) for every workload cell (float64)."""

    def update(self, measurements: Measurements) -> int:
        """Fit A to all measurements; returns the optimisation steps taken."""

    def release(self) -> tuple[np.ndarray, dict]:
        """The released answers for every workload cell and what the trace should keep."""


class Rounds:
    """The privacy-spending steps of one run, charged to one ledger before they run."""

    def __init__(self, problem: ReleaseProblem, budget: RoundBudget, rng: np.random.Generator):
        self.problem = problem
        self.budget = budget
        self.ledger = privacy.ZCDPBudget(budget.rho)
        self.rng = rng
        self.measured = np.zeros(problem.workload.num_marginals, dtype=bool)
        self.measurements = Measurements()

    def select(self, model_answers: np.ndarray) -> int:
        """An unmeasured marginal by the exponential mechanism at ε_sel = 2αε0, Δ = 1/n."""
        scores = marginal_scores(self.problem.workload.offsets, self.problem.true_answers,
                                 model_answers, self.measured)
        eps = self.budget.select_eps
        self.ledger.charge(privacy.bounded_range_zcdp(eps), "select")
        return int(privacy.exponential_mechanism(scores, eps, self.budget.sensitivity, self.rng))

    def measure(self, marginal: int) -> np.ndarray:
        """Every cell of ``marginal`` + N(0, σ²), σ = (√2/n)/((1 − α)ε0), clipped to [0, 1]."""
        offsets = self.problem.workload.offsets
        sigma = self.budget.sigma
        self.ledger.charge(privacy.gaussian_zcdp(sigma, MARGINAL_L2 / self.budget.n), "measure")
        values = noisy_marginal(self.problem.true_answers[offsets[marginal]:offsets[marginal + 1]],
                                sigma, self.rng)
        self.measured[marginal] = True
        self.measurements.add(marginal, values)
        return values


def check_rounds(problem: ReleaseProblem, T: int, per_round: int = 1) -> None:
    """Each marginal is measured at most once: T·s must not exceed the workload's W."""
    W = problem.workload.num_marginals
    if T * per_round > W:
        raise ValueError(f"T={T} rounds of {per_round} marginal(s) exceed the workload's "
                         f"{W} marginals (each is measured once); pass T <= {W // per_round}")


def check_alpha(alpha: float) -> None:
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"algo.alpha must lie in (0, 1), got {alpha!r}; pass e.g. 0.5")


def check_adaptive(name: str, problem: ReleaseProblem, *, eps: float, delta: float, T: int,
                   alpha: float, per_round: int = 1) -> None:
    """The input checks of :func:`run_rounds`, without running: α in (0, 1), T·s ≤ W, ρ(ε, δ)
    not underflowing, and ε0, ε_sel, σ and both per-step charges positive finite numbers."""
    check_alpha(alpha)
    check_rounds(problem, T, per_round)
    budget = RoundBudget(target_rho(eps, delta), T * per_round, alpha, problem.n)
    check_steps(f"{name} at eps={eps:g}, T={T}", **{
        "eps0": budget.eps0, "selection eps": budget.select_eps, "sigma": budget.sigma,
        "selection charge": privacy.bounded_range_zcdp(budget.select_eps),
        "measurement charge": privacy.gaussian_zcdp(budget.sigma, MARGINAL_L2 / problem.n)})


def run_rounds(name: str, problem: ReleaseProblem, model: MeasurementModel, *, eps: float,
               delta: float, T: int, rng: np.random.Generator, alpha: float,
               per_round: int = 1, trace: dict | None = None) -> Release:
    """T rounds of ``per_round`` selections and measurements, each round ending with
    ``model.update``; the release is ``model.release()`` with the ledger's ρ and (ε, δ)."""
    check_budget(eps, delta, T)
    check_alpha(alpha)
    check_rounds(problem, T, per_round)
    budget = RoundBudget(privacy.rho_from_eps(eps, delta), T * per_round, alpha, problem.n)
    rounds = Rounds(problem, budget, rng)
    times, steps, selected = np.empty(T), np.zeros(T, dtype=np.int64), []
    cpu = time.process_time()
    for t in range(T):
        start = time.perf_counter()
        current = model.answers()
        for _ in range(per_round):
            marginal = rounds.select(current)
            rounds.measure(marginal)
            selected.append(marginal)
        steps[t] = model.update(rounds.measurements)
        times[t] = time.perf_counter() - start
    cpu = time.process_time() - cpu     # CPU seconds of the process (all threads) in the rounds
    answers, extra = model.release()
    ledger = rounds.ledger
    return Release(name, weights=extra.pop("weights", None), answers=answers, rho=ledger.spent,
                   eps=ledger.eps(delta), delta=delta, support=extra.pop("support", None),
                   trace={**(trace or {}), **extra, "marginals": selected,
                          "measured": rounds.measurements.values,
                          "iteration_s": times.tolist(), "rounds_cpu_s": cpu,
                          "steps": steps.tolist(),
                          "mean_steps": float(steps.mean()), "eps0": budget.eps0,
                          "alpha": alpha, "ledger": ledger_totals(ledger)},
                   runtime_s=float(times.sum()), iterations=T)
