"""Nandi & Bassily 2020: Alg. 3/5 parameters, Thm 3.3, Claim 3.6, ≈ forms, privacy checks."""
import math

import pytest

from pubpriv_core.bounds import evaluate
from pubpriv_core.bounds.nandi2020 import log_claim3_6_fail


@pytest.mark.parametrize("m, alpha, delta, spec", [
    (1000, 0.1, 1e-5, dict(T=25.6, eps_hat=0.082, **{"lambda": 1416}, k=1.86e6, w=6.6e4)),
    (100, 0.25, 1e-3, dict(T=8.8, eps_hat=0.132, **{"lambda": 430}, k=3.9e5, w=1.37e4)),
])
def test_alg3_alg5_parameters_reproduce_spec_table(m, alpha, delta, spec):
    p = evaluate("nandi2020.alg3.T", m=m, alpha=alpha, beta=0.1, delta=delta).details
    for key, value in spec.items():
        assert p[key] == pytest.approx(value, rel=0.006), key
    assert 0.033 <= p["w_over_k"] <= 0.037
    for bound_id, key in [("nandi2020.alg5.k", "k"), ("nandi2020.alg5.w", "w"),
                          ("nandi2020.alg5.lambda", "lambda"), ("nandi2020.alg3.eps_hat",
                                                                "eps_hat")]:
        assert evaluate(bound_id, m=m, alpha=alpha, beta=0.1, delta=delta).value == p[key]


def test_alg3_delta_hat_and_n_prime_by_hand():
    p = evaluate("nandi2020.alg3.T", m=1000, alpha=0.1, beta=0.1, delta=1e-5).details
    assert p["delta_hat"] == pytest.approx(1e-5 / (2 * math.e * math.log(2e5)))
    assert evaluate("nandi2020.alg3.n_prime", n=5600, eps=0.5).value == pytest.approx(50)


def test_thm3_3_explicit_spec_value_and_condition():
    r = evaluate("nandi2020.thm3.3.explicit", d=10, m=1000, alpha=0.1, beta=0.1, eps=1.0,
                 delta=1e-5)
    assert r.value == pytest.approx(9.9e11, rel=0.01)
    assert r.value == pytest.approx(448000 * r.details["n_prime"] / 8000)
    shape = evaluate("nandi2020.thm3.3", d=10, m=1000, alpha=0.1, beta=0.1, eps=1.0, delta=1e-5)
    assert r.value == pytest.approx(448000 * shape.value)
    with pytest.raises(ValueError, match="m >= 8"):
        evaluate("nandi2020.thm3.3", d=10, m=100, alpha=0.1, beta=0.1, eps=1.0, delta=1e-5)


@pytest.mark.parametrize("d, alpha, ratio", [(10, 0.1, 1.38), (100, 0.05, 1.30)])
def test_claim3_6_constant_50_falls_short_and_root_is_exact(d, alpha, ratio):
    closed = evaluate("nandi2020.claim3.6", d=d, alpha=alpha, beta=0.1).value
    root = int(evaluate("nandi2020.claim3.6.root", d=d, alpha=alpha, beta=0.1).value)
    assert root / closed == pytest.approx(ratio, abs=0.005)
    assert log_claim3_6_fail(root, d, alpha) <= math.log(0.1) < log_claim3_6_fail(root - 1, d,
                                                                                  alpha)


def test_chunk_constants_paper_and_corrected():
    p = dict(d=10, m=1000, alpha=0.1, beta=0.1, delta=1e-5)
    paper = evaluate("nandi2020.thm3.3.chunk", **p)
    fixed = evaluate("nandi2020.thm3.3.chunk.corrected", **p)
    assert fixed.value == pytest.approx(4 * paper.value)
    assert paper.value == pytest.approx(
        7200 * (10 * math.log(10) + math.log(8 * paper.details["k"] / 0.1)) / 0.01)


def test_approx_forms_regimes_and_gain():
    a = 0.1
    for m in (5, 50, 500, 5000, 50000):
        gain = evaluate("nandi2020.thm3.3.gain", m=m, alpha=a).value
        assert gain == pytest.approx(max(1, min(math.sqrt(m * a), 1 / a)))
        ratio = (evaluate("nandi2020.lemma2.4.approx", d=3, m=m, alpha=a).value
                 / evaluate("nandi2020.thm3.3.approx", d=3, m=m, alpha=a).value)
        assert ratio == pytest.approx(gain)


@pytest.mark.parametrize("d, alpha", [(4, 0.1), (400, 0.1), (100, 0.01)])
def test_remark1_ratio_is_min_sqrt_d_over_alpha(d, alpha):
    corrected = evaluate("nandi2020.remark1.ratio", d=d, alpha=alpha).value
    assert corrected == pytest.approx(min(math.sqrt(d), 1 / alpha))
    assert corrected == pytest.approx(evaluate("nandi2020.remark1", d=d, alpha=alpha).value
                                      / evaluate("nandi2020.thm4.1.approx", d=d,
                                                 alpha=alpha).value)
    assert evaluate("nandi2020.remark1.ratio.paper", alpha=alpha).value == pytest.approx(1 / alpha)


def test_thm4_1_uses_alg4_m_o():
    r = evaluate("nandi2020.thm4.1", d=5, alpha=0.1, beta=0.05, eps=1, delta=1e-6)
    m_o = 32 * (5 * math.log(10) + math.log(20)) / 0.1
    assert r.details["m_o"] == pytest.approx(m_o)
    core = (5 * math.log(10) + math.log(m_o / 0.05)) * math.log(2e6) ** 1.5 * math.log(
        m_o * 0.1 / 1e-6)
    assert r.value == pytest.approx(core * max(1, math.sqrt(5) * 0.1 * math.sqrt(math.log(10)))
                                    / 0.01)


def test_privacy_checks_of_lemma3_4():
    for eps in (0.1, 0.5, 1.0):
        assert evaluate("nandi2020.lemma3.4.eps", eps=eps).value <= 0.9571 * eps
        assert evaluate("nandi2020.lemma3.4.delta", eps=eps, delta=1e-5).value == \
            pytest.approx(0.194 * eps * 1e-5, rel=0.002)
    ok = evaluate("nandi2020.lemma3.4.multiplicity", delta=0.05)
    bad = evaluate("nandi2020.lemma3.4.multiplicity", delta=0.1)
    assert ok.value == pytest.approx(0.019, abs=5e-4) and ok.details["holds"]
    assert bad.value == pytest.approx(0.080, abs=5e-4) and not bad.details["holds"]


def test_simple_shapes():
    assert evaluate("nandi2020.lemma3.2", d=4, alpha=0.1, beta=0.3).value == pytest.approx(
        25600 * (4 + math.log(10)))
    assert evaluate("nandi2020.lemma2.3", d=2, m=1000, alpha=0.1, eps=0.5).value == \
        pytest.approx(2 / 0.05 * 10)
    assert evaluate("nandi2020.lemma2.4", d=2, m=5, alpha=0.1, eps=0.5).value == \
        pytest.approx(2 / 0.005)
    assert evaluate("nandi2020.lemma2.3.T", m=5, alpha=0.1).value == 1.0


def test_universal_privacy_paper_vs_composition():
    assert evaluate("nandi2020.thm4.1.eps.paper", eps=0.5).value == 0.5
    assert evaluate("nandi2020.thm4.1.eps", eps=0.5).value == 1.0
