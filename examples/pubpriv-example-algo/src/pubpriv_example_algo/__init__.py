"""``measure_fit``: measure every workload marginal once, then fit the public support.

Privacy: the plugin never sees the private rows. It receives them behind pubpriv's handle
(``private``) and asks it for each of the W marginals with Gaussian noise
(``private.gaussian_marginal``): a marginal of fractions has L2 sensitivity √2/n under
replace-one neighbours, so N(0, σ²) per cell costs (√2/n)²/(2σ²) zCDP (Bun & Steinke 2016,
Prop. 1.6), which the handle charges to the harness's ledger. With the budget ρ split evenly, each
marginal gets ρ/W, i.e. σ = (√2/n)/sqrt(2ρ/W). Everything after the measurements reads only the
noisy answers and the public data, so it is post-processing and spends nothing (Dwork & Roth
2014, Prop. 2.1); the harness records the ledger's ρ, ε and δ.

Fit: ``T`` rounds of multiplicative weights over the public support X̂ (Hardt & Rothblum 2010's
update): each round picks the measured query the current distribution answers worst and moves
weight towards its noisy answer with step ``step``. The release is the final distribution.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from pubpriv_core.algorithms.base import PublicProblem, Release
from pubpriv_core.algorithms.plugins import AlgorithmPlugin
from pubpriv_core.options import option, real
from pubpriv_core.privacy import gaussian_sigma
from pubpriv_core.privacy.private_data import PrivateData


@dataclass(frozen=True)
class MeasureFitOptions:
    """Options of ``algo=measure_fit``: the multiplicative-weights step of the fit."""

    step: float = option(1.0, real(0.0, 100.0, "pass a multiplicative-weights step such as 1",
                                   open_low=True),
                         "multiplicative-weights step of the fit (post-processing)")


def run_measure_fit(problem: PublicProblem, private: PrivateData, *, T: int,
                    rng: np.random.Generator, step: float = 1.0) -> Release:
    """Measure all W marginals (ρ/W each), fit the public support in ``T`` MW rounds."""
    start = time.perf_counter()
    workload, n = problem.workload, problem.n
    share = private.budget.rho_total / workload.num_marginals
    sigma = gaussian_sigma(share, math.sqrt(2.0) / n)
    noisy = np.empty(workload.num_queries)
    offsets = workload.offsets
    for w in range(workload.num_marginals):
        noisy[offsets[w]:offsets[w + 1]] = private.gaussian_marginal(w, sigma,
                                                                     f"measure marginal {w}")
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
    return Release("measure_fit", weights=weights, answers=answers,
                   support=problem.public_support, trace={"sigma": sigma},
                   runtime_s=time.perf_counter() - start, iterations=T)


PLUGIN = AlgorithmPlugin(name="measure_fit", run=run_measure_fit, options=MeasureFitOptions,
                         label="measure + fit", uses_public=True)
