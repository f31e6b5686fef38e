"""Beimel et al. 2014: hand-checked values and the spec's sanity tables."""
import math

import pytest

from pubpriv_core.bounds import evaluate
from pubpriv_core.bounds.beimel2014 import lemma3_4_success, sampling_rate

SANITY = dict(alpha=0.1, beta=0.05, eps=1.0)


def test_issue_calls():
    assert evaluate("beimel2014.cor3.8", d=8, beta=0.05, eps=1.0).value == pytest.approx(
        8.49, abs=5e-3)
    assert evaluate("beimel2014.thm7.2", d=8, **SANITY).value == pytest.approx(28.3, abs=5e-2)


@pytest.mark.parametrize("d, cor38, thm72", [(8, 8.5, 28.3), (16, 14.0, 46.8), (32, 25.1, 83.8),
                                              (64, 47.3, 157.7)])
def test_spec_sanity_table(d, cor38, thm72):
    assert round(evaluate("beimel2014.cor3.8", d=d, beta=0.05, eps=1.0).value, 1) == cor38
    assert round(evaluate("beimel2014.thm7.2", d=d, **SANITY).value, 1) == thm72


def test_thm3_6_with_point_class_equals_cor3_8():
    d = 12
    general = evaluate("beimel2014.thm3.6", H_size=2 ** d, beta=0.05, eps=0.5).value
    assert general == pytest.approx(evaluate("beimel2014.cor3.8", d=d, beta=0.05, eps=0.5).value)
    assert general == pytest.approx(math.log((2 ** d - 1) * 0.95 / 0.05) / 0.5)


@pytest.mark.parametrize("d, n_star", [(4, 134), (8, 201), (16, 328), (32, 575)])
def test_lemma3_4_exact_learner_sample_size(d, n_star):
    assert evaluate("beimel2014.lemma3.4.exact", d=d, **SANITY).value == n_star


def test_lemma3_4_success_is_monotone_so_bisection_is_exact():
    probs = [lemma3_4_success(m, 8, 0.1, 1.0) for m in range(1, 260)]
    assert all(b >= a - 1e-12 for a, b in zip(probs, probs[1:]))
    first = next(m for m, p in enumerate(probs, start=1) if p >= 0.95)
    assert first == 201


def test_lemma3_4_success_matches_enumeration_for_tiny_case():
    m, d, a, e = 3, 2, 0.3, 0.7
    direct = sum(math.comb(m, k) * a ** k * (1 - a) ** (m - k)
                 / (1 + math.exp(-e * m / 2) + 2 * math.exp(-e * k / 2)) for k in range(m + 1))
    assert lemma3_4_success(m, d, a, e) == pytest.approx(direct, rel=1e-12)


def test_lemma3_9_root_is_where_the_condition_turns_satisfiable():
    r = evaluate("beimel2014.lemma3.9", d=16, **SANITY)
    gap = lambda m: (2 ** 16 - 2) * math.exp(-0.4 * m) * (0.95 - math.exp(-m / 30)) - (
        0.05 + math.exp(-m / 30))
    assert gap(r.value - 1e-3) > 0 > gap(r.value + 1e-3)
    assert 0 < r.details["m_low"] < r.value


def test_lemma3_9_is_vacuous_for_tiny_domains():
    assert evaluate("beimel2014.lemma3.9", d=2, **SANITY).value == 0.0


def test_lemma3_9_closed_form():
    r = evaluate("beimel2014.lemma3.9.closed", d=8, **SANITY)
    assert r.value == pytest.approx((math.log(254) + math.log(0.9 / 0.1)) / 0.4)
    assert r.details["valid_from"] == pytest.approx(30 * math.log(20))


def test_claim4_5_spec_totals_and_paper_variant():
    r = evaluate("beimel2014.claim4.5", alpha=0.1, beta=0.01, eps=1.0)
    assert r.details == {"N": 28, "per_run": 3406958, "m_sel": 2475}
    assert r.value == 28 * 3406958 + 2475
    assert evaluate("beimel2014.claim4.5", alpha=0.1, beta=0.01, eps=0.5).value == \
        pytest.approx(1.9e8, rel=0.01)
    paper = evaluate("beimel2014.claim4.5.paper", alpha=0.1, beta=0.01, eps=1.0)
    assert paper.details["m_sel"] == math.ceil(240 * math.log(300)) < r.details["m_sel"]


def test_lemma4_4_rate_exceeds_eps_over_six_and_sample_size():
    for eps in (0.01, 0.3, 0.99):
        f = evaluate("beimel2014.lemma4.4.f", eps=eps).value
        assert f == pytest.approx(sampling_rate(eps)) and f > eps / 6
    assert sampling_rate(math.log(4)) == pytest.approx(3 / (4 + 4 - 1 - 1))
    assert evaluate("beimel2014.lemma4.4", alpha=0.1, eps=0.5).value == pytest.approx(
        384 * math.log(4) / 0.005)
    with pytest.raises(ValueError, match="eps < 1"):
        evaluate("beimel2014.lemma4.4", alpha=0.1, eps=1.0)


def test_lemma4_1_and_thm4_2_derived():
    assert evaluate("beimel2014.lemma4.1", d=16, alpha=0.1).value == pytest.approx(
        8 * math.e * 16 * 121)
    with pytest.raises(ValueError, match="d >= 16"):
        evaluate("beimel2014.lemma4.1", d=8, alpha=0.1)
    r = evaluate("beimel2014.thm4.2.derived", d=32, **SANITY)
    assert r.details["H_size"] == pytest.approx(8 * math.e * 32 * 21 ** 2)
    assert r.value == pytest.approx(128 * math.log(3 * r.details["H_size"] / 0.05) / 0.1)


def test_lemma5_2_variants():
    assert evaluate("beimel2014.lemma5.2", d=10, beta=0.05, eps=1).value == pytest.approx(
        math.log(1024 * 19))
    corrected = evaluate("beimel2014.lemma5.2.shape", d=10, beta=0.05, eps=1).value
    printed = evaluate("beimel2014.lemma5.2.shape.paper", d=10, beta=0.05, eps=1).value
    assert corrected == pytest.approx(10 + math.log(20)) and printed == pytest.approx(30)


def test_laplace_histogram_matches_exact_usefulness_condition():
    d, e, a, b = 10, 1.0, 0.1, 0.05
    m = evaluate("beimel2014.laplace_histogram", d=d, alpha=a, beta=b, eps=e).value
    assert (1 - math.exp(-a * e * m / 2)) ** (2 ** d) == pytest.approx(1 - b, rel=1e-9)
    assert m == pytest.approx(2 * (d * math.log(2) + math.log(1 / b)) / (e * a), rel=0.01)


def test_simple_closed_forms():
    assert evaluate("beimel2014.claim4.3", alpha=0.1).value == pytest.approx(3200 * math.log(4))
    assert evaluate("beimel2014.lemma3.10", d=9, alpha=0.3).value == 9
    assert evaluate("beimel2014.thm7.1", d=4, **SANITY).value == pytest.approx(
        4 * math.log(10) / 1e-3 + math.log(20) / 0.1)
    assert evaluate("beimel2014.thm3.2.derived", H_size=100, **SANITY).value == pytest.approx(
        128 * math.log(6000) / 0.1)
