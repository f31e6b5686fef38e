"""``scripts/slurm_local.sh``: the one-node cluster's slurm.conf, its export lines, ``down``
stopping the daemons its pid files name, ``up`` reusing a running cluster, and one line for a bad
command."""
import os
import subprocess
import sys

import pytest

from experiments.release.artefacts import slurm_local
from runner_helpers import REPO


def _script(*args, env=None):
    return subprocess.run(["bash", str(REPO / "scripts" / "slurm_local.sh"), *args],
                          env={**os.environ, **(env or {})}, capture_output=True, text=True)


def test_conf_has_one_node_and_the_debug_partition(tmp_path):
    text = slurm_local.slurm_conf(tmp_path, "node7", 2, 21_000)
    lines = text.splitlines()
    assert "NodeName=node7 CPUs=2 RealMemory=21000 State=UNKNOWN" in lines
    assert "PartitionName=debug Nodes=node7 Default=YES MaxTime=INFINITE State=UP" in lines
    assert f"SlurmctldPidFile={tmp_path}/slurmctld.pid" in lines
    assert "AccountingStorageType=accounting_storage/none" in lines


def test_memory_is_ninety_percent_of_memtotal_in_mb():
    assert slurm_local.memory_mb("MemFree: 1 kB\nMemTotal:  2048000 kB\n") == 1800


def test_env_names_the_conf_of_the_cluster_folder(tmp_path):
    out = _script("env", env={"PUBPRIV_SLURM_DIR": str(tmp_path)})
    assert out.returncode == 0 and out.stdout == f"export SLURM_CONF={tmp_path}/slurm.conf\n"


def test_a_bad_command_is_one_line_and_status_1():
    out = _script("start")
    assert out.returncode == 1
    assert out.stderr == "slurm_local: usage: bash scripts/slurm_local.sh up|down|env\n"


def test_down_stops_the_daemons_and_removes_the_folder(tmp_path):
    folder = tmp_path / "cluster"
    (folder / "munge").mkdir(parents=True)
    daemon = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    (folder / "slurmd.pid").write_text(f"{daemon.pid}\n")
    (folder / "munge" / "munged.pid").write_text("999999999\n")     # no such process
    out = _script("down", env={"PUBPRIV_SLURM_DIR": str(folder)})
    assert out.returncode == 0 and daemon.wait(timeout=10) != 0 and not folder.exists()
    assert _script("down", env={"PUBPRIV_SLURM_DIR": str(folder)}).returncode == 0


@pytest.mark.skipif(os.geteuid() != 0, reason="`up` needs root")
def test_up_reuses_a_running_cluster_and_starts_nothing(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("slurmctld", "slurmd", "munged", "sbatch"):     # installed, never started
        stub = bin_dir / name
        stub.write_text(f"#!/bin/sh\necho {name} started >> {tmp_path / 'calls'}\n")
        stub.chmod(0o755)
    (tmp_path / "slurmctld.pid").write_text(str(os.getpid()))   # a live process: "running"
    out = _script("up", env={"PUBPRIV_SLURM_DIR": str(tmp_path),
                             "PATH": f"{bin_dir}:{os.environ['PATH']}"})
    assert out.returncode == 0
    assert out.stdout == f"export SLURM_CONF={tmp_path}/slurm.conf PUBPRIV_SLURM_STARTED=0\n"
    assert not (tmp_path / "calls").exists()
