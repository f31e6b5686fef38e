"""Structured configs (dataclasses) of the query-release runner, derived from the library's
declarations and registered with Hydra.

Every option is declared once, in the library: the datasets, public sources, workload and budget
in :mod:`pubpriv_core.specs`, every algorithm's options in
:mod:`pubpriv_core.algorithms.settings` (a plugin's in its own dataclass). :func:`derived` turns
such a class into a Hydra schema — a field with a vocabulary becomes an :class:`enum.Enum`, so
Hydra refuses an unknown choice itself — and the runner adds only where and how to run
(:class:`RunConf`'s runtime fields). Each config group option of ``conf/`` extends one schema
(``defaults: [/schema/<group>/<option>@_here_]``) and sets no value of its own, so Hydra rejects
an unknown key or a wrong type with its own message before anything runs. Value checks:
:mod:`experiments.release.configure.rules`; checks that need the data:
:mod:`experiments.release.configure.checks`.
"""
from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Optional

from hydra.core.config_store import ConfigStore
from omegaconf import MISSING

from pubpriv_core.options import choices_of, default_of, option
from pubpriv_core.specs import DATASETS, PUBLIC_SOURCES, BudgetSpec, WorkloadSpec


@dataclass
class DatasetConf:
    """A private dataset, loaded by ``pubpriv_core.data.load_dataset(name, **options)``."""

    name: str = MISSING


@dataclass
class PublicConf:
    """How the public dataset D̂ is built; ``fraction`` keeps that share of its rows (Fig. 3)."""

    kind: str = MISSING
    fraction: float = 1.0


@dataclass
class AlgoConf:
    """An algorithm of :data:`pubpriv_core.algorithms.ALGORITHMS`; other fields are its options."""

    name: str = MISSING


def derived(spec: type | None, base: type | None, name: str, head: tuple = ()) -> type:
    """The Hydra schema ``<name>Conf`` of declaration ``spec`` (its fields with their types,
    defaults and metadata; a vocabulary as an enumeration), after the fields ``head`` (e.g. an
    algorithm's ``name``), extending ``base``."""
    items = list(head)
    hints = typing.get_type_hints(spec) if spec is not None else {}
    for item in dataclasses.fields(spec) if spec is not None else ():
        kind, default = hints[item.name], default_of(item)
        choices = choices_of(item)
        if choices is not None:
            vocabulary = _vocabulary(item.name, choices)
            kind = Optional[vocabulary] if default is None else vocabulary
            default = None if default is None else vocabulary(default)
        spec_field = field(default_factory=item.default_factory, metadata=item.metadata) \
            if item.default_factory is not dataclasses.MISSING \
            else field(default=default, metadata=item.metadata)
        items.append((item.name, kind, spec_field))
    schema = dataclasses.make_dataclass(f"{name}Conf", items, bases=(base,) if base else ())
    schema.__doc__ = (spec.__doc__ if spec is not None else "") or name
    return schema


_VOCABULARIES: dict[tuple[str, tuple], type] = {}


def _vocabulary(field_name: str, choices: tuple) -> type:
    """One enumeration per (field, choices), its members named as their values."""
    key = (field_name, tuple(choices))
    if key not in _VOCABULARIES:
        title = "".join(part.title() for part in field_name.split("_"))
        _VOCABULARIES[key] = Enum(title, {str(c): c for c in choices})
    return _VOCABULARIES[key]


def algo_schema(name: str, options: type | None) -> type:
    """The Hydra schema of algorithm ``name``: ``name`` and every field of its options dataclass
    (declared once there, with its default, rule and meaning)."""
    title = options.__name__.removesuffix("Options") if options is not None else \
        "".join(part.title() for part in name.split("_"))
    schema = derived(options, AlgoConf, title, (("name", str, field(default=name)),))
    schema.__doc__ = (options.__doc__ if options is not None else "") or f"Algorithm {name}."
    return schema


def _title(spec: type) -> str:
    return spec.__name__.removesuffix("Spec")


def _schemas() -> dict[str, dict[str, type]]:
    from pubpriv_core.algorithms import ALGORITHMS, options_of

    return {"dataset": {k: derived(v, DatasetConf, _title(v)) for k, v in DATASETS.items()},
            "public": {k: derived(v, PublicConf, _title(v)) for k, v in PUBLIC_SOURCES.items()},
            "algo": {name: algo_schema(name, options_of(name)) for name in list(ALGORITHMS)}}


#: group -> option -> schema (plugins are added by :mod:`experiments.release.configure.plugins`)
SCHEMAS: dict[str, dict[str, Any]] = _schemas()
WorkloadConf = derived(WorkloadSpec, None, "Workload")


@dataclass
class RuntimeConf:
    """Where and how a job runs (none of it changes a record's numbers): ``n_jobs`` joblib
    workers over repetitions; ``progress`` null means a bar only on a terminal outside CI;
    ``cache_gb`` bounds the in-process problem cache; ``save_release`` writes what each computed
    repetition released, with ``release_rows`` synthetic records
    (:mod:`pubpriv_core.release_files`)."""

    n_jobs: int = option(1, help="joblib workers running the repetitions of one configuration")
    results_dir: str = option("runs", help="records go to <results_dir>/records/")
    data_root: Optional[str] = option(None, help="null → $PUBPRIV_DATA, else the per-user cache "
                                      "(pooch.os_cache(\"pubpriv\"))")
    force: bool = option(False, help="recompute records that already exist")
    progress: Optional[bool] = option(None, help="null → progress bar only on a terminal and "
                                      "outside CI")
    cache_gb: float = option(4.0, help="memory budget of the in-process cache of built problems "
                             "(per process)")
    save_release: bool = option(False, help="write what each computed repetition released under "
                                "<results_dir>/releases/")
    release_rows: Optional[int] = option(None, help="synthetic records drawn from a saved release "
                                         "(null → n for AIM/MST/JAM-PGM, none for weights)")


RunConf = derived(BudgetSpec, RuntimeConf, "Run", (
    ("dataset", DatasetConf, field(default=MISSING)),
    ("public", PublicConf, field(default=MISSING)),
    ("algo", AlgoConf, field(default=MISSING)),
    ("workload", WorkloadConf, field(default_factory=WorkloadConf))))
RunConf.__doc__ = ("Top level: the groups, the budget (" + " ".join(BudgetSpec.__doc__.split())
                   + ") and the runtime fields (" + " ".join(RuntimeConf.__doc__.split()) + ")")


def register_schemas() -> None:
    """Store the schemas as ``schema/run`` and ``schema/<group>/<option>``; the YAML files
    extend them (``defaults: [/schema/<group>/<option>@_here_, _self_]``)."""
    store = ConfigStore.instance()
    store.store(group="schema", name="run", node=RunConf)
    for group, options in SCHEMAS.items():
        for name, node in options.items():
            store.store(group=f"schema/{group}", name=name, node=node)
