"""Damaged records are moved to records/.corrupt/ with a warning and computed again; collect.py
names and skips them (fails with --strict); record files honour the umask."""
from __future__ import annotations

import json
import logging
import os

import pandas as pd
import pytest

from experiments.release.configure import cli
from experiments.release.running.repetitions import run_config
from experiments.release.running.store import CORRUPT_DIR, ResultsStore
from pubpriv_core.job import config_hash
from runner_helpers import load_script, valid_record

collect_main = load_script("collect").main


def _wrong_hash_record(path):
    record = json.loads(path.read_text())
    record["config"]["eps"] = 123.0
    return json.dumps(record)


def _missing_field(path):
    record = json.loads(path.read_text())
    del record["max_error"]
    return json.dumps(record)


DAMAGE = {
    "empty file": lambda path: "",
    "empty object": lambda path: "{}",
    "truncated": lambda path: path.read_text()[:200],
    "undecodable": lambda path: b"\xff\xfe\x00garbage",
    "a JSON list": lambda path: "[1, 2, 3]",
    "foreign config": _wrong_hash_record,
    "missing field": _missing_field,
    "other version": lambda path: json.dumps({**json.loads(path.read_text()),
                                              "record_version": 99}),
}


def _damage(path, kind):
    content = DAMAGE[kind](path)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)


@pytest.fixture(scope="module")
def tiny_cfg():
    return cli.compose_config(["dataset.preset=tiny", "T=3", "runs=2", "workload.size=4",
                               "progress=false"])


@pytest.mark.parametrize("kind", list(DAMAGE))
def test_damaged_record_is_moved_aside_and_recomputed(kind, tiny_cfg, tmp_path, caplog):
    cfg = dict(tiny_cfg, results_dir=str(tmp_path))
    first = run_config(cfg)
    store = ResultsStore(tmp_path)
    path = store.path(config_hash(cfg), cfg["seed"], 0)
    _damage(path, kind)
    with caplog.at_level(logging.WARNING, logger="experiments.release.running.store"):
        again = run_config(cfg)
    moved = list((store.records_dir / CORRUPT_DIR).iterdir())
    assert len(moved) == 1 and moved[0].name == f"{path.parent.name}-{path.name}"
    warning = " ".join(r.getMessage() for r in caplog.records if r.levelno == logging.WARNING)
    assert str(path) in warning and str(moved[0]) in warning
    assert again[0]["max_error"] == first[0]["max_error"]     # recomputed, same seed
    assert json.loads(path.read_text())["max_error"] == first[0]["max_error"]
    assert sorted(store.paths()) == sorted([path, store.path(config_hash(cfg), cfg["seed"], 1)])


def test_a_record_filed_under_another_name_is_foreign(tmp_path):
    store = ResultsStore(tmp_path)
    path = store.write(valid_record(run=0))
    moved = path.with_name("seed0-run1.json")
    path.rename(moved)
    assert not store.exists(path.parent.name, 0, 1)
    assert not moved.exists()


def _collect(tmp_path, *extra):
    out = tmp_path / "all.csv"
    return collect_main([str(tmp_path / "res"), "-o", str(out), *extra]), out


def test_collect_names_every_damaged_file_and_skips_it(tmp_path, capsys):
    store = ResultsStore(tmp_path / "res")
    paths = [store.write(valid_record(run=r)) for r in range(len(DAMAGE) + 2)]
    for path, kind in zip(paths, DAMAGE):
        _damage(path, kind)
    code, out = _collect(tmp_path)
    err = capsys.readouterr().err.splitlines()
    assert code == 0 and len(pd.read_csv(out)) == 2
    assert len(err) == len(DAMAGE) and all(line.startswith("warning: damaged record ")
                                           for line in err)
    for path in paths[:len(DAMAGE)]:
        assert sum(str(path) in line for line in err) == 1
        assert path.exists()                                  # collect moves nothing
    out.unlink()
    code, out = _collect(tmp_path, "--strict")
    err = capsys.readouterr().err.splitlines()
    assert code == 1 and not out.exists()
    assert len(err) == len(DAMAGE) + 1 and all(line.startswith("error: ") for line in err)


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)])
def test_records_honour_the_umask(umask, mode, tmp_path):
    old = os.umask(umask)
    try:
        path = ResultsStore(tmp_path).write(valid_record())
    finally:
        os.umask(old)
    assert path.stat().st_mode & 0o777 == mode
    assert path.parent.stat().st_mode & 0o777 == 0o777 & ~umask
