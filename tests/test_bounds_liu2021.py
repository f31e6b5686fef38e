"""Liu et al. 2021: Prop 4.3, Thm 4.4 shapes, Thm 4.5 conversion."""
import math

import pytest

from pubpriv_core.bounds import evaluate


def test_issue_prop4_3_n():
    assert evaluate("liu2021.prop4.3.n", alpha=0.1, beta=0.05, Q_size=1000).value == \
        (8 / 0.1 ** 2) * math.log(4 * 1000 / 0.05)


def test_prop4_3_m_and_divergence_order():
    v = evaluate("liu2021.prop4.3.m", alpha=0.1, beta=0.05, Q_size=1000, D2=0.5, Dinf=1.0).value
    assert v == pytest.approx((3200 * math.exp(0.5) + 80 / 3 * math.e) * math.log(4004 / 0.05))
    with pytest.raises(ValueError, match="D2 <= Dinf"):
        evaluate("liu2021.prop4.3.m", alpha=0.1, beta=0.05, Q_size=10, D2=1.0, Dinf=0.5)


def test_prop4_3_failure_at_the_stated_sizes_is_at_most_beta():
    a, b, q, d2, dinf = 0.1, 0.05, 1000, 0.3, 0.8
    n = evaluate("liu2021.prop4.3.n", alpha=a, beta=b, Q_size=q).value
    m = evaluate("liu2021.prop4.3.m", alpha=a, beta=b, Q_size=q, D2=d2, Dinf=dinf).value
    r = evaluate("liu2021.prop4.3.fail", alpha=a, n=n, m=m, Q_size=q, D2=d2, Dinf=dinf)
    assert r.details["private"] == pytest.approx(b / 2)
    assert r.details["public"] == pytest.approx(b / 2)
    assert r.value == pytest.approx(b)


def test_thm4_4_shapes_are_consistent():
    p = dict(m=5000, Q_size=10 ** 5, beta=0.05, rho=0.01)
    n = evaluate("liu2021.thm4.4.n", alpha=0.02, c=2, **p).value
    assert evaluate("liu2021.thm4.4", n=n, c=2, **p).value == pytest.approx(0.02)
    t = evaluate("liu2021.thm4.4.T", n=1e5, **p).value
    assert t == pytest.approx(1e5 * math.sqrt(0.02) * math.sqrt(math.log(5000))
                              / math.log(1e5) + math.log(20))


def test_issue_thm4_5_exact_infimum():
    assert evaluate("liu2021.thm4.5", rho=0.5, delta=1e-5).value == pytest.approx(4.728, abs=5e-4)


def test_thm4_5_exact_is_the_infimum_and_below_the_closed_form():
    rho, delta = 0.5, 1e-5
    exact = evaluate("liu2021.thm4.5", rho=rho, delta=delta).value
    grid = [1 + 10 ** (k / 400) for k in range(-1200, 1200)]
    brute = min(a * rho + math.log(1 / (a * delta)) / (a - 1) + math.log(1 - 1 / a) for a in grid)
    assert exact == pytest.approx(brute, abs=1e-4) and exact <= brute + 1e-9
    upper = evaluate("liu2021.thm4.5.upper", rho=rho, delta=delta).value
    assert upper == pytest.approx(0.5 + 2 * math.sqrt(0.5 * math.log(1e5))) and exact < upper
