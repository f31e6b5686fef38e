"""The ADULT command of the paper's Fig. 2 setting (PMW^Pub, biased public with Δ = 0, 3-way,
W = 256, T = 100), one repetition: the record's sizes follow the design and the error is near the paper's."""
import pytest

from experiments.release.configure.cli import compose_config
from experiments.release.running.repetitions import run_config
from runner_helpers import require_data


@pytest.mark.slow
def test_adult_pmwpub_biased_delta0(tmp_path):
    data = require_data()
    cfg = compose_config(["dataset=adult", "public=biased", "public.delta=0", "algo=pmwpub",
                          "eps=1", "T=100", "workload.k=3", "workload.size=256", "runs=1",
                          f"data_root={data}", f"results_dir={tmp_path}"])
    (record,) = run_config(cfg)
    assert (record["n_private"], record["n_public"]) == (43911, 4879)  # 0.9N, 0.1N of 48,790
    assert record["workload_size"] == 256 and record["num_queries"] > 200_000
    assert 3000 < record["support_size"] < record["n_public"]
    assert record["delta"] == pytest.approx(1 / 43911 ** 2)
    assert record["eps_spent"] == pytest.approx(1.0, rel=1e-6)
    assert record["delta_bias"] == 0.0 and record["iterations"] == 100
    assert 0 < record["max_error"] < 0.05  # the paper's code ends near 0.013
    (baseline,) = run_config(dict(cfg, algo={"name": "public_only"}))
    assert baseline["config_hash"] != record["config_hash"]
    assert (baseline["support_size"], baseline["n_private"]) == \
        (record["support_size"], record["n_private"])  # the same split (same seed and run)
