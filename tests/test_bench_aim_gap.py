"""The paired AIM measurement against the reference code's choices: its run is ``algo=aim``'s,
and the synthetic records come from the model it fitted."""
import numpy as np
import pytest

from experiments.release.bench import aim_gap
from pubpriv_core.algorithms import pgm
from pubpriv_core.harness import run_algorithm
from pubpriv_core.harness import ReleaseProblem
from pubpriv_core.algorithms.pgm_joint import JointModel
from pubpriv_core.data import load_dataset
from pubpriv_core.queries import MarginalWorkload


def tiny() -> ReleaseProblem:
    private = load_dataset("synthetic", preset="tiny").project(["a0", "a1", "a2", "a3"])
    return ReleaseProblem(private, MarginalWorkload.random(private.domain, 3, None, 0))


def empirical_model(problem: ReleaseProblem) -> JointModel:
    domain = pgm.to_mbi(problem.private.domain)
    counts = np.zeros(domain.shape)
    np.add.at(counts, tuple(problem.private.records.T), 1.0)
    return JointModel(domain, [tuple(domain.attributes)], np.log(counts + 1e-300), counts.sum())


def test_synthetic_records_of_the_empirical_model_are_the_data():
    problem = tiny()
    records = aim_gap.synthetic_records(empirical_model(problem), problem, seed=3)
    assert len(records) == problem.n
    answers = aim_gap.record_answers(records, problem)
    np.testing.assert_allclose(answers, problem.true_answers, atol=1e-12)
    assert aim_gap.average_tv(problem, answers) == pytest.approx(0.0, abs=1e-12)


def test_synthetic_records_leave_numpy_global_state_alone():
    problem = tiny()
    state = np.random.get_state()[1].copy()
    aim_gap.synthetic_records(empirical_model(problem), problem, seed=3)
    np.testing.assert_array_equal(np.random.get_state()[1], state)


def test_average_tv_is_half_the_l1_gap_per_marginal():
    problem = tiny()
    shifted = problem.true_answers.copy()
    shifted[0] += 0.1   # one cell of the first marginal, others untouched
    marginals = len(problem.workload.marginal_sizes)
    assert aim_gap.average_tv(problem, shifted) == pytest.approx(0.05 / marginals)


def test_the_run_is_algo_aim_with_add_remove():
    problem = tiny()
    row = aim_gap.run_seed(problem, 4, 2.0, 1e-6, rounds=6)
    release = run_algorithm("aim", problem, eps=2.0, delta=1e-6, T=1,
                            rng=np.random.default_rng([4, 13]), relation="add_remove", rounds=6)
    assert row["model"] == release.errors(problem.true_answers)["max_error"]
    assert row["selected"] == release.trace["selected"]
    assert row["rho"] == release.rho
    assert row["rounds"] == release.iterations


def test_an_unwritable_output_is_refused_before_any_run(tmp_path):
    with pytest.raises(ValueError, match="cannot write --out"):
        aim_gap.run_gap([0], tmp_path / "missing" / "gap.jsonl")
