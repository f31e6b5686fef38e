"""save_release=true: the files hold exactly what the mechanism released (weights over the
public support, or records drawn from the Private-PGM model), with its privacy metadata, and the
field changes no config hash; records drawn from a model follow the model's marginals."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from experiments.release.configure.checks import check_config
from experiments.release.configure.cli import compose_config
from pubpriv_core.problems import config_problem, repetition_streams
from experiments.release.running.repetitions import compute_record
from pubpriv_core.release_files import load_release, release_folder
from pubpriv_core.job import config_hash
from pubpriv_core.harness import run_algorithm
from pubpriv_core.algorithms.pgm import ModelMarginals
from pubpriv_core.algorithms.pgm_sample import sample_records

TINY = ["dataset.preset=tiny", "workload.size=null", "T=10", "runs=1"]


def _saved(tmp_path, *overrides):
    cfg = compose_config([*TINY, f"results_dir={tmp_path}", "save_release=true", *overrides])
    record = compute_record(check_config(cfg), 0)
    return cfg, record, load_release(release_folder(tmp_path, record["config_hash"], 0, 0))


def test_weighted_release_is_the_released_distribution_exactly(tmp_path):
    cfg, record, saved = _saved(tmp_path, "release_rows=40")
    problem = config_problem(cfg, 0)
    release = run_algorithm("pmwpub", problem, eps=1.0, delta=record["delta"], T=10,
                            rng=repetition_streams(0, 0)[1], **record["options"])
    weights = saved["weights"]
    attributes = list(problem.private.domain.attributes)
    assert list(weights.columns) == [*attributes, "weight"]
    np.testing.assert_array_equal(weights["weight"].to_numpy(), release.weights)  # bit for bit
    np.testing.assert_array_equal(weights[attributes].to_numpy(), problem.public_support)
    assert not np.array_equal(weights["weight"].to_numpy(), problem.public_weights)  # not A_0
    support = {tuple(r) for r in problem.public_support}
    assert len(saved["records"]) == 40
    assert all(tuple(r) in support for r in saved["records"][attributes].to_numpy())
    meta = saved["metadata"]
    assert meta["rho"] == record["rho"] and meta["eps_spent"] == record["eps_spent"]
    assert meta["config_hash"] == record["config_hash"] and (meta["seed"], meta["run"]) == (0, 0)
    assert meta["algo"] == "pmwpub" and meta["domain"] == dict(
        zip(attributes, problem.private.domain.shape))


def test_mwem_release_covers_the_whole_domain(tmp_path):
    _, record, saved = _saved(tmp_path, "algo=mwem")
    size = int(np.prod(list(saved["metadata"]["domain"].values())))
    assert len(saved["weights"]) == size and saved["records"] is None
    assert saved["weights"]["weight"].sum() == pytest.approx(1.0)


def test_model_release_writes_n_records_and_its_spend(tmp_path):
    _, record, saved = _saved(tmp_path, "algo=mst", "algo.iters=50", "algo.final_iters=100")
    assert saved["weights"] is None and len(saved["records"]) == record["n_private"]
    assert saved["metadata"]["rho"] == record["rho"] > 0
    assert "graphical model" in saved["metadata"]["release"]


def test_save_release_changes_no_config_hash():
    plain, saving = (compose_config(TINY + extra) for extra in
                     ([], ["save_release=true", "release_rows=7"]))
    assert config_hash(plain) == config_hash(saving)


@pytest.mark.parametrize("estimator", ["full_table", "tree"])
def test_records_drawn_from_a_model_follow_its_marginals(estimator):
    """200,000 records from an MST model on the tiny domain: every 3-way cell's frequency within
    5 standard errors of the model's probability (a wrong conditional is off by far more)."""
    cfg = compose_config(TINY)
    problem = config_problem(cfg, 0)
    release = run_algorithm("mst", problem, eps=1.0, delta=1e-6, T=1,
                            rng=np.random.default_rng(3), iters=50, final_iters=100,
                            estimator=estimator)
    model = release.trace["model"]
    records = sample_records(model, 200_000, np.random.default_rng(4))
    marginals, domain = ModelMarginals(model), problem.private.domain
    for columns in itertools.combinations(range(len(domain)), 3):
        names = tuple(domain.attributes[c] for c in columns)
        expected = marginals(names) / marginals.total
        shape = [domain.shape[c] for c in columns]
        cells = np.ravel_multi_index(records[:, columns].T, shape)
        observed = np.bincount(cells, minlength=expected.size) / len(records)
        bound = 5 * np.sqrt(expected * (1 - expected) / len(records)) + 1e-12
        assert np.all(np.abs(observed - expected) <= bound), names
