"""pubpriv_core.api: every registered algorithm is offered with the runner's defaults, bad names
and options are refused in one line, and real data loads from the data root."""
import pytest

from pubpriv_core import api
from pubpriv_core.algorithms import ALGORITHMS
from runner_helpers import require_data


def test_every_registered_algorithm_is_offered_with_its_defaults():
    offered = api.algorithms()
    assert set(ALGORITHMS) <= set(offered)
    for name in offered:
        assert "name" not in api.defaults("algo", name)
    assert api.defaults("algo", "aim")["alpha"] == 0.9


def test_bad_names_and_options_are_one_line_errors():
    data = api.load("synthetic", "resample", dataset_options={"preset": "tiny"})
    problem = api.problem(data, api.workload(data, k=2, size=None))
    for call, words in [(lambda: api.run("nope", problem), "unknown algorithm 'nope'"),
                        (lambda: api.run("mwem", problem, init="public"),
                         "mwem has no option 'init'"),
                        (lambda: api.run("dualquery", problem, eta=-2.0), "algo.eta must be"),
                        (lambda: api.load("synthetic", "resample",
                                          dataset_options={"rows": 5}),
                         "synthetic has no option 'rows'")]:
        with pytest.raises(ValueError) as err:
            call()
        assert words in str(err.value) and "\n" not in str(err.value)


def test_adult_with_a_biased_public_source_from_the_data_root():
    root = require_data()
    data = api.load("adult", "biased", data_root=root, public_options={"delta": 0.1})
    assert data.private.domain.size() > 1e11 and data.public.n_rows > 0
    result = api.run("public_only", api.problem(data, api.workload(data, size=8)))
    assert result.rho == 0.0 and 0 < result.errors["max_error"] < 1
