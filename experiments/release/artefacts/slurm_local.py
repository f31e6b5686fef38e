"""A single-node Slurm cluster on this Debian machine, for testing the Slurm launcher end to end.

    bash scripts/slurm_local.sh up      # install (if missing) and start munge, slurmctld, slurmd;
                                        # prints the exports clients need, with
                                        # PUBPRIV_SLURM_STARTED=1 when it started the cluster and
                                        # 0 when one was already running in $PUBPRIV_SLURM_DIR
    bash scripts/slurm_local.sh down    # stop them and remove the cluster's folder
    bash scripts/slurm_local.sh env     # print the export line clients need (SLURM_CONF=...)

(``python -m experiments.release.artefacts.slurm_local up|down|env`` is the same.) Everything
lives in ``$PUBPRIV_SLURM_DIR`` (default ``/tmp/pubpriv-slurm``): slurm.conf, state, logs and pid
files; clients find the cluster through ``SLURM_CONF``. Settings (:func:`slurm_conf`):
proctrack/linuxproc, task/none, no accounting storage (so ``sacct`` has nothing to report), one
partition ``debug`` with this machine's CPUs and 90% of its memory. Needs root (apt-get, munge,
slurmd). Any failure prints one line ``slurm_local: <why>`` on stderr and exits 1. The module
uses the standard library alone, so any Python 3 runs it.
"""
from __future__ import annotations

import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

PACKAGES = ("slurmctld", "slurmd", "slurm-client", "munge")
APT_LOG = Path("/tmp/pubpriv-slurm-apt.log")
MUNGE_KEY = Path("/etc/munge/munge.key")
MUNGE_FOLDERS = (Path("/run/munge"), Path("/var/log/munge"), Path("/var/lib/munge"))


class Failure(Exception):
    """Why the cluster could not be set up (printed as one line)."""


def cluster_dir() -> Path:
    return Path(os.environ.get("PUBPRIV_SLURM_DIR", "/tmp/pubpriv-slurm"))


def export_line(conf: Path, started: int | None = None) -> str:
    """The ``export`` line clients evaluate (with ``PUBPRIV_SLURM_STARTED`` after ``up``)."""
    return f"export SLURM_CONF={conf}" + ("" if started is None else
                                          f" PUBPRIV_SLURM_STARTED={started}")


def _quiet(*command: str, **kwargs) -> bool:
    """Whether ``command`` succeeds (its output discarded, no input; missing program: False)."""
    try:
        return subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, **kwargs).returncode == 0
    except OSError:
        return False


def _is_root() -> bool:
    return os.geteuid() == 0


def install_packages() -> None:
    """Debian's Slurm and munge packages, unless their programs are already there."""
    if all(shutil.which(p) for p in ("slurmctld", "slurmd", "munged", "sbatch")):
        return
    if not _is_root():
        raise Failure("slurmctld/slurmd/munge are not installed and installing needs root")
    if not shutil.which("apt-get"):
        raise Failure("slurmctld/slurmd/munge are not installed and there is no apt-get")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    with APT_LOG.open("w") as log:
        done = subprocess.run(["apt-get", "update", "-qq"], stdout=log, stderr=log).returncode == 0
        done = done and subprocess.run(["apt-get", "install", "-y", "-qq", *PACKAGES], env=env,
                                       stdout=log, stderr=log).returncode == 0
    if not done:
        raise Failure(f"apt-get install {' '.join(PACKAGES)} failed (see {APT_LOG})")


def _wait(check, tries: int, pause: float) -> bool:
    """Whether ``check()`` holds within ``tries`` attempts ``pause`` seconds apart."""
    for _ in range(tries):
        if check():
            return True
        time.sleep(pause)
    return False


def start_munge(folder: Path) -> None:
    """munged running as user munge with its pid file in ``folder``/munge (unless one answers)."""
    if _quiet("munge", "-n"):
        return
    if not MUNGE_KEY.is_file() or MUNGE_KEY.stat().st_size == 0:
        if not _quiet("mungekey", "--create"):
            MUNGE_KEY.write_bytes(os.urandom(1024))
    shutil.chown(MUNGE_KEY, "munge", "munge")
    MUNGE_KEY.chmod(0o400)
    for path in (*MUNGE_FOLDERS, folder / "munge"):
        path.mkdir(parents=True, exist_ok=True)
        shutil.chown(path, "munge", "munge")
    if not _quiet("runuser", "-u", "munge", "--", "munged",
                  f"--pid-file={folder / 'munge' / 'munged.pid'}"):
        raise Failure("munged did not start")
    if not _wait(lambda: _quiet("munge", "-n"), 50, 0.1):
        raise Failure("munged started but does not answer")


