"""PMW^Pub (Liu, Vietri, Steinke, Ullman, Wu 2021, Algorithm 1).

MWEM whose distribution lives on the public support X̂ (distinct rows of the public dataset D̂)
and starts from A_0 = the empirical distribution of D̂ on X̂ (``init="public"``, the paper) or the
uniform distribution on X̂ (``init="uniform"``, the ablation). Selection, measurement, replay and
accounting are those of :mod:`pubpriv_core.algorithms.multiplicative_weights`.
"""
from __future__ import annotations

import numpy as np

from pubpriv_core import privacy
from pubpriv_core.algorithms.base import PublicProblem, Release
from pubpriv_core.algorithms.multiplicative_weights import check_rounds, run_mw
from pubpriv_core.algorithms.settings import PMWPubOptions
from pubpriv_core.privacy.private_data import PrivateData

def check(problem: PublicProblem, *, eps: float, delta: float, T: int, **options) -> None:
    """The input checks of :func:`run_pmwpub`, without running: the options, a public source,
    and the rounds' budget left after the quality check (ε_f²/2)."""
    opts = PMWPubOptions(**options)
    if problem.public_support is None:
        raise ValueError("pmwpub needs a public source; set public=... in the config")
    eps_f = opts.quality_check_eps
    reserved = privacy.pure_dp_zcdp(eps_f) if eps_f > 0 else 0.0
    check_rounds(problem.n, eps, delta, T, reserved)


def run_pmwpub(problem: PublicProblem, private: PrivateData, *, T: int,
               rng: np.random.Generator, **options) -> Release:
    """Release a reweighting of X̂ spending the private data's budget over T rounds.

    ``quality_check_eps`` = ε_f > 0 first releases the best mixture error of X̂ with
    Laplace(1/(n·ε_f)) (Lemma 4.2; the paper suggests ε_f = 0.01), charged ε_f²/2 to the same
    ledger, and runs the T rounds on what remains; the noisy value is in the trace.
    """
    opts = PMWPubOptions(**options)
    quality = {}
    if opts.quality_check_eps > 0:
        quality = {"quality_check_eps": opts.quality_check_eps,
                   "best_mixture_error_dp": private.best_mixture_error(opts.quality_check_eps)}
    answerer = problem.public_answerer
    if opts.init == "public":
        init_weights = problem.public_weights
    else:
        init_weights = np.full(answerer.size, 1.0 / answerer.size)
    out = run_mw(answerer, private, init_weights, T, rng, opts)
    return Release("pmwpub", weights=out["weights"], answers=out["answers"],
                   support=problem.public_support, last_answers=out["last_answers"],
                   trace={**out["trace"], **quality}, runtime_s=out["runtime_s"], iterations=T)
