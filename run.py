#!/usr/bin/env python
"""pubpriv query-release runner (Hydra app).

    python run.py                                   # default: synthetic data, PMW^Pub, 5 runs
    python run.py -m algo=pmwpub,mwem eps=0.1,0.5,1  # a sweep: one job per combination
    python run.py experiment=theory_<paper> [key=value ...]   # a theory paper's experiment

A theory preset is handed to the theory runner (:mod:`experiments.theory.runner`). Otherwise every
job of the command line is composed and checked first (:mod:`experiments.release.configure.cli`); bad input
prints one ``error:`` line and exits with status 2 before anything is written; a failed write
(disk full, read-only) is one line and status 1, Ctrl-C one line and status 130. Each job then
runs its repetitions (:mod:`experiments.release.running.repetitions`) and stores one record per
repetition under ``results_dir``; collect them with
``python scripts/collect.py RESULTS_DIR -o OUT.csv``.
"""
from __future__ import annotations

import logging
import sys

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig

from experiments.console import EXIT_FAULT, fail, one_line_interrupts, write_failure
from experiments.progress import sweep_job_line
from experiments.release.configure.checks import ConfigError
from experiments.release.configure.cli import main, to_plain
from experiments.release.running.repetitions import run_config
from pubpriv_core.harness import PrivacyAccountingError, ReleaseFailure
from pubpriv_core.job import RUNTIME_KEYS
from pubpriv_core.data.paths import DataUnavailableError

log = logging.getLogger("run")


@hydra.main(version_base="1.3", config_path="conf", config_name="config")
def app(cfg: DictConfig) -> float:
    """One job: run (or skip) its repetitions; returns the mean max error over them."""
    plain = to_plain(cfg)
    try:
        records = run_config(plain)
    except (PrivacyAccountingError, ReleaseFailure) as err:  # a release that does not fit its
        fail(str(err), EXIT_FAULT)                          # budget or is unusable: a fault
    except (ConfigError, DataUnavailableError, ValueError) as err:  # project errors: one line
        fail(str(err))
    except OSError as err:                 # disk full, read-only, permissions: one line
        fail(write_failure(err, [plain["results_dir"]]), EXIT_FAULT)
    errors = [r["max_error"] for r in records]
    mean = sum(errors) / len(errors) if errors else float("nan")
    eps = records[0]["eps"] if records else plain["eps"]   # eps_equiv: the ε it set
    log.info("%s on %s (public=%s), eps=%g, T=%d%s: max_error %.4f (mean of %d runs) -> %s",
             plain["algo"]["name"], plain["dataset"]["name"], plain["public"]["kind"],
             eps, plain["T"], job_keys(), mean, len(errors), plain["results_dir"])
    line = sweep_job_line(HydraConfig.get().job.get("num"))
    if line:
        log.info(line)
    return mean


def job_keys() -> str:
    """The job's own overrides (in a sweep: its swept values) other than where/how to run,
    e.g. ``[public.delta=0.1 algo.selection=exponential]``, so summary lines tell jobs apart."""
    shown = [o for o in HydraConfig.get().overrides.task
             if o.split("=")[0].lstrip("+~") not in RUNTIME_KEYS]
    return f" [{' '.join(shown)}]" if shown else ""


def dispatch(argv: list[str]) -> None:
    """A theory preset goes to the theory runner (a sweep flag is ignored there), anything else
    to the checked Hydra app."""
    if any(a.startswith("experiment=theory_") for a in argv):
        from experiments.theory.runner import main as theory_main

        theory_main([a for a in argv if a not in ("-m", "--multirun")])
    else:
        main(app, argv)


if __name__ == "__main__":
    one_line_interrupts()
    dispatch(sys.argv[1:])
