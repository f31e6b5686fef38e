"""RAP^softmax: relaxed adaptive projection with softmax rows (Aydore et al. 2021, ICML,
arXiv 2103.06641; the softmax variant that Liu, Vietri & Wu 2021, §6, compare GEM with, and that
their reference code runs as RAP).

Rounds: :mod:`~pubpriv_core.algorithms.adaptive_measurements` with ``marginals_per_round``
selections per round (each an EM pick of an unmeasured marginal, each measured whole), so
ε0 = sqrt(2ρ/(T·s·(α² + (1 − α)²))). The synthetic data are K relaxed rows, each a product of
per-attribute softmax distributions over its own logits (``generators.init_rows``: N(0, 1)); a
k-way marginal's answer is the rows' mean product, as for GEM. After each round, up to
``max_iters`` Adam steps (one Adam for the whole run, learning rate ``lr``) on the squared error
‖a_S − q_S(rows)‖₂² over S = all measured cells, or ``max_idxs`` of them drawn without
replacement each step when there are more; the round stops when the loss is below 1e−8 or has not
improved by a relative 1e−7 for 10 steps. The release is the last rows' answers. Not built: RAP
with rows in [0, 1]^D and projection (the original relaxation), whose answers are not
probabilities.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from pubpriv_core.algorithms import generators, product_kernels
from pubpriv_core.algorithms.adaptive_measurements import (Measurements, check_successor,
                                                             run_rounds)
from pubpriv_core.algorithms.base import PublicProblem, Release
from pubpriv_core.algorithms.mixture_fit import Fitter
from pubpriv_core.algorithms.product_kernels import ProductPlan
from pubpriv_core.algorithms.select_measure import parse_options
from pubpriv_core.algorithms.settings import RAPOptions
from pubpriv_core.privacy.private_data import PrivateData

LOSS_FLOOR = 1e-8
PLATEAU_STEPS = 10
PLATEAU_RELATIVE = 1e-7


class SquaredLoss:
    """‖a_S − q_S‖₂² over the measured cells (a random ``max_idxs`` of them when more)."""

    def __init__(self, plan: ProductPlan, targets: np.ndarray, max_idxs: int,
                 rng: np.random.Generator):
        self.plan, self.targets, self.max_idxs, self.rng = plan, targets, max_idxs, rng

    def evaluate(self, Pt: np.ndarray, threshold: float) -> tuple[float, int, np.ndarray]:
        coef = np.zeros(self.targets.size)
        if self.targets.size > self.max_idxs:
            cells = np.sort(self.rng.choice(self.targets.size, self.max_idxs, replace=False))
            e = self.targets[cells] - product_kernels.cell_answers(Pt, self.plan, cells)
        else:
            cells = np.arange(self.targets.size)
            e = self.targets - product_kernels.answers(Pt, self.plan)
        coef[cells] = -2.0 * e
        return float(np.dot(e, e)), int(cells.size), coef


@lru_cache(maxsize=16)
def _fitter(shape: tuple[int, ...]) -> Fitter:
    segments, count = generators.attribute_segments(shape), len(shape)
    return Fitter(lambda params, _: generators.blockwise_softmax(params["logits"], segments,
                                                                 count))


class RelaxedRows:
    """RAP^softmax's rows and their per-round fit (see the module docstring)."""

    def __init__(self, problem: PublicProblem, opts: RAPOptions, rng: np.random.Generator):
        shape = tuple(problem.workload.domain.shape)
        self.problem, self.opts, self.rng = problem, opts, rng
        self.params = generators.init_rows(generators.jax_key(rng), opts.K, int(sum(shape)))
        self.fitter = _fitter(shape)
        self.state = self.fitter.init_state(self.params)
        self.plan = ProductPlan(problem.workload)

    def answers(self) -> np.ndarray:
        return self.fitter.answers(self.params, None, self.plan)

    def update(self, measurements: Measurements) -> int:
        plan = ProductPlan(self.problem.workload, np.array(measurements.marginals))
        loss = SquaredLoss(plan, measurements.flat(), self.opts.max_idxs, self.rng)
        best, bad = np.inf, 0
        for step in range(self.opts.max_iters):
            params, state, value, _ = self.fitter.step(self.params, self.state, None, loss,
                                                       0.0, self.opts.lr)
            if value < LOSS_FLOOR:
                return step
            bad = 0 if value < best * (1.0 - PLATEAU_RELATIVE) else bad + 1
            best = min(best, value)
            if bad > PLATEAU_STEPS:
                return step
            self.params, self.state = params, state
        return self.opts.max_iters

    def release(self) -> tuple[np.ndarray, dict]:
        return self.fitter.answers(self.params, None, self.plan, np.float64), {}


def check(problem: PublicProblem, *, eps: float, delta: float, T: int, **options) -> None:
    """The input checks of :func:`run_rap`, without running: options and the budget of T rounds
    of ``marginals_per_round`` selections."""
    check_successor("rap", RAPOptions, problem, eps=eps, delta=delta, T=T, options=options)


def run_rap(problem: PublicProblem, private: PrivateData, *, T: int,
            rng: np.random.Generator, **options) -> Release:
    """RAP^softmax spending the private data's budget over T rounds of ``marginals_per_round``
    selections."""
    opts = parse_options(RAPOptions, options)
    return run_rounds("rap", problem, private, RelaxedRows(problem, opts, rng), T=T,
                      alpha=opts.alpha, per_round=opts.marginals_per_round)
