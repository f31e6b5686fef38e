"""Scaling out with existing engines: the Slurm (submitit) and joblib launcher configs compose."""
from hydra import compose, initialize_config_dir
from hydra.utils import get_class

from experiments.release.configure.cli import CONF_DIR, main as cli_main
from experiments.release.configure.registry import register_configs


def _hydra_launcher(*overrides):
    register_configs()
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        return compose("config", overrides=list(overrides), return_hydra_config=True).hydra.launcher


def test_submitit_slurm_launcher_composes():
    launcher = _hydra_launcher("hydra/launcher=submitit_slurm", "hydra.launcher.partition=cpu",
                               "hydra.launcher.timeout_min=30")
    assert launcher._target_ == ("hydra_plugins.hydra_submitit_launcher.submitit_launcher."
                                 "SlurmLauncher")
    assert get_class(launcher._target_).__name__ == "SlurmLauncher"
    assert launcher.partition == "cpu" and launcher.timeout_min == 30


def test_slurm_preset_extends_submitit_slurm():
    launcher = _hydra_launcher("hydra/launcher=slurm", "hydra.launcher.mem_gb=16")
    assert launcher._target_.endswith("SlurmLauncher")
    assert (launcher.cpus_per_task, launcher.mem_gb, launcher.timeout_min) == (2, 16, 120)


def test_joblib_launcher_composes():
    launcher = _hydra_launcher("hydra/launcher=joblib", "hydra.launcher.n_jobs=2")
    assert get_class(launcher._target_).__name__ == "JoblibLauncher" and launcher.n_jobs == 2


def test_launcher_overrides_pass_the_pre_check(tmp_path, capsys):
    started = []
    cli_main(lambda: started.append(True), ["-m", "hydra/launcher=submitit_slurm",
                                            "hydra.launcher.partition=cpu", "eps=0.5,1",
                                            f"results_dir={tmp_path}"])
    assert started == [True] and capsys.readouterr().err == ""
