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
interrupted run resumes; each finished block is a timestamped ``block done: <key>`` line on
stderr (the progress of a run that takes minutes to an hour).
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

from experiments.console import fail, hydra_error_line

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
    """Dispatch a composed config to its registered experiment."""
    node = cfg.experiment if "experiment" in cfg else cfg
    if "name" not in node:
        raise KeyError("theory config has no 'name'; set experiment.name to a registered experiment")
    fn = _lookup(str(node.name))
    unknown = sorted(set(node.get("parts") or ()) - set(PARTS[str(node.name)]))
    if unknown:
        raise ValueError(f"experiment.parts has unknown {unknown}; choose from {list(PARTS[str(node.name)])}")
    fn(node)


def compose(argv: list[str]) -> DictConfig:
    """Compose ``conf/experiment/<preset>.yaml`` with Hydra and apply the remaining overrides."""
    from hydra import compose as hydra_compose, initialize_config_dir

    presets = [a for a in argv if a.startswith("experiment=")]
    if len(presets) != 1:
        raise SystemExit("usage: python -m experiments.theory experiment=theory_<paper> [key=value ...]")
    rest = [a for a in argv if a not in presets]
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base=None):
        return hydra_compose(overrides=["+" + presets[0], *rest])


def progress_logging() -> None:
    """One timestamped ``block done: <key>`` line on stderr per finished block (also in joblib
    workers, which call this before storing; a no-op where logging is already set up)."""
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(message)s",
                        datefmt="%H:%M:%S")


def main(argv: list[str] | None = None) -> None:
    """CLI: bad input (unknown preset or key, unknown experiment, a bad value) is one line on
    stderr and exit status 2, as in ``run.py``."""
    progress_logging()
    try:
        cfg = compose(sys.argv[1:] if argv is None else argv)
        print(OmegaConf.to_yaml(cfg))
        run_theory(cfg)
    except (KeyError, ValueError) as err:
        fail(str(err.args[0]) if isinstance(err, KeyError) and err.args else str(err))
    except Exception as err:
        if type(err).__module__.split(".")[0] not in ("hydra", "omegaconf"):
            raise
        fail(hydra_error_line(err))

