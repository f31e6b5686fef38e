"""Alon, Bassily, Moran 2019: Lemma 3.3 cover bound and the reduction maps."""
import math

import pytest

from pubpriv_core.bounds import evaluate


def test_issue_call():
    assert evaluate("alon2019.lemma3.3", d=1, alpha=0.1, beta=0.05).value == 820


@pytest.mark.parametrize("d, alpha, n_pub", [(1, 0.1, 820), (2, 0.1, 1475), (4, 0.1, 2784),
                                             (1, 0.05, 1762), (1, 0.01, 10216),
                                             (1, 0.001, 121995)])
def test_spec_minimum_public_sample(d, alpha, n_pub):
    assert evaluate("alon2019.lemma3.3", d=d, alpha=alpha, beta=0.05).value == n_pub


def test_minimum_is_tight_against_the_failure_bound():
    fail = lambda n: evaluate("alon2019.lemma3.3.fail", n_pub=n, d=2, alpha=0.1).value
    assert fail(1475) <= 0.05 < fail(1474)
    assert fail(1474) == pytest.approx(2 * (2 * math.e * 1474 / 2) ** 4 * math.exp(-147.4 / 4))


def test_failure_bound_rejects_n_pub_below_d():
    with pytest.raises(ValueError, match="n_pub >= d"):
        evaluate("alon2019.lemma3.3.fail", n_pub=2, d=3, alpha=0.1)


def test_exact_growth_variant_is_tighter_and_tight():
    exact = int(evaluate("alon2019.lemma3.3.growth", d=2, alpha=0.1, beta=0.05).value)
    assert exact < 1475
    bound = lambda n: 2 * (1 + 2 * n + math.comb(2 * n, 2)) ** 2 * math.exp(-0.1 * n / 4)
    assert bound(exact) <= 0.05 < bound(exact - 1)


def test_lower_bounds_and_reduction():
    assert evaluate("alon2019.thm4.1", alpha=0.001).value == pytest.approx(0.625)
    assert evaluate("alon2019.lemma4.4.alpha", alpha=0.001, n_pub=5).value == pytest.approx(0.5)
    r = evaluate("alon2019.lemma4.4.n", alpha=0.001, n_priv=1001, n_pub=5)
    assert r.value == 21 and r.details["p"] == pytest.approx(0.002)
    with pytest.raises(ValueError, match="1/100"):
        evaluate("alon2019.lemma4.4.alpha", alpha=0.05, n_pub=5)


def test_thm3_1_shapes():
    base = 2 * math.log(10) + math.log(20)
    assert evaluate("alon2019.thm3.1.n_priv", d=2, alpha=0.1, beta=0.05, eps=0.05).value == \
        pytest.approx(base * 200)
    assert evaluate("alon2019.thm3.1.n_priv", d=2, alpha=0.1, beta=0.05, eps=1).value == \
        pytest.approx(base * 100)
    assert evaluate("alon2019.thm3.1.n_pub", d=2, alpha=0.1, beta=0.05).value == \
        pytest.approx(base * 10)


def test_asspp_excess_terms():
    r = evaluate("alon2019.asspp.excess", alpha=0.05, H_size=821, beta=0.05, eps=1.0,
                 n_priv=10_000)
    assert r.details["sampling"] == pytest.approx(2 * math.sqrt(math.log(6 * 821 / 0.05) / 2e4))
    assert r.details["selection"] == pytest.approx(2 * math.log(3 * 821 / 0.05) / 1e4)
    assert r.value == pytest.approx(0.05 + r.details["sampling"] + r.details["selection"])
