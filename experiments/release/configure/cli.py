"""Command-line front of ``run.py``: check every job of a (multi)run before Hydra starts any.

``python run.py [-m] key=value ...`` first expands the sweep the way Hydra's basic sweeper does
(the Cartesian product of the config's ``hydra.sweeper.params`` and the command line's
comma-separated / ``range`` values), composes each job's config against the structured schemas,
and runs :func:`experiments.release.configure.checks.check_config` on it. The first problem — a Hydra
composition error (unknown key, wrong type, unknown group option) or a value check — is printed
as ONE line ``error: <message>`` on stderr and the process exits with status 2, before any record
(or Hydra output folder) is written. Only then is the Hydra app launched, with the original
arguments. While it runs, a failed write (disk full, read-only mount, permissions) ends the
command with one line and status 1, and Ctrl-C with ``interrupted: N records kept in DIR; ...``
and status 130.
"""
from __future__ import annotations

import copy
import json
import logging
import os
import re
import socket
import sys
import time
from pathlib import Path
from typing import Any, Callable, Sequence

import pooch
from hydra import compose, initialize_config_dir
from hydra.core.global_hydra import GlobalHydra
from hydra.core.utils import setup_globals
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.core.override_parser.types import ValueType
from hydra.types import RunMode
from omegaconf import DictConfig, OmegaConf, open_dict

from experiments.console import (EXIT_FAULT, EXIT_INTERRUPTED, UserError, fail, hydra_error_line,
                                 os_error_line, os_error_status, write_failure)
from experiments.release.configure.checks import ConfigError, check_config
from experiments.release.configure.registry import register_configs
from experiments.outputs import folder_problem
from experiments.release.configure.hydra_overrides import apply_value_overrides
from pubpriv_core.algorithms.plugins import plugin_error
from pubpriv_core.data.paths import DataUnavailableError

CONF_DIR = Path(__file__).resolve().parents[3] / "conf"
CONFIG_NAME = "config"
#: Hydra flags after which the pre-check is skipped (help, config printing, other config dirs).
_PASS_THROUGH = ("--help", "-h", "--hydra-help", "--info", "-i", "--cfg", "-c", "--resolve",
                 "--package", "-p", "--shell-completion", "-sc", "--config-path", "-cp",
                 "--config-name", "-cn", "--config-dir", "-cd", "--version")
_MULTIRUN = ("-m", "--multirun")


def to_plain(cfg: DictConfig) -> dict[str, Any]:
    """Resolved plain-dict run config without the ``hydra`` node (enums as their names)."""
    if "hydra" in cfg:
        cfg = cfg.copy()
        with open_dict(cfg):
            del cfg["hydra"]
    return OmegaConf.to_container(cfg, resolve=True, enum_to_str=True)


def job_overrides(argv: Sequence[str], params: dict[str, str] | None = None) -> list[list[str]]:
    """The override list of every job: one job, or with ``-m`` the Cartesian product that
    Hydra's basic sweeper runs — the config's ``hydra.sweeper.params`` first, then the command
    line, a later value for the same key replacing an earlier one."""
    overrides = [a for a in argv if not a.startswith("-")]
    if not any(a in _MULTIRUN for a in argv):
        return [overrides]
    lines = [f"{key}={value}" for key, value in (params or {}).items()] + overrides
    axes: dict[str, list[str]] = {}
    for override in OverridesParser.create().parse_overrides(lines):
        key = override.get_key_element()
        if override.is_sweep_override():
            if override.value_type == ValueType.GLOB_CHOICE_SWEEP:
                raise UserError(f"glob sweeps ({key}=glob(...)) are not supported by the runner; "
                                "list the options explicitly, e.g. algo=pmwpub,mwem")
            axes[key] = [f"{key}={value}" for value in override.sweep_string_iterator()]
        else:
            axes[key] = [f"{key}={override.get_value_element_as_str()}"]
    jobs: list[list[str]] = [[]]
    for axis in axes.values():
        jobs = [job + [choice] for job in jobs for choice in axis]
    return jobs


def sweeper_params(first_job: list[str], composer: "SweepComposer | None" = None
                   ) -> dict[str, str]:
    """``hydra.sweeper.params`` of the config (e.g. set by an experiment preset): the first job's
    group choices and Hydra overrides decide it (its other values are checked per job)."""
    composer = composer or SweepComposer()
    params = OmegaConf.select(composer.hydra_node(first_job), "sweeper.params") or {}
    return {str(key): str(value) for key, value in params.items()}


#: the composed config of every job of the last command line :func:`check_jobs` checked (the
#: sweep's progress lines and closing line count them).
PLANNED_JOBS: list[dict[str, Any]] = []


