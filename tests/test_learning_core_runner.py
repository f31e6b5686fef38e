"""Theory runner: Hydra composition of the presets, registry dispatch, resumable records."""
import pandas as pd
from omegaconf import OmegaConf
import pytest

import experiments.theory.runner as theory


def test_compose_preset_with_overrides(tmp_path):
    cfg = theory.compose(["experiment=theory_alon2019", "experiment.trials=60", f"experiment.out={tmp_path}"])
    assert cfg.experiment.name == "alon2019" and cfg.experiment.trials == 60


def test_unknown_experiment_is_a_clear_error():
    with pytest.raises(KeyError, match="no theory experiment"):
        theory.run_theory(OmegaConf.create({"name": "nope_no_such_paper"}))


def test_unknown_part_is_a_clear_error_before_anything_is_written(tmp_path):
    out = tmp_path / "never"
    argv = ["experiment=theory_alon2019", "experiment.parts=[cover,nope]", f"experiment.out={out}"]
    with pytest.raises(ValueError, match=r"unknown \['nope'\]"):
        theory.run_theory(theory.compose(argv))
    assert not out.exists()


def test_register_rejects_duplicates():
    theory.register("dup_check_x")(len)
    with pytest.raises(ValueError, match="registered twice"):
        theory.register("dup_check_x")(max)
    del theory.REGISTRY["dup_check_x"]


def test_reconstruction_part_runs_and_resumes(tmp_path, monkeypatch):
    argv = ["experiment=theory_beimel2014", "experiment.parts=[reconstruction]", f"experiment.out={tmp_path}",
            "experiment.reconstruction.T=64", "experiment.reconstruction.mu=[0.05,0.2]",
            "experiment.reconstruction.trials=50"]
    theory.run_theory(theory.compose(argv))
    first = pd.read_csv(tmp_path / "reconstruction.csv")
    assert (tmp_path / "reconstruction.png").exists() and first.failure_rate.between(0, 1).all()
    assert first.failure_rate.iloc[1] > first.failure_rate.iloc[0]  # more noise, more failures

    import experiments.theory.beimel2014 as beimel

    def boom(*args, **kwargs):
        raise AssertionError("finished records were recomputed")

    monkeypatch.setattr(beimel, "run_trials", boom)
    theory.run_theory(theory.compose(argv))
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "reconstruction.csv"), first)


def test_bad_theory_input_is_one_line_and_exit_2(capsys):
    from experiments.theory.runner import main

    for argv in (["experiment=theory_nope"], ["experiment=theory_liu2021", "nosuch=1"]):
        with pytest.raises(SystemExit) as info:
            main(argv)
        assert info.value.code == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("error: ") and "\n" not in err


def test_a_theory_experiment_runs_on_one_blas_thread(monkeypatch, tmp_path):
    """As its blocks do in joblib's workers, so n_jobs = 1 computes in the same arithmetic."""
    from threadpoolctl import threadpool_info, threadpool_limits

    seen = []
    monkeypatch.setitem(theory.REGISTRY, "blas_probe", lambda cfg: seen.append(
        [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]))
    monkeypatch.setitem(theory.PARTS, "blas_probe", ())
    with threadpool_limits(limits=2, user_api="blas"):
        theory.run_theory(OmegaConf.create({"name": "blas_probe", "out": str(tmp_path)}))
        after = [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]
    assert seen and seen[0] and set(seen[0]) == {1}
    assert set(after) == {2}                    # the caller's setting is restored
