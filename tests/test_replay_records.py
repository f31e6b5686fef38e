"""The same-numbers replay: two records compare equal only if every run draws and selects the
same; a record of another sample is refused."""
import copy

import pytest

from experiments.console import UserError
from experiments.release.bench.replay_fig2 import differences


def record():
    return [{"config_hash": h, "run": r, "queries": [5, 9, 9], "measurements": [0.25, 0.5, 0.0],
             "updates": [1, 3, 0], "rng_state": {"state": {"state": 7, "inc": 3}, "has_uint32": 0},
             "max_error": 0.0625, "mean_error": 0.001} for h in ("a", "b") for r in (0, 1)]


def test_identical_records_have_no_differences():
    assert differences(record(), record()) == ([], 0.0)


@pytest.mark.parametrize("field, change", [
    ("queries", lambda r: r["queries"].__setitem__(1, 8)),
    ("measurements", lambda r: r["measurements"].__setitem__(2, 1e-17)),
    ("updates", lambda r: r["updates"].append(1)),
    ("rng_state", lambda r: r["rng_state"].__setitem__("has_uint32", 1)),
    ("max_error", lambda r: r.__setitem__("max_error", 0.0625 + 2 ** -40)),
])
def test_any_change_of_a_run_is_reported(field, change):
    new = record()
    change(new[2])
    differ, worst = differences(new, record())
    assert differ == [f"b run 0: {field}"]
    assert worst == (2 ** -40 if field == "max_error" else 0.0)


def test_a_record_of_another_sample_is_refused():
    new = copy.deepcopy(record())
    new[0]["run"] = 7
    with pytest.raises(UserError, match="same sample"):
        differences(new, record())


def test_an_unwritable_output_is_refused_before_any_run(tmp_path, monkeypatch):
    from experiments.release.bench import replay_fig2 as replay

    def no_runs():
        raise AssertionError("ran before checking the output path")

    monkeypatch.setattr(replay, "sampled_runs", no_runs)
    blocker = tmp_path / "file"
    blocker.write_text("")
    for out in (tmp_path, blocker / "out.json"):
        with pytest.raises(UserError, match="cannot write"):
            replay.run_replay(str(out))