def check_jobs(argv: Sequence[str]) -> list[str]:
    """Compose and check every job of the command line; returns their distinct results_dirs
    (the configs are kept in :data:`PLANNED_JOBS`). In a sweep of several jobs an error names
    the job (its swept values)."""
    seen: set[str] = set()
    folders: set[str] = set()
    PLANNED_JOBS.clear()
    multirun = any(a in _MULTIRUN for a in argv)
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        composer = SweepComposer()
        jobs = job_overrides(argv)
        if multirun:
            jobs = job_overrides(argv, sweeper_params(jobs[0], composer))
        swept = swept_keys(jobs)
        for number, overrides in enumerate(jobs, 1):
            try:
                cfg = composer.compose(overrides)
                PLANNED_JOBS.append(cfg)
                key = json.dumps(cfg, sort_keys=True)
                if key not in seen:
                    seen.add(key)
                    check_config(cfg)
                    folders.add(cfg["results_dir"])
            except (UserError, ConfigError) as err:
                if len(jobs) == 1:
                    raise
                raise UserError(f"{job_name(number, len(jobs), overrides, swept)}: {err}") \
                    from None
        check_hydra_launch(argv, multirun)
    return sorted(folders)


def swept_keys(jobs: list[list[str]]) -> set[str]:
    """The keys whose value differs between ``jobs``."""
    values: dict[str, set[str]] = {}
    for job in jobs:
        for override in job:
            key, _, value = override.partition("=")
            values.setdefault(key, set()).add(value)
    return {key for key, seen in values.items() if len(seen) > 1}


def job_name(number: int, total: int, overrides: list[str], swept: set[str]) -> str:
    """``job 3 of 6 (algo=mst eps=1)``: the job's swept values."""
    shown = [o for o in overrides if o.partition("=")[0] in swept]
    return f"job {number} of {total}" + (f" ({' '.join(shown)})" if shown else "")


def check_hydra_launch(argv: Sequence[str], multirun: bool) -> None:
    """What Hydra itself composes and writes before the first job: in a sweep it first composes
    one config from the command line with the swept values left out (the groups' defaults in
    place of swept group options), which must compose too; and its output folder
    (``hydra.run.dir``, or ``hydra.sweep.dir`` in a sweep) must be writable."""
    overrides = [a for a in argv if not a.startswith("-")]
    mode = RunMode.MULTIRUN if multirun else RunMode.RUN
    if not multirun and not any(o.lstrip("+~").startswith("hydra.") for o in overrides):
        return                    # the default folder lies under results_dir, checked already
    try:
        cfg = GlobalHydra.instance().config_loader().load_configuration(
            CONFIG_NAME, overrides, run_mode=mode)
    except Exception as err:  # every Hydra/OmegaConf composition error becomes one line
        raise UserError(first_composition_error(err, overrides)) from None
    jobs = OmegaConf.select(cfg.hydra, "launcher.n_jobs")
    if multirun and jobs is not None and (not isinstance(jobs, int) or jobs == 0):
        raise UserError(f"hydra.launcher.n_jobs={jobs} must be a number of workers (negative: "
                        "all cores but |n| - 1, as joblib counts); pass e.g. "
                        "hydra.launcher.n_jobs=2")
    setup_globals()           # Hydra's resolvers (${now:...}) for the folder's name
    key = "sweep.dir" if multirun else "run.dir"
    folder = OmegaConf.select(cfg.hydra, key)
    problem = folder_problem(folder)
    if problem:
        raise UserError(f"hydra.{key}={folder} {problem}; pass a writable folder (or leave "
                        "hydra.{key} at its default under results_dir)".replace("{key}", key))


def first_composition_error(err: Exception, overrides: list[str]) -> str:
    """One line for a sweep whose first (swept-values-free) composition fails: typically an
    option of the swept groups' options (``-m algo=mst,aim algo.final_iters=200``) that the
    default group option (``algo=pmwpub``) lacks; ``++`` sets it where it exists."""
    line = hydra_error_line(err)
    parsed = OverridesParser.create().parse_overrides(overrides)
    groups = [o for o in parsed if o.is_sweep_override()
              and GlobalHydra.instance().config_loader().repository.group_exists(o.key_or_group)]
    failing = re.search(r"Could not override '([^']+)'", line)
    if not groups or not failing:
        return f"Hydra's first composition of the sweep fails: {line}"
    plain = [o.input_line for o in parsed if not o.is_sweep_override()
             and GlobalHydra.instance().config_loader().repository.group_exists(o.key_or_group)]
    choices = compose(CONFIG_NAME, overrides=plain, return_hydra_config=True).hydra.runtime.choices
    defaults = ", ".join(f"{o.key_or_group}={choices.get(o.key_or_group)}" for o in groups)
    key = failing.group(1)
    given = next((o for o in overrides if o.partition("=")[0] == key), key)
    reason = line.split(": ", 1)[-1].split(";")[0]
    swept = " ".join(o.input_line for o in groups)
    return (f"{given}: in a sweep Hydra first composes one config with the default {defaults} "
            f"in place of the swept {swept}, and there {reason}; write ++{given} to set it in "
            "the jobs whose option has it")


