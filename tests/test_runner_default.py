"""The default experiment (`python run.py`): embedded synthetic data, PMW^Pub, 5 repetitions."""
import time

from experiments.release.configure.cli import compose_config
from experiments.release.running.repetitions import run_config


def test_default_experiment_runs_fast_and_releases_sensible_errors(tmp_path):
    cfg = compose_config([f"results_dir={tmp_path}"])
    assert (cfg["dataset"]["name"], cfg["algo"]["name"], cfg["runs"]) == ("synthetic", "pmwpub", 5)
    start = time.perf_counter()
    records = run_config(cfg)
    assert time.perf_counter() - start < 60
    assert [r["run"] for r in records] == [0, 1, 2, 3, 4]
    assert len(list((tmp_path / "records").glob("*/*.json"))) == 5
    for record in records:
        assert 0 <= record["mean_error"] <= record["max_error"] <= 1
        assert record["eps_spent"] <= cfg["eps"] * (1 + 1e-9) and record["rho"] > 0
        assert record["delta"] == 1 / record["n_private"] ** 2
        assert record["support_size"] <= record["n_public"] == 1000
    public_only = run_config(dict(cfg, algo={"name": "public_only"}))
    mean = lambda rs: sum(r["max_error"] for r in rs) / len(rs)  # noqa: E731
    assert mean(records) < mean(public_only)  # PMW^Pub improves on the public data alone
