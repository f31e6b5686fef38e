"""The generated docs pages cannot drift from their sources: the configuration reference has a
row for every field of the schema (with the installed plugins), every rule belongs to a field,
every field set in conf/ exists and has its meaning beside it; the results pages cover every
committed summary.md."""
from __future__ import annotations

import re
from dataclasses import fields

import pytest

from experiments.docs_pages import RESULTS, artefacts, recorded_time, results_images, results_pages
from experiments.release.configure.registry import register_configs
from experiments.release.configure.schema import SCHEMAS, RunConf, WorkloadConf
from experiments.release.configure.reference import CONF, reference_markdown, yaml_comments
from experiments.release.configure.rules import RULES


@pytest.fixture(scope="module")
def reference() -> str:
    register_configs()
    return reference_markdown()


def _section(text: str, heading: str) -> str:
    start = text.index(heading + "\n")
    following = re.search(r"^#{2,3} ", text[start + len(heading):], re.M)
    return text[start: start + len(heading) + (following.start() if following else len(text))]


def _keys(section: str) -> set[str]:
    return set(re.findall(r"^\| `([\w]+)` \|", section, re.M))


def test_every_field_has_a_row(reference):
    assert _keys(_section(reference, "## Top-level keys")) == \
        {f.name for f in fields(RunConf)} - {"dataset", "public", "algo", "workload"}
    assert _keys(_section(reference, "## workload")) == {f.name for f in fields(WorkloadConf)}
    for group, options in SCHEMAS.items():
        for option, schema in options.items():
            rows = _keys(_section(reference, f"### {group}={option}"))
            skip = "kind" if group == "public" else "name"
            assert rows == {f.name for f in fields(schema)} - {skip}, f"{group}={option}"


def test_every_rule_belongs_to_a_field():
    register_configs()
    top = {f.name for f in fields(RunConf)}
    for path in RULES:
        parts = path.split(".")
        if len(parts) == 1:
            assert parts[0] in top, path
        elif parts[0] == "workload":
            assert parts[1] in {f.name for f in fields(WorkloadConf)}, path
        elif len(parts) == 2:   # shared by the options of a group
            assert any(parts[1] in {f.name for f in fields(s)}
                       for s in SCHEMAS[parts[0]].values()), path
        else:
            assert parts[2] in {f.name for f in fields(SCHEMAS[parts[0]][parts[1]])}, path


def test_every_field_in_conf_is_in_the_schema_and_has_its_meaning():
    """A field set in conf/ without a comment beside it would have no meaning in the reference:
    write `field: value  # what it means` there."""
    files = [(CONF / "config.yaml", RunConf), (CONF / "workload" / "default.yaml", WorkloadConf)]
    files += [(CONF / group / f"{option}.yaml", schema) for group, options in SCHEMAS.items()
              for option, schema in options.items() if (CONF / group / f"{option}.yaml").is_file()]
    for path, schema in files:
        keys = set(re.findall(r"^([A-Za-z_]\w*):", path.read_text(), re.M)) - {"defaults", "hydra"}
        assert keys <= {f.name for f in fields(schema)}, path
        _, notes = yaml_comments(path)
        undocumented = sorted(keys - set(notes))
        assert not undocumented, f"{path}: no `# meaning` comment beside {undocumented}"


def test_results_pages_cover_every_committed_summary():
    pages, images = results_pages(), results_images()
    for _, folder in artefacts():
        assert f"results/{folder.name}.md" in pages
        assert folder.name in pages["results.md"]
        if (folder / "figure.png").is_file():
            assert images[f"results/{folder.name}.png"] == folder / "figure.png"
    assert {f.parent.name for f in RESULTS.glob("*/summary.md")} == \
        {folder.name for _, folder in artefacts()}
    timing = recorded_time((RESULTS / "fig2_adult_bias" / "summary.md").read_text())
    assert timing.wall_s == pytest.approx(444.7) and timing.load == "5.57 5.39 4.49"
