"""MWEM (Hardt, Ligett, McSherry 2012) over the full domain, as run by Liu et al. 2021 (§5.3).

A_0 is uniform on all of X; the loop (permute-and-flip selection, Gaussian measurement, replay of
past measurements) is the one of PMW^Pub, run on the full-domain engine
(:class:`~pubpriv_core.queries.DomainAnswerer`: the distribution as a tensor over X, query rows as
slabs of it, all marginals by a reduction tree). The distribution has |X| entries, so MWEM is
refused on domains larger than ``max_domain_size`` (ADULT: |X| ≈ 7.3e11) with a pointer to PMW^Pub.
"""
from __future__ import annotations

import numpy as np

from pubpriv_core.algorithms.base import PublicProblem, Release
from pubpriv_core.algorithms.multiplicative_weights import check_rounds, run_mw
from pubpriv_core.algorithms.settings import MWEM_MAX_DOMAIN_SIZE, MWEMOptions
from pubpriv_core.privacy.private_data import PrivateData

DEFAULT_MAX_DOMAIN_SIZE = MWEM_MAX_DOMAIN_SIZE


class DomainTooLargeError(ValueError):
    """MWEM cannot hold a distribution over this domain."""


def check_domain_size(domain_size: int, max_domain_size: int = DEFAULT_MAX_DOMAIN_SIZE) -> None:
    if domain_size > max_domain_size:
        raise DomainTooLargeError(
            f"MWEM needs a weight per domain element and |X| = {domain_size:.3g} exceeds "
            f"max_domain_size = {max_domain_size:.3g}; use algo=pmwpub (public support) or a "
            "reduced domain")


def check(problem: PublicProblem, *, eps: float, delta: float, T: int, **options) -> None:
    """The input checks of :func:`run_mwem`, without running: |X|, the options, the rounds'
    budget."""
    opts = MWEMOptions(**options)
    check_domain_size(problem.domain.size(), opts.max_domain_size)
    check_rounds(problem.n, eps, delta, T)


def run_mwem(problem: PublicProblem, private: PrivateData, *, T: int,
             rng: np.random.Generator, **options) -> Release:
    """Release a distribution over the full domain spending the private data's budget over T
    rounds."""
    mw_options = MWEMOptions(**options)
    check_domain_size(problem.domain.size(), mw_options.max_domain_size)
    answerer = problem.domain_answerer
    uniform = np.full(answerer.size, 1.0 / answerer.size)
    out = run_mw(answerer, private, uniform, T, rng, mw_options)
    return Release("mwem", weights=out["weights"], answers=out["answers"], support=None,
                   last_answers=out["last_answers"], trace=out["trace"],
                   runtime_s=out["runtime_s"], iterations=T)
