"""Operational failures end the runner in one line, without a traceback or a half-written file:
a full or failing disk mid-sweep (status 1), Ctrl-C (status 130, records kept, resumable) and
damaged raw data files (status 2, naming the file)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from experiments.release.configure import cli
from experiments.release.artefacts.acs_fixture import write_fixtures
from pubpriv_core.data import paths
from runner_helpers import REPO, load_script

SWEEP = ["-m", "eps=range(1,12)", "dataset.preset=tiny", "T=3", "runs=2", "workload.size=4",
         "progress=false"]
#: runs run.py after making the store's fsync fail with ENOSPC from the 3rd record on.
FULL_DISK_DRIVER = """
import errno, os, runpy, sys
from experiments.release.running import store
calls = [0]
real_fsync = os.fsync
def fsync(fd):
    calls[0] += 1
    if calls[0] > 2:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    return real_fsync(fd)
store.os.fsync = fsync
sys.argv = ["run.py", *sys.argv[1:]]
runpy.run_path("run.py", run_name="__main__")
"""


def _env():
    env = dict(os.environ, CI="1")
    env.pop("HYDRA_FULL_ERROR", None)
    return env


def _records(folder: Path) -> list[Path]:
    """Finished records (a temp file of a write in flight is not one: it may vanish on Ctrl-C)."""
    return sorted(p for p in (folder / "records").glob("*/*.json")
                  if not p.name.startswith(".tmp-"))


def _leftovers(folder: Path) -> list[Path]:
    return list(folder.rglob(".tmp-*"))


def test_full_disk_mid_sweep_is_one_line_and_keeps_complete_records(tmp_path):
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-c", FULL_DISK_DRIVER, *SWEEP, f"results_dir={out}"],
                          cwd=REPO, env=_env(), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr + proc.stdout
    assert proc.stderr.startswith("error: cannot write ") and "No space left" in proc.stderr
    assert len(_records(out)) == 2 and not _leftovers(out)
    collect = load_script("collect").main
    assert collect([str(out), "-o", str(tmp_path / "all.csv"), "--strict"]) == 0


def test_ctrl_c_keeps_records_and_says_how_to_resume(tmp_path):
    out = tmp_path / "out"
    # SIGINT at its default in the child, as at a terminal (a test run started in the background
    # of a non-interactive shell ignores SIGINT, and a child would inherit that)
    proc = subprocess.Popen([sys.executable, "run.py", *SWEEP, f"results_dir={out}"], cwd=REPO,
                            env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.time() + 240
    while len(_records(out)) < 4 and proc.poll() is None and time.time() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    kept = len(_records(out))
    assert proc.returncode == 130, err
    assert err == f"interrupted: {kept} records kept in {out}; re-run the same command to " \
                  "resume\n"
    assert 4 <= kept < 22 and not _leftovers(out)


def _children(pid: int) -> set[int]:
    """The direct children of ``pid`` (Linux /proc)."""
    found = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        found |= {int(c) for c in (task / "children").read_text().split()}
    return found


def _running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not Path(f"/proc/self/task/{os.getpid()}/children").exists(),
                    reason="reads the children of a process from /proc")
def test_sigterm_to_the_parent_stops_its_workers_and_keeps_records(tmp_path):
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "run.py", *SWEEP, "hydra/launcher=joblib",
                             "hydra.launcher.n_jobs=2", f"results_dir={out}"], cwd=REPO,
                            env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)
    deadline = time.time() + 240
    while len(_records(out)) < 4 and proc.poll() is None and time.time() < deadline:
        time.sleep(0.05)
    workers = _children(proc.pid)
    proc.send_signal(signal.SIGTERM)            # the parent alone, as `kill PID` or a scheduler
    _, err = proc.communicate(timeout=120)
    kept = len(_records(out))
    assert proc.returncode == 130, err
    assert err == f"interrupted: {kept} records kept in {out}; re-run the same command to " \
                  "resume\n"
    assert workers and not _leftovers(out)
    deadline = time.time() + 30
    while any(map(_running, workers)) and time.time() < deadline:
        time.sleep(0.1)
    assert not any(map(_running, workers))


def test_ctrl_c_before_any_job_writes_nothing(tmp_path, capsys, monkeypatch):
    def interrupt(argv):
        raise KeyboardInterrupt
    monkeypatch.setattr(cli, "check_jobs", interrupt)
    with pytest.raises(SystemExit) as info:
        cli.main(lambda: pytest.fail("must not start"), [f"results_dir={tmp_path / 'out'}"])
    assert info.value.code == 130
    assert capsys.readouterr().err == ("interrupted: before any job started, nothing written; "
                                       "re-run the same command to resume\n")
    assert not (tmp_path / "out").exists()


def _composition_failure_during(first: BaseException):
    """A Hydra app failing the way OmegaConf does when ``first`` lands while it builds a node:
    the node's clean-up fails, and Hydra wraps that failure as a composition error."""
    from hydra.errors import ConfigCompositionException

    def app():
        try:
            raise first
        except BaseException:
            try:
                raise AttributeError("'NoneType' object has no attribute '_invalidate_flags_cache'")
            except AttributeError as cleanup:
                raise ConfigCompositionException() from cleanup
    return app


