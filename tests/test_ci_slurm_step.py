"""`.ci/run`'s Slurm step tears down only a cluster it started itself (scripts/slurm_local.sh
reports which with PUBPRIV_SLURM_STARTED); stand-ins replace the cluster and the tests."""
import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _step(tmp_path, started: str | None, up_status: int = 0) -> tuple[str, list[str]]:
    calls = tmp_path / "calls"
    exports = "" if started is None else f"echo 'export SLURM_CONF=/x PUBPRIV_SLURM_STARTED={started}'"
    stub = tmp_path / "slurm_local.sh"
    stub.write_text(f'echo "$1" >> {calls}\nif [ "$1" = up ]; then {exports}; exit {up_status}; fi\n')
    env = {**os.environ, "SLURM_LOCAL": str(stub), "SLURM_TESTS": f"touch {tmp_path / 'tested'}"}
    out = subprocess.run(["bash", str(REPO / ".ci" / "slurm_step.sh")], env=env, text=True,
                         capture_output=True, check=True).stdout
    return out, calls.read_text().split()


def test_a_cluster_this_step_started_is_torn_down(tmp_path):
    _, calls = _step(tmp_path, "1")
    assert calls == ["up", "down"] and (tmp_path / "tested").exists()


def test_a_reused_cluster_is_left_running(tmp_path):
    out, calls = _step(tmp_path, "0")
    assert calls == ["up"] and (tmp_path / "tested").exists()
    assert "left running" in out


def test_no_cluster_no_tests_no_teardown(tmp_path):
    out, calls = _step(tmp_path, None, up_status=1)
    assert calls == ["up"] and not (tmp_path / "tested").exists()
    assert "Slurm test not run" in out


@pytest.mark.skipif(shutil.which("slurmctld") is None, reason="Slurm is not installed here")
def test_slurm_local_up_reports_a_running_cluster_as_reused(tmp_path):
    (tmp_path / "slurmctld.pid").write_text(str(os.getpid()))   # a live process: "running"
    env = {**os.environ, "PUBPRIV_SLURM_DIR": str(tmp_path)}
    out = subprocess.run(["bash", str(REPO / "scripts" / "slurm_local.sh"), "up"], env=env,
                         text=True, capture_output=True, check=True).stdout
    assert "PUBPRIV_SLURM_STARTED=0" in out