def check_group_choices(parsed) -> None:
    """Every config-group choice among the parsed overrides names an existing option, also in a
    group that is ``optional`` in the defaults (which Hydra would silently leave out). Must run
    inside ``initialize_config_dir``."""
    repo = GlobalHydra.instance().config_loader().repository
    for override in parsed:
        group = override.key_or_group
        if override.is_delete() or override.is_sweep_override() or not repo.group_exists(group) \
                or isinstance(override.value(), dict):
            continue
        value = override.value()
        if not isinstance(value, str) or not repo.config_exists(f"{group}/{value}"):
            broken = plugin_error(value) if group == "algo" and isinstance(value, str) else None
            if broken:
                raise UserError(broken)
            options = ", ".join(sorted(repo.get_group_options(group)))
            raise UserError(f"{group}={override.get_value_element_as_str()} names no option of "
                            f"config group {group}; choose one of: {options}")


class SweepComposer:
    """Composes the jobs of a sweep as Hydra does, but fast: Hydra builds a job's config from
    the defaults list (changed only by config-group overrides such as ``algo=mwem``) and then
    applies the value overrides (``eps=0.5``) to it. A full compose costs ~0.3 s, so the
    config of each distinct set of group overrides is composed once and copied, and the value
    overrides are applied with Hydra's own routine. Must run inside ``initialize_config_dir``."""

    #: composed configs by (group overrides, with hydra node), shared by the composers of a
    #: process (the config files do not change while it runs)
    _bases: dict[tuple[tuple[str, ...], bool], DictConfig] = {}

    def __init__(self):
        self._parser = OverridesParser.create()
        self._repo = GlobalHydra.instance().config_loader().repository

    def compose(self, overrides: list[str]) -> dict[str, Any]:
        try:
            parsed = self._parser.parse_overrides(overrides)
            self._check_choices(parsed)
            sweeps = [o.input_line for o in parsed if o.is_sweep_override()]
            if sweeps:
                raise UserError(f"Ambiguous value for argument '{sweeps[0]}'; add -m "
                                "(--multirun) to sweep over the values")
            groups = tuple(o.input_line for o in parsed if self._is_group(o))
            values = [o for o in parsed if not self._is_group(o)]
            cfg = copy.deepcopy(self._base(groups, any(o.is_hydra_override() for o in values)))
            apply_value_overrides(values, cfg)
            return to_plain(cfg)
        except UserError:
            raise
        except Exception as err:  # every Hydra/OmegaConf composition error becomes one line
            raise UserError(hydra_error_line(err)) from None

    def hydra_node(self, overrides: list[str]) -> DictConfig:
        """The ``hydra`` node of the config of ``overrides``' group choices and Hydra overrides
        (the other values do not change it)."""
        try:
            parsed = self._parser.parse_overrides(overrides)
            self._check_choices(parsed)
            groups = tuple(o.input_line for o in parsed if self._is_group(o))
            values = [o for o in parsed if o.is_hydra_override() and not self._is_group(o)]
            cfg = self._base(groups, True)
            if values:
                cfg = copy.deepcopy(cfg)
                apply_value_overrides(values, cfg)
            return cfg.hydra
        except UserError:
            raise
        except Exception as err:  # every Hydra/OmegaConf composition error becomes one line
            raise UserError(hydra_error_line(err)) from None

    def _check_choices(self, parsed) -> None:
        check_group_choices(parsed)

    def _base(self, groups: tuple[str, ...], with_hydra: bool) -> DictConfig:
        """The composed config of ``groups``; without the (large) ``hydra`` node unless a value
        override needs it, which keeps the per-job copy cheap."""
        if (groups, with_hydra) not in self._bases:
            cfg = compose(CONFIG_NAME, overrides=list(groups), return_hydra_config=True)
            if not with_hydra:
                with open_dict(cfg):
                    del cfg["hydra"]
            self._bases[groups, with_hydra] = cfg
        return self._bases[groups, with_hydra]

    def _is_group(self, override) -> bool:
        """Hydra's rule (defaults_list.Overrides): a group key with a non-dict value."""
        return (self._repo.group_exists(override.key_or_group)
                and not isinstance(override.value(), dict))


def compose_config(overrides: Sequence[str] = ()) -> dict[str, Any]:
    """The resolved plain-dict config of one job, as ``python run.py *overrides`` would run it."""
    register_configs()
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        try:
            check_group_choices(OverridesParser.create().parse_overrides(list(overrides)))
            cfg = compose(CONFIG_NAME, overrides=list(overrides), return_hydra_config=True)
        except UserError:
            raise
        except Exception as err:  # every Hydra/OmegaConf composition error becomes one line
            raise UserError(hydra_error_line(err)) from None
        return to_plain(cfg)