def memory_mb(meminfo: str) -> int:
    """90% of ``MemTotal`` (kB) of ``/proc/meminfo``'s text, in MB, as Slurm's RealMemory."""
    total = next(line.split()[1] for line in meminfo.splitlines()
                 if line.startswith("MemTotal"))
    return int(int(total) / 1024 * 0.9)


def slurm_conf(folder: Path, host: str, cpus: int, memory: int) -> str:
    """slurm.conf of the one-node cluster in ``folder`` (slurmd reads cgroup.conf only for cgroup
    plugins; none are used here)."""
    return f"""ClusterName=pubpriv
SlurmctldHost={host}
SlurmUser=root
SlurmctldPort=6817
SlurmdPort=6818
AuthType=auth/munge
StateSaveLocation={folder}/state
SlurmdSpoolDir={folder}/spool
SlurmctldPidFile={folder}/slurmctld.pid
SlurmdPidFile={folder}/slurmd.pid
SlurmctldLogFile={folder}/log/slurmctld.log
SlurmdLogFile={folder}/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
NodeName={host} CPUs={cpus} RealMemory={memory} State=UNKNOWN
PartitionName=debug Nodes={host} Default=YES MaxTime=INFINITE State=UP
"""


def write_conf(folder: Path, host: str) -> Path:
    """The cluster's folders and slurm.conf for this machine's CPUs and memory."""
    for name in ("state", "spool", "log"):
        (folder / name).mkdir(parents=True, exist_ok=True)
    conf = folder / "slurm.conf"
    conf.write_text(slurm_conf(folder, host, len(os.sched_getaffinity(0)),
                               memory_mb(Path("/proc/meminfo").read_text())))
    return conf


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return True


def running(pid_file: Path) -> bool:
    """Whether ``pid_file`` names a live process."""
    try:
        return _alive(int(pid_file.read_text().split()[0]))
    except (OSError, ValueError, IndexError):
        return False


def node_ready(conf: Path) -> bool:
    """Whether ``sinfo`` reports the node idle, mixed or allocated."""
    done = subprocess.run(["sinfo", "-h", "-N", "-o", "%T"], capture_output=True, text=True,
                          env={**os.environ, "SLURM_CONF": str(conf)})
    return any(state in ("idle", "mixed", "allocated") for state in done.stdout.split())


def up(folder: Path) -> str:
    """Start the cluster (or find it running); the export line for its clients."""
    if not _is_root():
        raise Failure("needs root (munged, slurmd)")
    install_packages()
    conf = folder / "slurm.conf"
    if running(folder / "slurmctld.pid"):
        return export_line(conf, 0)           # someone else's cluster: reuse it, leave it up
    folder.mkdir(parents=True, exist_ok=True)
    host = socket.gethostname().split(".")[0]
    start_munge(folder)
    write_conf(folder, host)
    env = {**os.environ, "SLURM_CONF": str(conf)}
    if not _quiet("slurmctld", "-f", str(conf), env=env):
        raise Failure(f"slurmctld did not start (see {folder}/log/slurmctld.log)")
    if not _quiet("slurmd", "-f", str(conf), env=env):
        raise Failure(f"slurmd did not start (see {folder}/log/slurmd.log)")
    if not _wait(lambda: node_ready(conf), 100, 0.2):
        raise Failure(f"node {host} did not become idle (see {folder}/log/)")
    return export_line(conf, 1)


def stop_pid(pid_file: Path) -> None:
    """Stop the daemon ``pid_file`` names, if it runs (SIGTERM, then SIGKILL after 5 s)."""
    if not pid_file.is_file():
        return
    pid = int(pid_file.read_text().split()[0])
    try:
        os.kill(pid, signal.SIGTERM)
    except OSError:
        return
    if not _wait(lambda: not _alive(pid), 50, 0.1):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def down(folder: Path) -> None:
    """Cancel this user's jobs, stop the daemons and remove the cluster's folder."""
    if not folder.is_dir():
        return
    conf = folder / "slurm.conf"
    if conf.is_file():
        _quiet("scancel", f"--user={pwd.getpwuid(os.geteuid()).pw_name}",
               env={**os.environ, "SLURM_CONF": str(conf)})
    for pid_file in ("slurmd.pid", "slurmctld.pid", "munge/munged.pid"):
        stop_pid(folder / pid_file)
    shutil.rmtree(folder)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    folder = cluster_dir()
    command = argv[0] if argv else ""
    try:
        if command == "up":
            print(up(folder))
        elif command == "down":
            down(folder)
        elif command == "env":
            print(export_line(folder / "slurm.conf"))
        else:
            raise Failure("usage: bash scripts/slurm_local.sh up|down|env")
    except (Failure, OSError, LookupError) as err:   # LookupError: no user munge
        print(f"slurm_local: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
