"""Registry contract: ids, vocabulary, one-line errors, result objects."""
import pytest

from pubpriv_core.bounds import VOCABULARY, evaluate, get_bound, list_bounds
from pubpriv_core.bounds.registry import SHAPE_CONSTANT

PAPERS = {"liu2021", "bassily2020", "alon2019", "beimel2014", "nandi2020"}


def test_every_bound_is_named_documented_and_uses_the_vocabulary():
    bounds = list_bounds()
    assert len(bounds) >= 40
    for b in bounds:
        assert b.paper in PAPERS, b.id
        assert b.summary, b.id
        assert set(b.params) <= set(VOCABULARY) | {SHAPE_CONSTANT}, b.id
        assert b.explicit or b.defaults.get(SHAPE_CONSTANT) == 1.0, b.id


def test_list_bounds_filters_by_paper():
    ids = [b.id for b in list_bounds("beimel2014")]
    assert "beimel2014.thm7.2" in ids and all(i.startswith("beimel2014.") for i in ids)


def test_result_carries_value_and_explicit_flag():
    r = evaluate("beimel2014.thm7.2", d=8, alpha=0.1, beta=0.05, eps=1.0)
    assert isinstance(r.value, float) and r.explicit is True and float(r) == r.value
    s = evaluate("beimel2014.thm7.2.shape", d=8, alpha=0.1, beta=0.05, eps=1.0)
    assert s.explicit is False and s.params["c"] == 1.0


def test_shape_constant_scales_linearly():
    one = evaluate("alon2019.thm3.1.n_pub", d=3, alpha=0.05, beta=0.1).value
    assert evaluate("alon2019.thm3.1.n_pub", d=3, alpha=0.05, beta=0.1, c=7).value == \
        pytest.approx(7 * one)


def test_unknown_id_lists_candidates_in_one_line():
    with pytest.raises(KeyError) as err:
        get_bound("beimel2014.thm9.9")
    msg = str(err.value)
    assert "beimel2014.thm7.2" in msg and "\n" not in msg


@pytest.mark.parametrize("params, word", [
    (dict(d=8, alpha=0.1, beta=0.05), "missing parameter(s) eps"),
    (dict(d=8, alpha=0.1, beta=0.05, eps=1, gamma=2), "unknown parameter(s) gamma"),
])
def test_missing_or_unknown_parameter_names_it_and_lists_expected(params, word):
    with pytest.raises(TypeError) as err:
        evaluate("beimel2014.thm7.2", **params)
    msg = str(err.value)
    assert word in msg and "expected d, alpha, beta, eps" in msg and "\n" not in msg


@pytest.mark.parametrize("name, value", [("alpha", 1.5), ("beta", 0.0), ("eps", -1), ("d", 2.5)])
def test_bad_values_raise_one_line_errors(name, value):
    params = dict(d=8, alpha=0.1, beta=0.05, eps=1.0)
    params[name] = value
    with pytest.raises(ValueError) as err:
        evaluate("beimel2014.thm7.2", **params)
    assert name in str(err.value) and "\n" not in str(err.value)


def test_huge_integer_sizes_stay_exact():
    r = evaluate("beimel2014.thm3.6", H_size=2 ** 2000, beta=0.05, eps=1.0)
    assert r.value == pytest.approx(2000 * 0.6931471805599453 + 2.9444389791664403, rel=1e-12)
