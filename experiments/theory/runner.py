"""Runner for the theory papers' experiments.

``REGISTRY`` maps an experiment name to ``fn(cfg) -> None``; a paper module registers itself with
``@register("beimel2014")`` and is imported on demand as ``experiments.theory.<name>``.  A preset
``conf/experiment/theory_<name>.yaml`` holds its parameters (``name`` selects the entry, ``out`` the
results folder).  Usage::

    python -m experiments.theory experiment=theory_beimel2014 [experiment.trials=60 ...]

(also ``python run.py experiment=theory_<paper> ...``), or ``run_theory(cfg)`` from another
Hydra app (``cfg.experiment`` or the preset node itself).
Every experiment writes one JSON record per finished (setting, n) block through
``pubpriv_core.learning.RecordStore`` under ``<out>/records`` and skips existing ones, so an
interrupted run resumes. Progress (:mod:`experiments.theory.progress`): ``part i/P`` lines with the
elapsed time and the time left, a ``block done: <key> (k new this run; elapsed)`` line per block
and one closing line; ``--verbose`` prints the composed config first; Ctrl-C is one line and
status 130.
"""
from __future__ import annotations

import importlib
import json
import logging
import sys
from pathlib import Path
from typing import Callable

import numpy as np
from omegaconf import DictConfig, OmegaConf
from threadpoolctl import threadpool_limits

from experiments.console import (EXIT_FAULT, EXIT_INTERRUPTED, fail, hydra_error_line,
                                 quiet_workers, write_failure_line)
from experiments.theory.preset_checks import check_against_preset, check_output

REGISTRY: dict[str, Callable[[DictConfig], None]] = {}
PARTS: dict[str, tuple[str, ...]] = {}   # the parts an experiment can run (``experiment.parts``)
CONF_DIR = Path(__file__).resolve().parents[2] / "conf"


def register(name: str, parts: tuple[str, ...] = ()):
    """Decorator: ``@register("alon2019", parts=(...))`` adds ``fn(cfg)`` to the registry, with the
    names ``cfg.parts`` may select."""
    def deco(fn):
        if name in REGISTRY and REGISTRY[name] is not fn:
            raise ValueError(f"theory experiment {name!r} is registered twice; rename one of them")
        REGISTRY[name] = fn
        PARTS[name] = tuple(parts)
        return fn
    return deco


def save_figure(fig, path: Path) -> None:
    """Lay out, move each legend off the data (:mod:`experiments.theory.plotting`), write
    (130 dpi) and close one experiment figure."""
    import matplotlib.pyplot as plt

    from experiments.theory.plotting import place_legends
    fig.tight_layout()
    place_legends(fig)
    fig.savefig(path, dpi=130)
    plt.close(fig)


def stream_rng(*parts) -> np.random.Generator:
    """The generator of one stream, seeded by ``SeedSequence(parts)`` (integers)."""
    return np.random.default_rng(np.random.SeedSequence([int(p) for p in parts]))


def seeded_rng(cfg: DictConfig, *parts) -> np.random.Generator:
    """The generator of one named stream of an experiment: seeded by ``cfg.seed`` and ``parts``."""
    return stream_rng(cfg.seed, *parts)


def write_summary(out: Path, summary: dict) -> None:
    """Write an experiment's ``summary.json`` under ``out`` and print it."""
    text = json.dumps(summary, indent=2)
    (out / "summary.json").write_text(text)
    print(text)


def _lookup(name: str) -> Callable[[DictConfig], None]:
    if name not in REGISTRY:
        try:
            importlib.import_module(f"experiments.theory.{name}")
        except ModuleNotFoundError as err:
            if err.name != f"experiments.theory.{name}":
                raise
    if name not in REGISTRY:
        raise KeyError(f"no theory experiment {name!r}; known: {sorted(REGISTRY)} (add experiments/theory/{name}.py)")
    return REGISTRY[name]


