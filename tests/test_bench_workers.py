"""``scripts/bench.py workers``: one sweep timed on one worker, two workers and two pinned
workers, each in a fresh process; a failed sweep is one error line."""
import re

import pytest

from experiments.release.bench import workers as bench


def test_prints_each_arm_and_the_medians(capsys):
    bench.main(["smoke", "algo=pmwpub", "eps=1", "--one-worker"])
    lines = capsys.readouterr().out.splitlines()
    arms = [re.match(r"(pinned|unpinned|one worker)\s+wall\s+[\d.]+ s\s+2 tasks\s+run time "
                     r"pmwpub [\d.]+ s\s+errors (\w+)\s+load", line) for line in lines[:3]]
    assert [a.group(1) for a in arms] == ["pinned", "unpinned", "one worker"]
    assert len({a.group(2) for a in arms}) == 1       # PMW^Pub: the same numbers on any cores
    assert lines[3].startswith("median wall: pinned ") and "one worker" in lines[3]


def test_a_failed_sweep_is_one_error_line(capsys):
    with pytest.raises(SystemExit) as stop:
        bench.main(["smoke", "algo=no_such_algorithm"])
    err = capsys.readouterr().err.strip()
    assert stop.value.code != 0 and err.startswith("error: ") and "\n" not in err


def test_a_bad_argument_is_one_error_line(capsys):
    with pytest.raises(SystemExit) as stop:
        bench.main(["smoke", "--jobs", "0"])
    err = capsys.readouterr().err.strip()
    assert stop.value.code == 2 and err.startswith("error: argument --jobs") and "\n" not in err
