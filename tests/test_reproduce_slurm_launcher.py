"""``reproduce.py --launcher slurm``: the launcher preset's fields as submitit parameters, the
wait over array tasks (a failed task neither hides the others' results nor passes silently),
and a sweep through it writing the same records as joblib. The tasks run through submitit's
local executor (real subprocesses, no cluster); ``tests/test_runner_slurm.py`` runs on one."""
import json
import math

import pytest
import submitit

from experiments.console import UserError
from experiments.release.artefacts import reproduce
from experiments.release.artefacts.slurm import SlurmJobsFailed, SlurmLauncher, parameters, preset
from experiments.release.running.store import ResultsStore
from experiments.release.running.sweep import compose_jobs, run_sweep
from experiments.reproduce_cli import main as reproduce_main
from test_reproduce_sweep import _tiny


def local(seen=None):
    """A backend running the tasks as local processes (recording the parameters it was given)."""
    def backend(folder, params):
        if seen is not None:
            seen.append(params)
        return submitit.LocalExecutor(folder=str(folder / "%j"))
    return backend


def test_preset_is_the_runners_slurm_launcher_with_one_core_per_task():
    fields = preset(["partition=debug", "mem_gb=4", "timeout_min=30"])
    assert (fields["partition"], fields["mem_gb"], fields["timeout_min"]) == ("debug", 4, 30)
    assert fields["cpus_per_task"] == 1 and fields["array_parallelism"] == 64
    assert preset(["cpus_per_task=2"])["cpus_per_task"] == 2


@pytest.mark.parametrize("bad", ["partitio=debug", "partition", "submitit_folder=/tmp"])
def test_unknown_option_is_one_line_naming_the_fields(bad):
    with pytest.raises(UserError, match="partition, qos") as info:
        preset([bad])
    assert "\n" not in str(info.value)


def test_parameters_name_generic_fields_plainly_and_slurm_fields_prefixed():
    params = parameters(preset(["partition=debug"]))
    assert params["mem_gb"] == 8 and params["cpus_per_task"] == 1
    assert params["slurm_partition"] == "debug" and params["slurm_array_parallelism"] == 64
    assert "slurm_qos" not in params and "partition" not in params
    assert not any(key in params for key in ("submitit_folder", "_target_",
                                             "slurm_additional_parameters"))


def test_map_yields_every_result_then_names_the_failed_task(tmp_path):
    seen = []
    launcher = SlurmLauncher(("partition=debug",), poll_s=0.2, backend=local(seen))
    results = []
    with pytest.raises(SlurmJobsFailed, match=r"1 of 4 Slurm tasks failed .*ValueError: "
                                              r"factorial\(\) not defined for negative values"
                                              r".*re-running resumes") as info:
        for value in launcher.map(math.factorial, [1, 2, -1, 4], tmp_path / "jobs"):
            results.append(value)
    assert sorted(results) == [1, 2, 24]
    assert str(tmp_path / "jobs") in str(info.value)
    assert seen[0]["slurm_partition"] == "debug"


def test_call_runs_once_with_the_cores_asked(tmp_path):
    seen = []
    launcher = SlurmLauncher(poll_s=0.2, backend=local(seen))
    assert launcher.call(math.factorial, 5, folder=tmp_path / "one", cpus=2) == 120
    assert seen[0]["cpus_per_task"] == 2


def test_a_sweep_through_the_launcher_writes_the_joblib_records(tmp_path):
    def errors(folder):
        store = ResultsStore(folder)
        return {p.relative_to(store.records_dir): json.loads(p.read_text())["max_error"]
                for p in store.paths()}

    joblib = compose_jobs([_tiny(tmp_path / "joblib", eps=e) for e in (0.5, 1.0)])
    run_sweep(joblib, n_jobs=1, log=lambda _: None)
    slurm = compose_jobs([_tiny(tmp_path / "slurm", eps=e) for e in (0.5, 1.0)])
    launcher = SlurmLauncher(poll_s=0.2, backend=local())
    report = run_sweep(slurm, launcher=launcher, log=lambda _: None)
    assert (report.tasks, report.groups) == (4, 2)
    assert errors(tmp_path / "slurm") == errors(tmp_path / "joblib")
    assert len(list((tmp_path / "slurm" / "slurm").glob("*/*/*_log.out"))) == 2


