"""``measure_fit``: measure every workload marginal once, then fit the public support.

Privacy: each of the W marginals of the workload is a histogram of the private rows normalised by
n; replacing one row moves one unit of mass from one cell to another, so its L2 sensitivity is
√2/n (Bun & Steinke 2016, Prop. 1.6: N(0, σ²) noise is Δ²/(2σ²)-zCDP). With ρ = rho_from_eps(ε, δ)
split evenly, each marginal gets ρ/W, i.e. σ = (√2/n)/sqrt(2ρ/W), charged to one ZCDPBudget whose
ledger the release carries. Everything after the measurements reads only the noisy answers and
the public data, so it is post-processing and spends nothing (Dwork & Roth 2014, Prop. 2.1).

Fit: ``T`` rounds of multiplicative weights over the public support X̂ (Hardt & Rothblum 2010's
update): each round picks the measured query the current distribution answers worst and moves
weight towards its noisy answer with step ``step``. The release is the final distribution.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from experiments.release.configure.schema import AlgoConf
from experiments.release.configure.rules import real
from pubpriv_core.algorithms import Release, ReleaseProblem
from pubpriv_core.algorithms.plugins import AlgorithmPlugin
from pubpriv_core.privacy import ZCDPBudget, gaussian_mechanism, gaussian_sigma, gaussian_zcdp


@dataclass
class MeasureFitConf(AlgoConf):
    """Options of ``algo=measure_fit``: the multiplicative-weights step of the fit."""

    name: str = "measure_fit"
    step: float = 1.0


def run_measure_fit(problem: ReleaseProblem, *, eps: float, delta: float, T: int,
                    rng: np.random.Generator, step: float = 1.0) -> Release:
    """Measure all W marginals (ρ/W each), fit the public support in ``T`` MW rounds."""
    start = time.perf_counter()
    budget = ZCDPBudget.from_eps_delta(eps, delta)
    workload, n = problem.workload, problem.n
    sensitivity = math.sqrt(2.0) / n
    share = budget.rho_total / workload.num_marginals
    sigma = gaussian_sigma(share, sensitivity)
    noisy = np.empty(workload.num_queries)
    offsets = workload.offsets
    for w in range(workload.num_marginals):
        cells = slice(offsets[w], offsets[w + 1])
        budget.charge(gaussian_zcdp(sigma, sensitivity), f"measure marginal {w}")
        noisy[cells] = gaussian_mechanism(problem.true_answers[cells], sigma, rng)
    answerer = problem.public_answerer
    target = np.clip(noisy, 0.0, 1.0)[answerer.queries]      # the queries X̂ can answer
    weights = np.array(problem.public_weights, dtype=float)
    for _ in range(T):
        gap = answerer.answer(weights) - target
        worst = int(np.argmax(np.abs(gap)))
        rows = answerer.rows_of(worst)
        weights[rows] *= math.exp(-step * float(np.sign(gap[worst])))
        weights /= weights.sum()
    answers = answerer.expand(answerer.answer(weights))
    return Release("measure_fit", weights=weights, answers=answers, rho=budget.spent,
                   eps=budget.eps(delta), delta=delta, support=problem.public_support,
                   trace={"ledger": list(budget.ledger), "sigma": sigma},
                   runtime_s=time.perf_counter() - start, iterations=T)


PLUGIN = AlgorithmPlugin(
    name="measure_fit", run=run_measure_fit, options=MeasureFitConf,
    rules={"step": real(0.0, 100.0, "pass a multiplicative-weights step such as 1",
                        open_low=True)},
    label="measure + fit", uses_public=True,
    help={"step": "multiplicative-weights step of the fit (post-processing)"})
