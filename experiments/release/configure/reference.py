"""The configuration reference, generated from its one source of truth.

Every key ``run.py`` accepts, with its type and default from the structured schema
(:mod:`experiments.release.configure.schema`, with the installed algorithm plugins), the values it accepts
from its rule (:mod:`experiments.release.configure.rules`; Hydra's type system for booleans and
enumerations), its meaning from the comment beside it in ``conf/`` (the file the option is
composed from), and whether it changes a record's numbers
(:data:`pubpriv_core.job.RUNTIME_KEYS`). The docs build writes it as
``configuration.md`` (``scripts/mkdocs_hooks.py``); ``tests/test_docs_reference.py`` checks that
every field and rule appears, so a new field or rule cannot go undocumented.
"""
from __future__ import annotations

import enum
import re
import typing
from dataclasses import MISSING, fields
from pathlib import Path
from typing import Any

from pubpriv_core.options import help_of

CONF = Path(__file__).resolve().parents[3] / "conf"
GROUPS = ("dataset", "public", "algo")


def yaml_comments(path: Path) -> tuple[str, dict[str, str]]:
    """(the file's leading comment, ``key`` -> comment beside ``key: value``) of a conf file;
    nested keys and the ``defaults`` list are skipped."""
    if not path.is_file():
        return "", {}
    header, notes, body = [], {}, False
    for line in path.read_text().splitlines():
        if line.startswith("#") and not body and not line.startswith("# @package"):
            header.append(line.lstrip("#").strip())
            continue
        match = re.match(r"^([A-Za-z_][\w]*):(.*)$", line)
        if match and match.group(1) == "defaults":
            continue
        if match:
            body = True
            value, _, comment = match.group(2).partition(" #")
            if comment.strip():
                notes[match.group(1)] = comment.strip()
        elif line.strip() and not line.startswith((" ", "-", "#")):
            body = True
    return " ".join(header), notes


def yaml_values(path: Path) -> dict[str, Any]:
    """Top-level scalar values set in a conf file (they replace the schema's defaults)."""
    from omegaconf import OmegaConf

    if not path.is_file():
        return {}
    node = OmegaConf.to_container(OmegaConf.load(path), resolve=False)
    return {k: v for k, v in node.items() if k not in ("defaults", "hydra")
            and not isinstance(v, (dict, list))}


def type_text(hint) -> str:
    """``int``, ``float or null``, ``one of a, b`` (enumerations), ``true/false``."""
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    optional = typing.get_origin(hint) is typing.Union and len(args) == 1
    base = args[0] if optional else hint
    if isinstance(base, type) and issubclass(base, enum.Enum):
        text = "one of " + ", ".join(f"`{m.value}`" for m in base)
    elif base is bool:
        text = "`true` / `false`"
    else:
        text = getattr(base, "__name__", str(base))
    return f"{text} or `null`" if optional else text


def default_text(value) -> str:
    if isinstance(value, enum.Enum):
        value = value.value
    if value is None:
        return "`null`"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    return f"`{value}`"


def accepts_text(path: str, hint) -> str:
    """The rule's requirement, or what the type allows (booleans, enumerations)."""
    from experiments.release.configure.rules import rule_for

    rule = rule_for(path)
    if rule is not None:
        return rule.requirement
    return "checked by the schema's type"


def _rows(schema, rule_prefix: str, comments: dict[str, str], values: dict[str, Any],
          runtime: tuple[str, ...] = (), skip: tuple[str, ...] = ()) -> list[str]:
    hints = typing.get_type_hints(schema)
    rows = []
    for item in fields(schema):
        if item.name in skip:
            continue
        default = item.default if item.default is not MISSING else (
            item.default_factory() if item.default_factory is not MISSING else None)
        default = values.get(item.name, default)
        meaning = comments.get(item.name) or help_of(item)
        if item.name in runtime:
            meaning = (meaning + " " if meaning else "") + "*(runtime: not in the config hash)*"
        rows.append(f"| `{item.name}` | {type_text(hints[item.name])} | {default_text(default)} "
                    f"| {accepts_text(rule_prefix + item.name, hints[item.name])} | "
                    f"{_cell(meaning)} |")
    return rows


