"""``scripts/bench.py replay_gem compare``: two saved GEM repetitions agree only when they chose the
same marginals and their answers and max errors agree within the tolerance."""
import numpy as np
import pytest

from experiments.release.bench import replay_gem as replay


def save(path, answers, marginals, max_error):
    np.savez(path, answers=np.asarray(answers, float), marginals=np.asarray(marginals),
             steps=np.array([3, 4]), max_error=max_error, wall_s=1.0)
    return path


@pytest.mark.parametrize("answers, marginals, max_error, status", [
    ([0.1, 0.2], [1, 5], 0.3, 0),
    ([0.1, 0.2 + 2e-6], [1, 5], 0.3 + 2e-6, 0),
    ([0.1, 0.2 + 2e-5], [1, 5], 0.3, 1),
    ([0.1, 0.2], [1, 5], 0.3 + 2e-5, 1),
    ([0.1, 0.2], [5, 1], 0.3, 1),
])
def test_compare_needs_same_selections_and_answers_within_tolerance(tmp_path, answers, marginals,
                                                                     max_error, status):
    a = save(tmp_path / "a.npz", [0.1, 0.2], [1, 5], 0.3)
    b = save(tmp_path / "b.npz", answers, marginals, max_error)
    assert replay.main(["compare", str(a), str(b), "--tol", "1e-5"]) == status
