"""End-to-end privacy-loss audits of AIM, MST and JAM-PGM (as PMW^Pub's in
``test_learning_core_audit.py``).

On a 2 × 2 domain, n = 3, the neighbouring pair D = {00, 01, 10}, D' = {11, 01, 10} (one record
replaced in both attributes, so every marginal moves). An output is the transcript of the
algorithm's mechanism calls; its exact log-likelihood on D and on D' comes from the harness
(``privacy_flow.transcript_audit``: the recorded calls' log-probabilities, and a replay of the
transcript on D'), so the privacy loss L = ln P_D(o)/P_D'(o) is exact per sample and the audit
estimates D_α(P_D‖P_D') and δ(ε) by Monte Carlo with Bonferroni-corrected 99% lower bounds
(:func:`~pubpriv_core.learning.audit.loss_audit`).

A run at the claimed ε must not be flagged; a run at 4ρ (σ halved, selection ε doubled) audited
against ρ must be. False-failure rate: a correctly calibrated algorithm is flagged with
probability ≤ 1% over the sampling (the bounds' confidence); the seeds are fixed, so the outcome
is deterministic. JAM-PGM uses a public source unlike the private data (every public row 11) so
that its selections pick private measurements.
"""
from __future__ import annotations

import numpy as np
import pytest

import privacy_flow as pf
from pubpriv_core.privacy import eps_from_rho, rho_from_eps

SHAPE = (2, 2)
D = np.array([[0, 0], [0, 1], [1, 0]])
D2 = np.array([[1, 1], [0, 1], [1, 0]])
DELTA = 1e-3
SAMPLES = 150
#: algorithm -> (claimed ε, public rows or None, options)
SETTINGS = {"aim": (4.0, None, {"rounds": 2}),
            "mst": (4.0, None, {}),
            "jam_pgm": (8.0, np.array([[1, 1]] * 4), {"rounds": 2})}


@pytest.mark.parametrize("factor, flagged", [(1, False), (4, True)])
@pytest.mark.parametrize("name", sorted(SETTINGS))
def test_transcript_loss_audit(name, factor, flagged):
    eps, public, options = SETTINGS[name]
    problems = {0: pf.make_problem(D, SHAPE, public), 1: pf.make_problem(D2, SHAPE, public)}
    rho = rho_from_eps(eps, DELTA)
    result = pf.transcript_audit(name, problems, [(0, 1)], eps_run=eps_from_rho(factor * rho,
                                                                                DELTA),
                                 rho=rho, eps=eps, delta=DELTA, samples=SAMPLES, seed=factor,
                                 **options)
    assert result.flagged is flagged, result
    assert result.renyi_ratio > 0.3      # the pair does leak: the audit has something to see
