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


def test_support_problem_has_exactly_s_distinct_rows_and_uniform_start():
    pair = lv.padded_pair("tiny", 0, 0.3, 0)
    problem = lv.support_problem(pair, 500, 40, np.random.default_rng(0), k=2)
    assert problem.public_support.shape[0] == 40
    assert len(np.unique(problem.public_support, axis=0)) == 40
    assert np.allclose(problem.public_weights, 1 / 40) and problem.public_rows == 40
    with pytest.raises(ValueError, match="distinct"):
        lv.distinct_rows(pair.public, 10 ** 6, np.random.default_rng(0), max_draws=1000)


def test_padded_pair_keeps_the_law_of_the_first_attributes():
    """Appending attributes grows |X| but leaves the joint law of the first ones unchanged."""
    small, big = lv.padded_pair("tiny", 0, 0.3, 0), lv.padded_pair("tiny", 4, 0.3, 0)
    assert big.private.domain.size() > small.private.domain.size()
    attrs = small.private.domain.attributes
    for a, b in ((small.private, big.private), (small.public, big.public)):
        assert np.allclose(a.marginal(attrs[:3]), b.marginal(attrs[:3]))


def test_source_check_releases_f_with_laplace_of_scale_one_over_n_eps():
    problem = lv.draw_problem(lv.Setting("tiny", 0.3, 0, 2), 1000, 200, np.random.default_rng(2))
    check = lv.source_check("s", problem, 0.01, 4000, np.random.default_rng(3))
    assert check.exact == pytest.approx(lv.best_mixture_error(problem, "lp"))
    assert check.mw >= check.exact - 1e-12
    noise = check.dp - check.exact
    assert np.mean(np.abs(noise)) == pytest.approx(1 / (1000 * 0.01), rel=0.06)   # E|Lap(b)| = b
    other = lv.SourceCheck("t", check.exact + 0.5, check.dp + 0.5, check.mw, 1000, 0.01)
    rates = lv.pick_rates([check, other])
    assert rates["s"] > 0.99 and rates["s"] + rates["t"] == pytest.approx(1.0)


def test_transcript_law_matches_the_implementation():
    """The exact transcript law used by the audit fits PMW^Pub's own outputs (and would not fit
    a run whose reported ε0 is off)."""
    problems = lv.tiny_problems(2)
    problem = problems[(0, 3)]
    rng = np.random.default_rng(4)
    ts = [lv.pmwpub_transcript(problem, 8.0, 1e-3, 2, rng) for _ in range(600)]
    fit = lv.transcript_fit(problem, ts, np.random.default_rng(5))
    assert fit["selection_p"] > 1e-3 and fit["measurement_p"] > 1e-3
    wrong = [(q, a, e / 3, r) for q, a, e, r in ts]
    bad = lv.transcript_fit(problem, wrong, np.random.default_rng(5))
    assert min(bad.values()) < 1e-3
    q, a, e, _ = ts[0]
    assert np.isfinite(lv.transcript_log_likelihood(problem, q, a, e))


def test_decoys_grow_the_support_around_a_fixed_core():
    pair = lv.padded_pair("tiny", 0, 0.3, 0)
    problem = lv.support_problem(pair, 300, 60, np.random.default_rng(6), k=2, core=10)
    support = problem.public_support
    assert len(np.unique(support, axis=0)) == 60 and np.allclose(problem.public_weights, 1 / 60)
    again = lv.support_problem(pair, 300, 10, np.random.default_rng(6), k=2)
    assert np.array_equal(support[:10], again.public_support)        # same core rows
    with pytest.raises(ValueError, match="do not fit"):
        lv.decoy_rows(pair.private.domain, pair.private.domain.size(), support[:1], np.random.default_rng(0))
    with pytest.raises(ValueError, match="core"):
        lv.support_problem(pair, 300, 5, np.random.default_rng(0), core=6)


def test_symmetry_representatives_cover_every_pair_once():
    problems = lv.tiny_problems(2)
    pairs = lv.replace_one_pairs(problems)
    reps = lv.symmetry_representatives(pairs, (2, 2))
    assert len(pairs) == 48 and len(reps) == 7
    assert lv.symmetry_representatives(reps, (2, 2)) == reps           # orbits are distinct
    assert len(lv.symmetry_representatives(pairs, (2, 3))) > len(reps)  # fewer symmetries
    # one orbit: the law of the first selection is the same up to relabelling the queries
    a, b = problems[(0, 0)], problems[(3, 3)]     # images under flipping both attributes
    from pubpriv_core.privacy import permute_and_flip_probabilities
    probs = [np.sort(permute_and_flip_probabilities(np.abs(0.25 * 2 - p.true_answers), 1.0, 0.5))
             for p in (a, b)]
    assert np.allclose(*probs)