def interrupted(results_dirs: Sequence[str]) -> str:
    """The one line printed on Ctrl-C: how many records each results_dir holds."""
    from experiments.release.running.store import ResultsStore

    kept = ", ".join(f"{sum(1 for _ in ResultsStore(d).paths())} records kept in {d}"
                     for d in results_dirs) or "before any job started, nothing written"
    return f"interrupted: {kept}; re-run the same command to resume"


def main(hydra_app: Callable[[], None], argv: Sequence[str] | None = None) -> None:
    """Check all jobs of ``argv`` (default ``sys.argv[1:]``), then launch ``hydra_app``."""
    argv = list(sys.argv[1:] if argv is None else argv)
    register_configs()
    pooch.get_logger().setLevel(logging.WARNING)  # one error line, no "Downloading ..." notice
    folders: list[str] = []
    PLANNED_JOBS.clear()
    try:
        if not any(a.split("=")[0] in _PASS_THROUGH for a in argv):
            try:
                folders = check_jobs(argv)
            except (UserError, ConfigError, DataUnavailableError) as err:
                fail(str(err))
            except OSError as err:   # a path the OS refuses (name too long, a loop), EIO
                fail(os_error_line(err), os_error_status(err))
        tally = SweepTally(list(PLANNED_JOBS)) if any(a in _MULTIRUN for a in argv) else None
        launch(hydra_app, folders)
        if tally is not None and tally.configs:
            print(tally.summary(folders), flush=True)
    except KeyboardInterrupt:
        print(interrupted(folders), file=sys.stderr)
        sys.exit(EXIT_INTERRUPTED)


class SweepTally:
    """What a ``run.py -m`` sweep adds: its (config, repetition) tasks stored before and after,
    for the closing line (:func:`experiments.progress.sweep_summary`). Exports the job count and
    start time to the jobs (``PUBPRIV_SWEEP_JOBS``, ``PUBPRIV_SWEEP_START``; launchers that run
    jobs in other processes pass the environment on) for their ``job i/N`` lines."""

    def __init__(self, jobs: list[dict[str, Any]]):
        from pubpriv_core.job import config_hash

        unique = {config_hash(cfg): cfg for cfg in jobs}
        self.configs = list(unique.items())
        self.start = time.time()
        self.reused = self.stored()
        os.environ["PUBPRIV_SWEEP_JOBS"] = str(len(jobs))
        os.environ["PUBPRIV_SWEEP_START"] = repr(self.start)

    @property
    def tasks(self) -> int:
        return sum(cfg["runs"] for _, cfg in self.configs)

    def stored(self) -> int:
        """How many of the sweep's (config, repetition) records exist now (files, unread)."""
        from experiments.release.running.store import ResultsStore

        return sum(ResultsStore(cfg["results_dir"]).path(chash, cfg["seed"], run).is_file()
                   for chash, cfg in self.configs for run in range(cfg["runs"]))

    def summary(self, folders: Sequence[str]) -> str:
        from experiments.progress import sweep_summary

        stored = self.stored()
        return sweep_summary(new=stored - self.reused, reused=self.reused,
                             missing=self.tasks - stored, wall=time.time() - self.start,
                             where=list(folders))


def launch(hydra_app: Callable[[], None], folders: Sequence[str]) -> None:
    """Run the Hydra app; a failed write (also Hydra's own: logs, job folders) ends it in one
    line. Hydra would print a traceback and exit 1 itself unless HYDRA_FULL_ERROR is set, which
    lets the error reach this handler; a log line that cannot be written is dropped."""
    os.environ["HYDRA_FULL_ERROR"] = "1"
    os.environ["PUBPRIV_PROCESS"] = f"{socket.gethostname()}-{os.getpid()}"  # own sweep folder
    logging.raiseExceptions = False
    try:
        hydra_app()
    except OSError as err:
        fail(write_failure(err, folders), EXIT_FAULT)
    except Exception as err:
        if interrupted_underneath(err):
            raise KeyboardInterrupt from None
        raise


def interrupted_underneath(err: BaseException) -> bool:
    """Whether a Ctrl-C lies in ``err``'s chain of causes and contexts. A SIGINT that lands while
    OmegaConf builds a node leaves the node half-made; its clean-up then fails and Hydra reports
    that failure as a ``ConfigCompositionException`` whose chain holds the KeyboardInterrupt."""
    seen: set[int] = set()
    stack: list[BaseException | None] = [err]
    while stack:
        link = stack.pop()
        if link is None or id(link) in seen:
            continue
        if isinstance(link, KeyboardInterrupt):
            return True
        seen.add(id(link))
        stack += [link.__cause__, link.__context__]
    return False