def _cell(text: str) -> str:
    """Text safe in a Markdown table cell (no column breaks, no HTML tags)."""
    text = text.replace("``", "`")
    return text.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")


def _table(rows: list[str]) -> list[str]:
    return ["| key | type | default | accepts | meaning |", "|---|---|---|---|---|", *rows]


def reference_markdown() -> str:
    """The whole configuration reference as Markdown."""
    from experiments.release.configure.registry import register_configs
    from experiments.release.configure.schema import SCHEMAS, RunConf, WorkloadConf
    from pubpriv_core.job import RUNTIME_KEYS
    from pubpriv_core.algorithms.plugins import PLUGINS

    register_configs()
    header, comments = yaml_comments(CONF / "config.yaml")
    out = ["# Configuration reference", "",
           "Generated from the config schema (`experiments/release/configure/schema.py`), its rules "
           "(`experiments/release/configure/rules.py`) and the comments in `conf/`; every key below is "
           "checked before any job runs, and a bad value stops the command with one "
           "`error: <key> must be ...` line. `python run.py --cfg job [overrides]` prints a "
           "resolved configuration. Keys marked *runtime* say where or how to run; they are "
           "left out of the config hash that names a configuration's records.", "",
           "## Top-level keys", "", "Set with `key=value`, e.g. `python run.py eps=0.5 T=100`.",
           "", *_table(_rows(RunConf, "", comments, yaml_values(CONF / "config.yaml"),
                             runtime=RUNTIME_KEYS, skip=GROUPS + ("workload",))), ""]
    w_header, w_comments = yaml_comments(CONF / "workload" / "default.yaml")
    out += ["## workload", "", _cell(w_header), "", *_table(_rows(
        WorkloadConf, "workload.", w_comments, yaml_values(CONF / "workload" / "default.yaml"))),
        ""]
    for group in GROUPS:
        out += [f"## {group}", "", f"Pick an option with `{group}=<option>`; set its fields with "
                f"`{group}.<field>=<value>`.", ""]
        for option, schema in SCHEMAS[group].items():
            path = CONF / group / f"{option}.yaml"
            note, notes = yaml_comments(path)
            if option in PLUGINS:
                plugin = PLUGINS[option]
                note = (f"Plugin from `{plugin.run.__module__}` "
                        f"({(schema.__doc__ or '').strip().splitlines()[0]})")
            note = note or " ".join((schema.__doc__ or "").split())
            rows = _rows(schema, f"{group}.{option}.", notes, yaml_values(path),
                         skip=("kind",) if group == "public" else ("name",))
            out += [f"### {group}={option}", "", _cell(note), ""]
            out += [*_table(rows), ""] if rows else ["No options.", ""]
    out += ["## experiment presets", "", "`experiment=<preset>` sets several keys at once; a "
            "preset's sweep (`hydra.sweeper.params`) runs with `-m`. The `theory_*` presets go "
            "to the theory runner.", "", "| preset | what |", "|---|---|"]
    for path in sorted((CONF / "experiment").glob("*.yaml")):
        out.append(f"| `{path.stem}` | {_cell(yaml_comments(path)[0])} |")
    out += ["", "## hydra/launcher", "",
            "`basic` (default: the jobs one after another in this process), `joblib` "
            "(`hydra.launcher.n_jobs=N` processes), `submitit_slurm` and this project's `slurm` "
            "preset:", ""]
    for path in sorted((CONF / "hydra" / "launcher").glob("*.yaml")):
        out.append(f"- `{path.stem}`: {_cell(yaml_comments(path)[0])}")
    return "\n".join(out) + "\n"
