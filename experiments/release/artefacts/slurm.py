"""Problem groups as a Slurm job array: ``reproduce.py --launcher slurm``.

The resources are those of the runner's own Slurm preset, ``hydra/launcher=slurm``
(``conf/hydra/launcher/slurm.yaml`` over hydra-submitit-launcher's ``submitit_slurm``), with
``KEY=VALUE`` options replacing its fields (``partition=debug``, ``mem_gb=4``). One array task
runs one problem group start to end (:func:`experiments.release.running.sweep.run_group`), so it builds
its problem once, as a joblib worker does; each task writes its records into the shared
``results_dir`` atomically and under its claim, so the driver collects and draws as after a
joblib sweep, and a task that fails or is cancelled loses only its own group's unfinished runs.

On one machine the array gains nothing over joblib (the same cores) and costs each task a fresh
interpreter: imports, the compiled kernels loaded from their cache, the dataset read again.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

from experiments.console import UserError

#: fields of the launcher preset that submitit's AutoExecutor takes under their own name; the
#: others (Slurm-only) take a ``slurm_`` prefix
GENERIC = ("timeout_min", "cpus_per_task", "gpus_per_node", "tasks_per_node", "mem_gb", "nodes",
           "name", "stderr_to_stdout")
#: fields that are not job parameters: Hydra's target, the job folder (the driver's) and the
#: requeue count on timeouts (the tasks are not checkpointed)
NOT_PARAMETERS = ("_target_", "submitit_folder", "max_num_timeout")
#: one group is one process: one core per array task unless an option says otherwise
DEFAULTS = ("cpus_per_task=1", "name=pubpriv-reproduce")


class SlurmJobsFailed(RuntimeError):
    """Some array tasks failed; the records of the others are kept."""


def preset(options: Sequence[str] = ()) -> dict[str, Any]:
    """The fields of ``hydra/launcher=slurm`` with ``DEFAULTS`` and then ``options`` applied
    (``key=value``, values typed as Hydra parses them; an unknown key is a one-line error
    listing the known ones)."""
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf

    from experiments.release.configure.cli import CONF_DIR, CONFIG_NAME
    from experiments.release.configure.registry import register_configs

    register_configs()
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        cfg = compose(CONFIG_NAME, overrides=["hydra/launcher=slurm"], return_hydra_config=True)
    fields = OmegaConf.to_container(cfg.hydra.launcher, resolve=False)
    for option in (*DEFAULTS, *options):
        key, sep, value = option.partition("=")
        if not sep or key not in fields or key in NOT_PARAMETERS:
            known = ", ".join(k for k in fields if k not in NOT_PARAMETERS)
            raise UserError(f"--launcher-option {option!r}: write KEY=VALUE with KEY one of the "
                            f"Slurm preset's fields: {known}")
        fields[key] = _value(option)
    return fields


def _value(option: str) -> Any:
    """The typed value of ``key=value`` (``mem_gb=4`` → 4, ``partition=debug`` → "debug")."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    try:
        return OverridesParser.create().parse_overrides([option])[0].value()
    except Exception as err:        # a parse error of Hydra's grammar: one line
        raise UserError(f"--launcher-option {option!r}: {' '.join(str(err).split())}") from None


def parameters(fields: dict[str, Any]) -> dict[str, Any]:
    """submitit ``update_parameters`` keywords of the preset's fields: generic ones by name,
    the others as ``slurm_<field>``; unset (None) fields and empty mappings are left out."""
    out = {}
    for key, value in fields.items():
        if key in NOT_PARAMETERS or value is None or value == {}:
            continue
        out[key if key in GENERIC else f"slurm_{key}"] = value
    return out


def slurm_executor(folder: Path, params: dict[str, Any]):
    """A submitit Slurm executor writing its job files under ``folder/<job id>``."""
    import submitit

    executor = submitit.AutoExecutor(folder=str(folder / "%j"), cluster="slurm")
    executor.update_parameters(**params)
    return executor


