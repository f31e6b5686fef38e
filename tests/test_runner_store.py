"""The results store: config hash, atomic writes, temp files, listing."""
import json
import os
import time

import pytest

from experiments.release.running import store as store_module
from experiments.release.running.store import ResultsStore
from pubpriv_core.job import config_hash, experiment_config
from runner_helpers import valid_record

CFG = {"dataset": {"name": "synthetic", "n": 100}, "public": {"kind": "resample"},
       "algo": {"name": "pmwpub"}, "workload": {"k": 3, "size": 8, "seed": 0},
       "eps": 1.0, "delta": None, "T": 10, "runs": 5, "seed": 0, "n_jobs": 1,
       "results_dir": "a", "data_root": None, "force": False, "progress": None, "cache_gb": 4.0}


def test_hash_ignores_runtime_keys_but_not_experiment_keys():
    other_place = dict(CFG, runs=9, seed=3, n_jobs=2, results_dir="b", data_root="/x",
                       force=True, progress=False, cache_gb=1.0, hydra={"run": 1})
    assert config_hash(other_place) == config_hash(CFG)
    assert config_hash(dict(CFG, eps=0.5)) != config_hash(CFG)
    assert config_hash(dict(CFG, workload={"k": 3, "size": 8, "seed": 1})) != config_hash(CFG)
    assert "runs" not in experiment_config(CFG) and "eps" in experiment_config(CFG)


def test_hash_does_not_depend_on_key_order():
    reordered = dict(reversed(list(CFG.items())))
    assert config_hash(reordered) == config_hash(CFG)
    assert len(config_hash(CFG)) == 16


def test_write_read_and_listing(tmp_path):
    store = ResultsStore(tmp_path)
    record = valid_record(run=1)
    abc = record["config_hash"]
    path = store.write(record)
    assert path == tmp_path / "records" / abc / "seed0-run1.json"
    assert store.exists(abc, 0, 1) and not store.exists(abc, 0, 2)
    assert store.read(abc, 0, 1) == record
    assert list(store.records()) == [record]
    assert [p.name for p in path.parent.iterdir()] == ["seed0-run1.json"]


def test_failed_write_leaves_nothing(tmp_path, monkeypatch):
    store = ResultsStore(tmp_path)

    def broken_dump(obj, handle, **kwargs):
        handle.write('{"config_hash": "abc", "half": ')
        raise KeyboardInterrupt  # killed in the middle of the write

    monkeypatch.setattr(store_module.json, "dump", broken_dump)
    with pytest.raises(KeyboardInterrupt):
        store.write({"config_hash": "abc", "seed": 0, "run": 0})
    assert not store.exists("abc", 0, 0)
    assert list((tmp_path / "records" / "abc").iterdir()) == []


def test_temp_files_are_ignored_and_only_stale_ones_cleaned(tmp_path):
    store = ResultsStore(tmp_path)
    folder = store.write(valid_record()).parent
    stale, fresh = folder / ".tmp-stale.json", folder / ".tmp-fresh.json"
    stale.write_text('{"config_hash": "h", "se')
    fresh.write_text('{"config_hash": "h", "se')
    old = time.time() - 3600
    os.utime(stale, (old, old))
    assert [p.name for p in store.paths()] == ["seed0-run0.json"]
    assert store.clean_temp() == 1
    assert not stale.exists() and fresh.exists()
    json.loads((folder / "seed0-run0.json").read_text())
