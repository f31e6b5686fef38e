"""The theory runner tells the time: part i/P lines with elapsed and time left, block lines, one
closing line; the config only with --verbose; Ctrl-C one line and status 130, also while joblib
workers run (no worker traceback)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest
from omegaconf import OmegaConf

from experiments.theory import runner
from experiments.theory.progress import part, plan
from pubpriv_core.learning import RecordStore
from runner_helpers import REPO


def _fake(monkeypatch, tmp_path, body):
    cfg = OmegaConf.create({"experiment": {"name": "demo", "out": str(tmp_path)}})
    monkeypatch.setattr(runner, "compose", lambda argv: cfg)
    monkeypatch.setattr(runner, "run_theory", lambda cfg: body(RecordStore(tmp_path / "records")))


def _two_parts(store):
    """Two parts of one block each; a stored block is skipped, as the experiments do."""
    plan(["first", "second"])
    for name, key in (("first", "first/a"), ("second", "second/b")):
        with part(name):
            if store.get(key) is None:
                store.put(key, {"x": 1})


def test_parts_blocks_and_closing_line(monkeypatch, tmp_path, capsys, caplog):
    _fake(monkeypatch, tmp_path, _two_parts)
    with caplog.at_level("INFO"):
        runner.main(["experiment=theory_demo"])
    assert "block done: second/b (2 new this run; " in caplog.text
    captured = capsys.readouterr()
    assert "name: demo" not in captured.out                       # no config without --verbose
    err = captured.err
    assert "theory demo: 2 part(s) (first, second); 0 block(s) stored" in err
    assert "part 1/2 first: started" in err
    assert "part 1/2 done (first in " in err and "1 new block(s)); " in err and " left" in err
    assert "theory demo done: 2 new block(s), 0 reused, wall " in err.splitlines()[-1]
    runner.main(["experiment=theory_demo", "--verbose"])
    captured = capsys.readouterr()
    assert "name: demo" in captured.out
    assert "2 block(s) stored" in captured.err and "0 new block(s), 2 reused" in captured.err


def test_ctrl_c_is_one_line_and_status_130(monkeypatch, tmp_path, capsys):
    def interrupted(store):
        store.put("first/a", {"x": 1})
        raise KeyboardInterrupt
    _fake(monkeypatch, tmp_path, interrupted)
    with pytest.raises(SystemExit) as exit_info:
        runner.main(["experiment=theory_demo"])
    assert exit_info.value.code == 130
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last == (f"interrupted: 1 new block(s) this run, 1 kept in {tmp_path / 'records'}; "
                    "re-run the same command to resume")


DRIVER = """
import sys, time
from joblib import Parallel, delayed
from omegaconf import OmegaConf
from experiments.theory import runner

def slow(i):
    open(f"{sys.argv[1]}/started-{i}", "w").close()
    time.sleep(60)

def body(cfg):
    Parallel(n_jobs=2)(delayed(slow)(i) for i in range(4))

runner.compose = lambda argv: OmegaConf.create({"experiment": {"name": "demo", "out": sys.argv[1]}})
runner.run_theory = body
runner.main(["experiment=theory_demo"])
"""


def test_ctrl_c_with_joblib_workers_prints_no_traceback(tmp_path):
    script = tmp_path / "driver.py"
    script.write_text(textwrap.dedent(DRIVER))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.Popen([sys.executable, str(script), str(tmp_path)], cwd=REPO, env=env,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.time() + 120
    while len(list(tmp_path.glob("started-*"))) < 2 and time.time() < deadline:
        time.sleep(0.2)                 # both workers are running a task
    os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C reaches the whole process group
    rest = proc.stderr.read()
    assert proc.wait(timeout=60) == 130
    assert "Traceback" not in rest and "KeyboardInterrupt" not in rest
    assert rest.strip().splitlines()[-1].startswith("interrupted: 0 new block(s) this run")