@dataclass
class SlurmLauncher:
    """Runs a function over items as one Slurm array (``map``), or once (``call``), waiting for
    every task; each job's files (script, log, pickled result) go under the given folder.
    ``backend(folder, parameters)`` builds the submitit executor (default: a Slurm one with
    these parameters; the tests pass submitit's local executor)."""

    options: tuple[str, ...] = ()
    poll_s: float = 2.0
    backend: Callable[[Path, dict], Any] | None = None

    def __post_init__(self):
        preset(self.options)                # a bad option is an error before any work

    def check_cluster(self) -> None:
        """A one-line :class:`UserError` unless ``sinfo`` answers for the preset's partition
        (or the default one), so a missing cluster is said before any work."""
        import shutil
        import subprocess

        partition = preset(self.options).get("partition")
        command = ["sinfo", "-h", *(["-p", str(partition)] if partition else [])]
        if shutil.which("sinfo") is None:
            raise UserError("--launcher slurm: sinfo is not installed here; run on a Slurm "
                            "login node or start one (bash scripts/slurm_local.sh up)")
        done = subprocess.run(command, capture_output=True, text=True, timeout=60)
        if done.returncode != 0 or not done.stdout.strip():
            why = (done.stderr.strip().splitlines() or ["no such partition"])[-1]
            raise UserError(f"--launcher slurm: no Slurm cluster answers ({why}); export the "
                            "SLURM_CONF of a cluster or name its partition with "
                            "--launcher-option partition=<name>")

    def with_options(self, *options: str) -> "SlurmLauncher":
        """This launcher with ``options`` after its own."""
        return replace(self, options=(*self.options, *options))

    def make_executor(self, folder: Path, extra: Sequence[str] = ()):
        params = parameters(preset((*self.options, *extra)))
        return (self.backend or slurm_executor)(folder, params)

    def map(self, fn: Callable, items: Sequence, folder: Path) -> Iterator:
        """``fn(item)`` for each item as one array task; yields results as tasks finish. After
        the last, a task that failed raises :class:`SlurmJobsFailed` naming its log folder."""
        if not items:
            return
        executor = self.make_executor(folder)
        jobs = _submitted(lambda: executor.map_array(fn, list(items)))
        yield from self._wait(jobs, folder)

    def call(self, fn: Callable, *args, folder: Path, cpus: int = 2) -> Any:
        """``fn(*args)`` as one Slurm job with ``cpus`` cores (a theory preset's own workers)."""
        executor = self.make_executor(folder, [f"cpus_per_task={cpus}"])
        return next(self._wait([_submitted(lambda: executor.submit(fn, *args))], folder))

    def _wait(self, jobs: list, folder: Path) -> Iterator:
        from submitit.helpers import as_completed

        failed: list[str] = []
        logging.getLogger("submitit").addFilter(SACCT_ONCE)
        try:
            for job in as_completed(jobs, poll_frequency=self.poll_s):
                try:
                    result = job.result()
                except Exception as err:        # a failed task: keep waiting for the others
                    failed.append(f"job {job.job_id}: {_last_line(err)}")
                    continue
                yield result
        except KeyboardInterrupt:
            _cancel(jobs)
            raise
        if failed:
            raise SlurmJobsFailed(f"{len(failed)} of {len(jobs)} Slurm tasks failed (first: "
                                  f"{failed[0]}); their logs are under {folder}; the other tasks' "
                                  "records are kept and re-running resumes")


class _FirstSacctWarning(logging.Filter):
    """Passes submitit's "Bypassing sacct error" warning once per process: on a cluster without
    accounting storage it repeats at every poll, and submitit then reads each job's result file
    instead, which is what the wait needs."""

    def __init__(self):
        super().__init__()
        self.seen = False

    def filter(self, record: logging.LogRecord) -> bool:
        if "Bypassing sacct error" not in record.getMessage():
            return True
        seen, self.seen = self.seen, True
        return not seen


SACCT_ONCE = _FirstSacctWarning()


def _submitted(submit: Callable[[], Any]) -> Any:
    """``submit()``; a submission Slurm refuses (sbatch's error, or no sbatch) is one
    :class:`SlurmJobsFailed` line, before any task ran."""
    try:
        return submit()
    except (RuntimeError, OSError) as err:
        raise SlurmJobsFailed(f"Slurm refused the submission ({_last_line(err)}); check that "
                              "sbatch reaches a cluster (SLURM_CONF) and the partition "
                              "(--launcher-option partition=<name>)") from None


def _last_line(err: Exception) -> str:
    """The exception line of a failed task: submitit's error quotes the task's traceback between
    two rules of dashes, then names the log files."""
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    rules = [i for i, line in enumerate(lines) if set(line) == {"-"}]
    if len(rules) >= 2 and rules[-1] > rules[-2] + 1:
        return lines[rules[-1] - 1]
    return lines[-1] if lines else type(err).__name__


def _cancel(jobs: Iterable) -> None:
    """Cancel the tasks still queued or running (Ctrl-C in the driver)."""
    for job in jobs:
        if not job.done():
            job.cancel(check=False)
