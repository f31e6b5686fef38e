"""Non-private baselines of Liu et al. 2021 (§5): the public distribution itself.

Public-only outputs A_0, the empirical distribution of the public dataset D̂ on its support X̂
(PMW^Pub with T = 0). It touches no private data, so it spends ρ = 0.
"""
from __future__ import annotations

import time

import numpy as np

from pubpriv_core.algorithms.base import PublicProblem, Release
from pubpriv_core.privacy.private_data import PrivateData


def check(problem: PublicProblem, *, eps: float, delta: float, T: int) -> None:
    """The input check of :func:`run_public_only`: a public source exists."""
    if problem.public_support is None:
        raise ValueError("public_only needs a public source; set public=... in the config")


def run_public_only(problem: PublicProblem, private: PrivateData, *, T: int,
                    rng: np.random.Generator) -> Release:
    """Release A_0 unchanged; ``private``, ``T`` and ``rng`` are not used (nothing is spent)."""
    start = time.perf_counter()
    weights = problem.public_weights
    answerer = problem.public_answerer
    answers = answerer.expand(answerer.answer(weights))
    return Release("public_only", weights=weights, answers=answers,
                   support=problem.public_support, runtime_s=time.perf_counter() - start)
