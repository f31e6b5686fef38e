"""Tests for pubpriv_core.learning.liu2021 (Prop 4.3 inversion, best mixture, PMW^Pub hook)."""
import numpy as np
import pytest

from pubpriv_core.bounds import evaluate
from pubpriv_core.learning import liu2021 as lv


def test_prop43_alpha_inverts_the_registered_bound():
    a = lv.prop43_alpha(200000, 0.1, 2530, 1.1, 2.7)
    assert 0 < a < 1
    m = evaluate("liu2021.prop4.3.m", alpha=a, beta=0.1, Q_size=2530, D2=1.1, Dinf=2.7).value
    assert m == pytest.approx(200000, rel=1e-6)
    assert np.isnan(lv.prop43_alpha(100, 0.1, 2530, 1.1, 2.7))          # vacuous at tiny m


def test_best_mixture_on_identical_models_beats_public_only():
    setting = lv.Setting("tiny", 0.0, 0, 2)
    problem = lv.draw_problem(setting, 2000, 3000, np.random.default_rng(0))
    f = lv.best_mixture_error(problem, "lp")
    answerer = problem.public_answerer
    public_only = np.max(np.abs(answerer.expand(answerer.answer(problem.public_weights)) - problem.true_answers))
    assert 0 <= f <= public_only
    assert f <= lv.best_mixture_error(problem, "mw") + 1e-12          # MW is an upper estimate
    assert f < 1e-3                                                   # tiny domain fully covered


def test_pmwpub_error_shrinks_with_budget():
    setting = lv.Setting("tiny", 0.3, 0, 2)
    problem = lv.draw_problem(setting, 20000, 300, np.random.default_rng(1))
    low = np.mean([lv.pmwpub_max_error(problem, 0.02, 10, np.random.default_rng(s)) for s in range(3)])
    high = np.mean([lv.pmwpub_max_error(problem, 5.0, 10, np.random.default_rng(s)) for s in range(3)])
    assert high < low


def test_bad_sizes_raise():
    with pytest.raises(ValueError, match="n and m must be"):
        lv.draw_problem(lv.Setting("tiny"), 0, 10, np.random.default_rng(0))
    with pytest.raises(ValueError, match="unknown best-mixture method"):
        lv.best_mixture_error(lv.draw_problem(lv.Setting("tiny"), 10, 10, np.random.default_rng(0)), "x")