def test_ctrl_c_during_config_composition_is_an_interrupt(tmp_path, capsys, monkeypatch):
    out = tmp_path / "out"
    monkeypatch.setattr(cli, "check_jobs", lambda argv: [str(out)])
    with pytest.raises(SystemExit) as info:
        cli.main(_composition_failure_during(KeyboardInterrupt()), [f"results_dir={out}"])
    assert info.value.code == 130
    assert capsys.readouterr().err == (f"interrupted: 0 records kept in {out}; re-run the same "
                                       "command to resume\n")


def test_composition_failure_without_ctrl_c_is_not_an_interrupt(tmp_path, monkeypatch):
    from hydra.errors import ConfigCompositionException

    monkeypatch.setattr(cli, "check_jobs", lambda argv: [str(tmp_path / "out")])
    with pytest.raises(ConfigCompositionException):
        cli.main(_composition_failure_during(ValueError("bad node")),
                 [f"results_dir={tmp_path / 'out'}"])


@pytest.fixture(scope="module")
def acs_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("acs_damaged")
    write_fixtures(root, rows=50, seed=0)
    return root


DAMAGED_DATA = {
    "empty": (lambda good: b"", "is empty"),
    "truncated": (lambda good: good[:len(good) // 2 + 7], "is truncated"),
    "undecodable": (lambda good: b"\xff\xfe" + bytes(range(128, 256)) * 8 + b"\n",
                    "is not a readable PUMS CSV"),
    "header only": (lambda good: good.split(b"\n")[0] + b"\n", "has no person rows"),
    "columns missing": (lambda good: b"\n".join(b",".join(line.split(b",")[:3])
                                                for line in good.split(b"\n")),
                        "needs one of the PUMS columns"),
}


@pytest.mark.parametrize("kind", list(DAMAGED_DATA))
def test_damaged_acs_person_file_is_named_in_one_line(kind, acs_root, tmp_path, capsys):
    path = acs_root / "acs" / "2018" / "1-Year" / "psam_p42.csv"
    good = path.read_bytes()
    damage, words = DAMAGED_DATA[kind]
    path.write_bytes(damage(good))
    try:
        with pytest.raises(SystemExit) as info:
            cli.main(lambda: pytest.fail("must not start"),
                     ["dataset=acs", "dataset.download=false", f"data_root={acs_root}",
                      f"results_dir={tmp_path / 'out'}"])
    finally:
        path.write_bytes(good)
        paths.set_data_root(None)
    err = capsys.readouterr().err
    assert info.value.code == 2 and err.count("\n") == 1
    assert err.startswith(f"error: ACS person file {path}") and words in err
    assert "census.gov" in err and not (tmp_path / "out").exists()
