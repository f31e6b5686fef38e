"""The driver of the reference AIM code: its data export, workload, metric and estimator stand-in.

The run itself needs the reference code, which is not part of the project: set
``PUBPRIV_AIM_REFERENCE`` to a Private-PGM checkout's ``mechanisms`` folder to include it.
"""
import os
from pathlib import Path

import numpy as np
import pytest

from experiments.release.bench import aim_reference
from experiments.release.bench.pgm import nist_problem
from pubpriv_core.algorithms import pgm, pgm_joint
from pubpriv_core.harness import ReleaseProblem
from pubpriv_core.data import load_dataset
from pubpriv_core.queries import MarginalWorkload

REFERENCE = os.environ.get("PUBPRIV_AIM_REFERENCE")


def tiny(attributes=("a0", "a1", "a2", "a3")) -> ReleaseProblem:
    private = load_dataset("synthetic", preset="tiny").project(list(attributes))
    return ReleaseProblem(private, MarginalWorkload.random(private.domain, 3, None, 0))


def empirical(problem: ReleaseProblem) -> pgm_joint.JointModel:
    domain = pgm.to_mbi(problem.private.domain)
    counts = np.zeros(domain.shape)
    np.add.at(counts, tuple(problem.private.records.T), 1.0)
    return pgm_joint.JointModel(domain, [tuple(domain.attributes)], np.log(counts + 1e-300),
                                counts.sum())


def test_nist_export_workload_and_metric(nist_root):
    problem = nist_problem()
    workload = aim_reference.reference_workload(problem)
    assert len(workload) == 84 and {w for _, w in workload} == {1.0}
    data = aim_reference.mbi_dataset(problem)
    for clique, _ in workload[:5]:
        np.testing.assert_array_equal(
            np.asarray(data.project(clique).datavector()),
            pgm.marginal(problem.private.records, problem.private.domain, clique))
    view = aim_reference.JointView(empirical(problem))
    answers = aim_reference.model_answers(view, problem)
    np.testing.assert_allclose(answers, problem.true_answers, atol=1e-12)


def test_joint_stand_in_keeps_cliques_and_warm_starts_from_the_table():
    problem = tiny()
    domain = pgm.to_mbi(problem.private.domain)
    data = aim_reference.mbi_dataset(problem)
    measurements = [pgm.measurement(np.asarray(data.project(c).datavector()), c, 1.0)
                    for c in [("a0",), ("a1", "a2")]]
    fits = aim_reference.Estimation("joint")
    view = fits.MirrorDescent().estimate(domain, measurements, iters=50)
    assert fits.cliques == [("a0",), ("a1", "a2")]
    assert view.potentials.expand([("a0",), ("a1", "a2")]) is view.model
    np.testing.assert_allclose(view.project(("a1", "a2")).datavector(),
                               view.model.marginal(("a1", "a2")).ravel())
    again = fits.MirrorDescent().estimate(domain, measurements, iters=50,
                                          potentials=view.potentials.expand([]))
    direct = pgm_joint.fit(domain, measurements, None, 50, view.model)
    np.testing.assert_array_equal(again.model.log_table, direct.log_table)


def test_bad_options_are_refused_in_one_line(tmp_path):
    with pytest.raises(ValueError, match="unknown --estimator"):
        aim_reference.Estimation("tree")
    with pytest.raises(ValueError, match="lacks aim.py, mechanism.py, cdp2adp.py"):
        aim_reference.load_reference(tmp_path)


def test_welch_interval_covers_the_difference():
    a, b = np.array([1.0, 2.0, 3.0, 4.0]), np.array([0.0, 1.0, 2.0])
    diff, low, high = aim_reference.welch(a, b)
    assert diff == pytest.approx(1.5) and low < diff < high


@pytest.mark.skipif(not REFERENCE or not Path(REFERENCE, "aim.py").is_file(),
                    reason="PUBPRIV_AIM_REFERENCE (the reference mechanisms folder) not set")
def test_reference_run_is_seeded_and_read_from_its_model():
    reference = aim_reference.load_reference(Path(REFERENCE))
    problem = tiny(("a0", "a1", "a2"))
    state = np.random.get_state()[1].copy()
    rows = [aim_reference.run_seed(reference, problem, 3, 2.0, 1e-6, "joint") for _ in range(2)]
    np.testing.assert_array_equal(np.random.get_state()[1], state)
    first, second = ({k: v for k, v in r.items() if k != "seconds"} for r in rows)
    assert first == second
    assert first["rounds"] == len(first["selected"]) > 0
    assert 0 <= first["model"] < 1 and 0 <= first["synthetic"] < 1
