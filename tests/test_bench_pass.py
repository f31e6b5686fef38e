"""``scripts/bench.py pass``: each answer path's index, additions and timings, the stream
reading every entry once, and one error line for bad points."""
import numpy as np
import pytest

from experiments.release.bench import pass_floor
from pubpriv_core.queries import engine, plan


def test_the_stream_sums_every_entry_of_the_index_once():
    flat = np.random.default_rng(0).integers(-300, 300, size=5 * pass_floor._STREAM_BLOCK // 2,
                                             dtype=np.int16)
    assert pass_floor._stream(flat) == int(flat.astype(np.int64).sum())


def test_id_table_table_cell_and_code_paths(monkeypatch):
    ids = pass_floor.measure(600, 40, 1)
    assert ids["path"] == "id table" and ids["additions"] == ids["support"] * 40
    assert ids["index_mb"] == pytest.approx(ids["support"] * 40 * 2 / 1e6)   # 16-bit ids
    monkeypatch.setattr(plan, "GROUPING_MIN_PAIRS", 1)       # super-marginals at any size
    cells = pass_floor.measure(600, 40, 1)
    answerer, _ = pass_floor.answerer(600, 40)
    tables = answerer.plan.num_tables
    assert cells["path"] == "table cells" and tables < 40
    assert cells["additions"] == cells["support"] * tables
    monkeypatch.setattr(engine, "TABLE_CELLS_MAX_ENTRIES", 0)  # cells computed from codes
    codes = pass_floor.measure(600, 40, 1)
    assert codes["path"] == "codes" and codes["additions"] == cells["additions"]
    for m in (ids, cells, codes):
        assert min(m["pass_s"], m["pass_one_s"], m["stream_s"]) > 0
        assert m["ns_per_addition"] == pytest.approx(m["pass_one_s"] / m["additions"] * 1e9)


def test_script_prints_a_line_per_point_and_refuses_bad_points(capsys):
    pass_floor.main(["--points", "600x40", "--repeats", "1"])
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("support") and "id table" in out[0] and "pass / stream" in out[0]
    assert out[1].startswith("load average")
    with pytest.raises(SystemExit) as stop:
        pass_floor.main(["--points", "600x"])
    assert stop.value.code == 2
    assert "expected ROWSxW pairs" in capsys.readouterr().err