@pytest.mark.parametrize("argv, message", [
    (["--launcher-option", "partition=debug"], "--launcher-option applies to --launcher slurm"),
    (["--launcher", "slurm", "--pin-workers"], "--pin-workers applies to joblib workers"),
    (["--jobs", "1", "--pin-workers"], "--pin-workers splits the cores among two or more"),
    (["--launcher", "slurm", "--launcher-option", "partiton=debug"],
     "--launcher-option 'partiton=debug': write KEY=VALUE"),
])
def test_launcher_options_are_checked_before_any_work(argv, message, tmp_path, monkeypatch,
                                                      capsys):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_:
        reproduce_main(["fig2", *argv])
    err = capsys.readouterr().err.strip()
    assert exit_.value.code == 2 and err.startswith(f"error: {message}") and "\n" not in err
    assert not (tmp_path / "runs").exists()


class Stop(Exception):
    pass


def test_a_run_time_artefact_runs_one_slurm_task_at_a_time(monkeypatch, tmp_path):
    """Table 1 times iterations: its tasks must not share the node, as with one joblib worker."""
    seen = []

    def stages(work, no_run, jobs, launcher, pin):
        seen.append(launcher)
        raise Stop
    monkeypatch.setattr(reproduce, "run_stages", stages)
    for name in ("table1", "fig2"):
        with pytest.raises(Stop):
            reproduce.reproduce(name, out=str(tmp_path / name), launcher=SlurmLauncher())
    assert seen[0].options == ("array_parallelism=1",) and seen[1].options == ()
    assert preset(seen[0].options)["array_parallelism"] == 1


def test_a_refused_submission_is_one_line_before_any_task(tmp_path):
    """No cluster answers sbatch (or there is no sbatch): one SlurmJobsFailed line."""
    def refusing(folder, params):
        class Refused:
            def map_array(self, fn, items):
                raise submitit.core.utils.FailedJobError(
                    "sbatch: error: fetch_config: DNS SRV lookup failed\n"
                    "sbatch: fatal: Could not establish a configuration source")
        return Refused()
    launcher = SlurmLauncher(backend=refusing)
    with pytest.raises(SlurmJobsFailed, match=r"^Slurm refused the submission \(sbatch: fatal: "
                                              r"Could not establish a configuration source\)"):
        list(launcher.map(math.factorial, [1, 2], tmp_path / "jobs"))


def test_no_cluster_is_said_before_any_work(monkeypatch):
    import shutil
    import subprocess

    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(UserError, match="sinfo is not installed here"):
        SlurmLauncher().check_cluster()
    monkeypatch.setattr(shutil, "which", lambda name: "/usr/bin/" + name)
    seen = []
    monkeypatch.setattr(subprocess, "run", lambda command, **kw: seen.append(command) or
                        subprocess.CompletedProcess(command, 1, "", "sinfo: error: x\n"
                                                    "sinfo: fatal: no configuration source\n"))
    with pytest.raises(UserError, match=r"no Slurm cluster answers \(sinfo: fatal: no "
                                        r"configuration source\)") as info:
        SlurmLauncher(("partition=debug",)).check_cluster()
    assert "\n" not in str(info.value) and seen == [["sinfo", "-h", "-p", "debug"]]
    monkeypatch.setattr(subprocess, "run", lambda command, **kw: subprocess.CompletedProcess(
        command, 0, "", ""))
    with pytest.raises(UserError, match="no such partition"):
        SlurmLauncher(("partition=nope",)).check_cluster()
