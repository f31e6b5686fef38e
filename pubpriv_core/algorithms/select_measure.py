"""What AIM, MST and JAM-PGM share: the neighbouring relation, measurements merged per clique,
public marginals, option checks and the release.

Neighbouring relation (:class:`~pubpriv_core.privacy.private_data.Relation`): by default replace
one record, n public (the relation of PMW^Pub here, and of JAM-PGM: Fuentes et al. 2024). A full
marginal of counts then changes in two cells by one: L1 sensitivity 2, L2 sensitivity √2, so
N(0, σ²) per cell costs 2/(2σ²) = 1/σ² zCDP (Bun & Steinke 2016, Prop. 1.6) and an L1 distance
to a data-independent vector has sensitivity 2; models are fitted with total n. AIM also offers
add/remove one record (the relation of the AIM and MST papers and their reference code):
sensitivities 1, N(0, σ²) costs 1/(2σ²), n is private and the model's total is estimated from the
measurements.

Every selection is the exponential mechanism charged ε²/8 (bounded range: Cesar & Rogers 2021)
and every measurement the Gaussian mechanism, both run by the private data's handle
(:meth:`~pubpriv_core.privacy.private_data.PrivateData.select_clique`,
:meth:`~pubpriv_core.privacy.private_data.PrivateData.gaussian_clique`), which charges the
harness's ledger before it draws.
"""
from __future__ import annotations

import dataclasses
import math
import time

import numpy as np

from pubpriv_core.algorithms import pgm
from pubpriv_core.algorithms.base import PublicProblem, Release
from pubpriv_core.algorithms.settings import check_fraction, check_positive_int  # noqa: F401
from pubpriv_core.privacy.private_data import REPLACE_ONE, Relation


MARGINAL_L1 = REPLACE_ONE.marginal_l1   # replace-one L1 sensitivity of a marginal of counts


def model_total(rel: Relation, problem: PublicProblem) -> float | None:
    """The model total: n when it is public, else None (estimated from measurements)."""
    return float(problem.n) if rel.public_n else None


def expected_noise_l1(sigma: float, cells: int) -> float:
    """E‖N(0, σ²I_cells)‖₁ = sqrt(2/π)·σ·cells: AIM's penalty and annealing threshold
    (McKenna et al. 2022, Alg. 2 line 14, Alg. 4), JAM-PGM's expected private error."""
    return math.sqrt(2.0 / math.pi) * sigma * cells


class MeasurementSet:
    """Marginal measurements merged per clique, the loss's terms for Private-PGM.

    Σ_i ½‖(μ_r − y_i)/σ_i‖² = ½‖(μ_r − ȳ)/σ̄‖² + const with 1/σ̄² = Σ_i 1/σ_i² and
    ȳ = σ̄²·Σ_i y_i/σ_i²: the same estimate with one term per clique, so measuring a clique again
    leaves the estimation problem's structure (and its compiled program) unchanged.
    """

    def __init__(self):
        self._sums: dict[pgm.Clique, tuple[np.ndarray, float]] = {}

    def add(self, clique: pgm.Clique, values: np.ndarray, stddev: float) -> None:
        weighted, precision = self._sums.get(clique, (0.0, 0.0))
        self._sums[clique] = (weighted + values / stddev ** 2, precision + 1.0 / stddev ** 2)

    def discard(self, clique: pgm.Clique) -> None:
        self._sums.pop(clique, None)

    @property
    def cliques(self) -> list[pgm.Clique]:
        return list(self._sums)

    def __contains__(self, clique: pgm.Clique) -> bool:
        return clique in self._sums

    def measurements(self) -> list:
        return [pgm.measurement(weighted / precision, clique, precision ** -0.5)
                for clique, (weighted, precision) in self._sums.items()]


class PublicMarginals:
    """The public proxy ŷ_r = n·M_r(D̂)/m of a clique (JAM-PGM, Fuentes et al. 2024: the public
    marginal rescaled to n), computed once per clique from the public source only."""

    def __init__(self, problem: PublicProblem):
        self.problem = problem
        self._public: dict[pgm.Clique, np.ndarray] = {}

    def __call__(self, clique: pgm.Clique) -> np.ndarray:
        if clique not in self._public:
            problem = self.problem
            if problem.public_support is None:
                raise ValueError("this algorithm needs a public source; set public=... in the "
                                 "config")
            self._public[clique] = pgm.marginal(problem.public_support, problem.domain,
                                                clique, problem.public_weights * problem.n)
        return self._public[clique]


def parse_options(cls, options: dict):
    """``cls(**options)``, an unknown key being a one-line ValueError."""
    known = {f.name for f in dataclasses.fields(cls)}
    for key in options:
        if key not in known:
            raise ValueError(f"unknown option algo.{key}; choose from {', '.join(sorted(known))}")
    return cls(**options)


def check_model_size(workload, limit_mb: float) -> None:
    """Refuse a model-size limit below the largest single workload marginal."""
    largest = int(workload.marginal_sizes.max()) * 8 / 2 ** 20
    if not limit_mb >= largest:
        raise ValueError(f"algo.max_model_size={limit_mb:g} MB is below one workload marginal "
                         f"({largest:.3g} MB); raise it (the papers use 80)")


def release(algo: str, problem: PublicProblem, model, start: float, rounds: int,
            trace: dict) -> Release:
    """The model's marginals on every workload cell, as fractions of the model's total (n under
    replace-one; query order of :class:`~pubpriv_core.queries.MarginalWorkload`). The release is
    the model itself (``trace["model"]``: the estimator's model, see
    :func:`~pubpriv_core.algorithms.pgm.fit`), not a weighted support."""
    answers = pgm.workload_answers(model, problem.workload)
    trace = {**trace, "model": model, "rounds": rounds,
             "model_size_mb": pgm.model_size_mb(pgm.to_mbi(problem.domain),
                                                pgm.model_cliques(model))}
    return Release(algo, weights=None, answers=answers, trace=trace,
                   runtime_s=time.perf_counter() - start, iterations=rounds)
