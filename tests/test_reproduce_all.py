"""``reproduce.py all``: every target in order, a table of wall times, and a failing theory block
reported as one line (status 1) without stopping the targets after it; with a Slurm launcher a
theory preset runs as one job and its failure is one line too."""
from __future__ import annotations

import pandas as pd
import pytest

from experiments import reproduce_all
from experiments.release.artefacts.slurm import SlurmJobsFailed
from experiments.reproduce_cli import main as reproduce_main


class Launcher:
    """Records what would go to Slurm; ``fail`` makes the job fail as submitit reports it."""

    def __init__(self, fail=False):
        self.calls, self.fail = [], fail

    def call(self, fn, *args, folder, cpus=2):
        self.calls.append((fn.__name__, args, folder, cpus))
        if self.fail:
            raise SlurmJobsFailed(f"1 of 1 Slurm tasks failed (first: job 7: MemoryError); "
                                  f"their logs are under {folder}")


def test_a_failing_theory_block_is_one_line_and_status_1(monkeypatch, tmp_path, capsys):
    def failing(name, out, quick):
        raise RuntimeError("best-mixture LP failed: Solve error")
    monkeypatch.setattr(reproduce_all, "reproduce_theory", failing)
    assert reproduce_all.run_theory_target("theory_liu2021", tmp_path, False) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("error: theory_liu2021: best-mixture LP failed: Solve error; its "
                          f"finished blocks are kept under {tmp_path / 'records'}")


def test_every_target_runs_and_the_table_names_each_status(monkeypatch, tmp_path):
    seen = []
    monkeypatch.setattr(reproduce_all, "run_release",
                        lambda name, out, kwargs: seen.append(name) or 0)
    monkeypatch.setattr(reproduce_all, "run_theory_target",
                        lambda name, out, quick, launcher: seen.append(name) or
                        (1 if "liu" in name else 0))
    status = reproduce_all.reproduce_all(tmp_path)
    assert status == 1
    names = [name for name, _, _ in reproduce_all.targets(tmp_path)]
    offline = [n for n in names if n not in reproduce_all.ARTEFACTS
               or not reproduce_all.ARTEFACTS[n].needs_internet]
    assert seen == offline                       # a failure does not stop the later targets
    table = (tmp_path / "walltimes.md").read_text()
    assert "| theory_liu2021 | theory | exit 1 |" in table
    assert "skipped: needs internet" in table and "Sum of the rows" in table


def test_with_a_launcher_a_theory_preset_is_one_slurm_job_and_bounds_stay_here(monkeypatch,
                                                                               tmp_path):
    here = []
    monkeypatch.setattr(reproduce_all, "reproduce_theory", lambda *args: here.append(args))
    launcher = Launcher()
    assert reproduce_all.run_theory_target("theory_alon2019", tmp_path, True, launcher) == 0
    assert launcher.calls == [("<lambda>", ("theory_alon2019", tmp_path, True),
                               tmp_path / "slurm", 2)]
    assert reproduce_all.run_theory_target(reproduce_all.BOUNDS, tmp_path, False, launcher) == 0
    assert here == [(reproduce_all.BOUNDS, tmp_path, False)] and len(launcher.calls) == 1


def test_a_failed_slurm_job_of_a_theory_preset_is_one_line_and_status_1(tmp_path, capsys):
    status = reproduce_all.run_theory_target("theory_alon2019", tmp_path, False, Launcher(True))
    err = capsys.readouterr().err
    assert status == 1 and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("error: theory_alon2019: 1 of 1 Slurm tasks failed (first: job 7: "
                          "MemoryError)")


def test_a_run_of_some_targets_keeps_the_other_rows_of_the_table(monkeypatch, tmp_path):
    seen = []
    monkeypatch.setattr(reproduce_all, "run_release",
                        lambda name, out, kwargs: seen.append(name) or 0)
    monkeypatch.setattr(reproduce_all, "run_theory_target",
                        lambda name, out, quick, launcher: seen.append(name) or 0)
    reproduce_all.reproduce_all(tmp_path, only=("fig2", "table1"))
    reproduce_all.reproduce_all(tmp_path, only=("theory_alon2019", "table1"))
    assert seen == ["fig2", "table1", "table1", "theory_alon2019"]
    table = pd.read_csv(tmp_path / "walltimes.csv")
    assert list(table.artefact) == ["fig2", "table1", "theory_alon2019"]   # catalogue order
    assert table.load_1min.notna().all()
    assert "Sum of the rows" in (tmp_path / "walltimes.md").read_text()


@pytest.mark.parametrize("argv, message", [
    (["all", "--targets", "fig2,nope"], "unknown: nope"),
    (["fig2", "--targets", "fig2"], "--targets applies to all"),
])
def test_bad_targets_are_one_line_before_any_work(argv, message, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_:
        reproduce_main(argv)
    err = capsys.readouterr().err.strip()
    assert exit_.value.code == 2 and message in err and "\n" not in err
    assert not (tmp_path / "runs").exists()


def test_an_artefact_of_all_records_the_single_command_that_does_the_same(tmp_path,
                                                                         monkeypatch):
    from experiments.release.artefacts.slurm import SlurmLauncher

    out = tmp_path / "sota"
    kwargs = {"quick": False, "tuning": "paper", "jobs": 2, "settings": ["runs=3"],
              "data_root": "/data", "results_dir": None, "no_run": True, "launcher": None,
              "pin": False}
    argv = reproduce_all.equivalent_command("sota", out, kwargs)
    assert argv == ["sota", "--jobs", "2", "--tuning", "paper", "--set", "runs=3", "--data-root",
                    "/data", "--no-run", "--out", str(out)]
    from experiments import reproduce_cli as script
    seen = {}
    monkeypatch.setattr(script, "reproduce", lambda name, **kw: seen.update(kw, name=name) or 0)
    assert script.main(argv) == 0                 # the recorded command runs the same
    assert {k: seen[k] for k in kwargs} == kwargs and seen["out"] == str(out)
    pinned = {**kwargs, "pin": True}
    assert script.main(reproduce_all.equivalent_command("sota", out, pinned)) == 0
    assert {k: seen[k] for k in kwargs} == pinned
    slurm = {**kwargs, "launcher": SlurmLauncher(("partition=debug",))}
    assert reproduce_all.equivalent_command("sota", out, slurm)[-6:] == [
        "--launcher", "slurm", "--launcher-option", "partition=debug", "--out", str(out)]
