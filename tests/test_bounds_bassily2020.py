"""Bassily et al. 2020: Lemma 7, the explicit Theorem 10 chain, small facts."""
import math

import pytest

from pubpriv_core.bounds import evaluate

CHAIN = dict(alpha=0.1, beta=0.05, eps=1.0, delta=1e-6)


def lemma7_by_hand(x, h, a, b, e, dl):
    return 200 * math.sqrt(math.log(x) * math.log(2 / dl)) / (e * a * a) * (
        math.log(h) + math.log(128 * math.log(x) / (a * a * b)))


@pytest.mark.parametrize("bits, spec", [(20, 8.2e6), (40, 1.7e7), (100, 5.5e7)])
def test_private_only_pmw_on_threshold_grids(bits, spec):
    n = evaluate("bassily2020.lemma7", X_size=2 ** bits, H_size=2 ** bits, **CHAIN).value
    assert n == pytest.approx(lemma7_by_hand(2 ** bits, 2 ** bits, 0.1, 0.05, 1, 1e-6))
    assert float(f"{n:.2g}") == spec


@pytest.mark.parametrize("d, m", [(1, 3888), (2, 7009), (4, 13243)])
def test_thm10_public_size_is_lemma3_3_at_quarter_alpha_half_beta(d, m):
    assert evaluate("bassily2020.thm10.explicit.m", d=d, alpha=0.1, beta=0.05).value == m
    assert evaluate("bassily2020.lemma11.explicit", d=d, alpha=0.1, beta=0.05).value == m
    assert evaluate("alon2019.lemma3.3", d=d, alpha=0.025, beta=0.025).value == m


@pytest.mark.parametrize("d, spec", [(1, 2.2e7), (2, 6.2e7), (4, 1.9e8)])
def test_thm10_explicit_chain_matches_spec_within_its_rounding(d, spec):
    # The spec quotes ≈ values; the chain as specified gives 2.32e7, 6.29e7, 1.94e8.
    r = evaluate("bassily2020.thm10.explicit.n", d=d, p=d, **CHAIN)
    assert r.value == pytest.approx(spec, rel=0.06)


def test_thm10_chain_steps_by_hand_for_thresholds():
    r = evaluate("bassily2020.thm10.explicit.n", d=1, p=1, **CHAIN)
    m = r.details["m"]
    h = m + 1                                  # Σ_{i≤1} C(m, i)
    x = math.e * h                             # Claim 3 with p = 1 beats 2^{|H|}
    assert math.exp(r.details["log_H_size"]) == pytest.approx(h)
    assert r.value == pytest.approx(lemma7_by_hand(x, h, 0.05, 0.025, 1.0, 1e-6))


def test_claim3_fact4_thm13_lemma17():
    assert evaluate("bassily2020.claim3", H_size=10, p=2).value == pytest.approx((5 * math.e) ** 2)
    assert evaluate("bassily2020.fact4", d=3).value == 16
    assert evaluate("bassily2020.thm13.eps", n=11).value > 1 > \
        evaluate("bassily2020.thm13.eps", n=10).value
    assert evaluate("bassily2020.lemma17", n=100, alpha=0.1, beta=0.1).value == pytest.approx(
        100 * math.log(100) / 1e-3)
    assert evaluate("bassily2020.stumps.public", p=64, alpha=0.1, beta=0.05).value == \
        math.ceil(200 * math.log(2560))


def test_thm10_shapes():
    base = 2 * math.log(10) + math.log(20)
    n = evaluate("bassily2020.thm10.n", d=2, p=4, **CHAIN).value
    assert n == pytest.approx(2 * base ** 1.5 * math.sqrt(math.log(1e6)) / 0.01)
    fact4 = evaluate("bassily2020.thm10.n.fact4", d=2, **CHAIN).value
    assert fact4 == pytest.approx(n)           # √(2^d) = √p when p = 2^d
    assert evaluate("bassily2020.thm10.m", d=2, alpha=0.1, beta=0.05).value == \
        pytest.approx(base * 10)


def test_remark9_synthetic_size():
    assert evaluate("bassily2020.remark9", d=3, alpha=0.1).value == pytest.approx(300)
