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
the paper's and its code's ``get_per_round_budget_zCDP``). Both mechanisms are run by the
private data's handle (:meth:`~pubpriv_core.privacy.private_data.PrivateData.select_marginal`,
:meth:`~pubpriv_core.privacy.private_data.PrivateData.gaussian_marginal`), which computes the
scores and reads the private answers itself and charges the harness's ledger before it draws:
the model sees the private data only through the clipped noisy measurements.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from pubpriv_core import privacy
from pubpriv_core.algorithms.base import PublicProblem, Release
from pubpriv_core.algorithms.budget_checks import check_steps, target_rho
from pubpriv_core.privacy._checks import count
from pubpriv_core.privacy.private_data import MARGINAL_L2, PrivateData


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
    """The privacy-spending steps of one run, run by the private data's handle."""

    def __init__(self, problem: PublicProblem, private: PrivateData, budget: RoundBudget):
        self.private = private
        self.budget = budget
        self.measured = np.zeros(problem.workload.num_marginals, dtype=bool)
        self.measurements = Measurements()

    def select(self, model_answers: np.ndarray) -> int:
        """An unmeasured marginal by the exponential mechanism at ε_sel = 2αε0, Δ = 1/n."""
        return self.private.select_marginal(model_answers, self.measured,
                                            self.budget.select_eps)

    def measure(self, marginal: int) -> np.ndarray:
        """Every cell of ``marginal`` + N(0, σ²), σ = (√2/n)/((1 − α)ε0), clipped to [0, 1]."""
        values = np.clip(self.private.gaussian_marginal(marginal, self.budget.sigma), 0.0, 1.0)
        self.measured[marginal] = True
        self.measurements.add(marginal, values)
        return values


def check_rounds(problem: PublicProblem, T: int, per_round: int = 1) -> None:
    """Each marginal is measured at most once: T·s must not exceed the workload's W."""
    W = problem.workload.num_marginals
    if T * per_round > W:
        raise ValueError(f"T={T} rounds of {per_round} marginal(s) exceed the workload's "
                         f"{W} marginals (each is measured once); pass T <= {W // per_round}")


def check_alpha(alpha: float) -> None:
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"algo.alpha must lie in (0, 1), got {alpha!r}; pass e.g. 0.5")


def check_adaptive(name: str, problem: PublicProblem, *, eps: float, delta: float, T: int,
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


def check_successor(name: str, options_cls: type, problem: PublicProblem, *, eps: float,
                    delta: float, T: int, options: dict, needs_public: bool = False):
    """The input checks of a successor's run, without running: its options (returned parsed),
    a public source when it ``needs_public``, and the rounds' budget (:func:`check_adaptive`,
    ``marginals_per_round`` selections a round where the options have it)."""
    from pubpriv_core.algorithms.select_measure import parse_options

    opts = parse_options(options_cls, options)
    if needs_public and problem.public_support is None:
        raise ValueError(f"{name} needs a public source; set public=... in the config")
    check_adaptive(name, problem, eps=eps, delta=delta, T=T, alpha=opts.alpha,
                   per_round=getattr(opts, "marginals_per_round", 1))
    return opts


def run_rounds(name: str, problem: PublicProblem, private: PrivateData,
               model: MeasurementModel, *, T: int, alpha: float, per_round: int = 1,
               trace: dict | None = None) -> Release:
    """T rounds of ``per_round`` selections and measurements on the private data's budget, each
    round ending with ``model.update``; the release is ``model.release()``."""
    count("T", T, "set the number of rounds T")
    check_alpha(alpha)
    check_rounds(problem, T, per_round)
    budget = RoundBudget(private.budget.rho_total, T * per_round, alpha, problem.n)
    rounds = Rounds(problem, private, budget)
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
    return Release(name, weights=extra.pop("weights", None), answers=answers,
                   support=extra.pop("support", None),
                   trace={**(trace or {}), **extra, "marginals": selected,
                          "measured": rounds.measurements.values,
                          "iteration_s": times.tolist(), "rounds_cpu_s": cpu,
                          "steps": steps.tolist(),
                          "mean_steps": float(steps.mean()), "eps0": budget.eps0,
                          "alpha": alpha},
                   runtime_s=float(times.sum()), iterations=T)