def run_theory(cfg: DictConfig) -> None:
    """Dispatch a composed config to its registered experiment, after the checks that need no
    work: the experiment and its parts exist, the output folder can be written. The experiment
    runs on one BLAS thread, as its blocks do in joblib's workers, so a preset computes in the
    same arithmetic whatever its ``n_jobs`` (as ``run_algorithm`` does for a release)."""
    node = cfg.experiment if "experiment" in cfg else cfg
    if "name" not in node:
        raise KeyError("theory config has no 'name'; set experiment.name to a registered experiment")
    fn = _lookup(str(node.name))
    check_output(node.get("out"))
    known = list(PARTS[str(node.name)])
    unknown = sorted(set(node.get("parts") or ()) - set(known))
    if unknown:
        raise ValueError(f"experiment.parts has unknown {unknown}; choose from {known}")
    if node.get("parts") is not None and not node.parts:
        raise ValueError(f"experiment.parts is empty, nothing would run; choose from {known}")
    with threadpool_limits(limits=1, user_api="blas"):
        fn(node)


def theory_presets() -> list[str]:
    """The theory presets of ``conf/experiment`` (``theory_<paper>``)."""
    return sorted(p.stem for p in (CONF_DIR / "experiment").glob("theory_*.yaml"))


def compose(argv: list[str]) -> DictConfig:
    """Compose ``conf/experiment/<preset>.yaml`` with Hydra, apply the remaining overrides and
    check the result against the preset (:mod:`experiments.theory.preset_checks`)."""
    from hydra import compose as hydra_compose, initialize_config_dir

    presets = [a for a in argv if a.startswith("experiment=")]
    if len(presets) != 1 or presets[0].partition("=")[2] not in theory_presets():
        given = f"got {' '.join(presets)}" if presets else "got none"
        raise ValueError(f"pass exactly one theory preset experiment=<name> ({given}); choose "
                         f"one of: {', '.join(theory_presets())}")
    rest = [a for a in argv if a not in presets]
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base=None):
        cfg = hydra_compose(overrides=["+" + presets[0], *rest])
        preset = hydra_compose(overrides=["+" + presets[0]])
    check_against_preset(OmegaConf.to_container(cfg.experiment, resolve=True),
                         OmegaConf.to_container(preset.experiment, resolve=True))
    return cfg


def progress_logging() -> None:
    """Timestamped progress lines on stderr (also in joblib workers, which call this before
    storing; a no-op where logging is already set up)."""
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(message)s",
                        datefmt="%H:%M:%S")


VERBOSE = ("-v", "--verbose")


def main(argv: list[str] | None = None) -> None:
    """CLI with ``run.py``'s rules: bad input (no or several presets, an unknown key, a value
    unlike the preset's, an unwritable ``out``, an unknown part) is one ``error:`` line and
    status 2 before any work; a failed write is one line and status 1; Ctrl-C one
    ``interrupted:`` line and status 130 (finished blocks are kept: a re-run resumes).
    ``--verbose`` prints the composed config first; progress is ``part i/P`` and ``block done``
    lines (:mod:`experiments.theory.progress`) and one closing line; a block that fails (e.g. a
    solver error) is one line naming it and the blocks kept, status 1."""
    from experiments.theory.progress import theory_run

    argv = list(sys.argv[1:] if argv is None else argv)
    verbose = any(a in VERBOSE for a in argv)
    argv = [a for a in argv if a not in VERBOSE]
    progress_logging()
    current = None
    try:
        cfg = compose(argv)
        node = cfg.experiment if "experiment" in cfg else cfg
        if verbose:
            print(OmegaConf.to_yaml(cfg))
        check_output(node.get("out"))   # before the progress reads the records folder
        with theory_run(str(node.get("name", "?")), Path(str(node.get("out", "."))) / "records") \
                as current, quiet_workers():
            run_theory(cfg)
            current.say(current.closing())
    except KeyboardInterrupt:
        print(current.interrupted() if current else "interrupted: before any block started, "
              "nothing written; re-run the same command to resume", file=sys.stderr)
        sys.exit(EXIT_INTERRUPTED)
    except (KeyError, ValueError) as err:
        fail(str(err.args[0]) if isinstance(err, KeyError) and err.args else str(err))
    except OSError as err:
        fail(write_failure_line(err), EXIT_FAULT)
    except Exception as err:
        if type(err).__module__.split(".")[0] not in ("hydra", "omegaconf"):
            if current is None:
                raise
            fail(current.failed(err), EXIT_FAULT)
        fail(hydra_error_line(err).replace("`python run.py --cfg job` lists the valid keys",
                                           "`--verbose` prints the preset's keys"))
