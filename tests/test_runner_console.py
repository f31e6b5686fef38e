"""The scripts' argument types and data errors: one line and status 2, no traceback."""
import argparse

import pytest

from experiments.console import positive_float, positive_int, positive_ints, run_or_fail
from pubpriv_core.data.paths import DataUnavailableError


@pytest.mark.parametrize("parse, text", [(positive_int, "0"), (positive_int, "-2"), (positive_int, "1,2"),
                                         (positive_ints, "5,0"), (positive_float, "-1"),
                                         (positive_float, "nan"), (positive_float, "inf")])
def test_bad_values_are_argparse_errors(parse, text):
    with pytest.raises(argparse.ArgumentTypeError):
        parse(text)


def test_good_values_parse():
    assert (positive_int("3"), positive_ints("1,4"), positive_float("0.5")) == (3, [1, 4], 0.5)


@pytest.mark.parametrize("err", [DataUnavailableError("adult/adult.data is missing"), ValueError("bad eps")])
def test_run_or_fail_is_one_line_and_exit_2(err, capsys):
    def boom():
        raise err
    with pytest.raises(SystemExit) as exit_:
        run_or_fail(boom)
    assert exit_.value.code == 2
    assert capsys.readouterr().err.strip().splitlines() == [f"error: {err}"]


def test_run_or_fail_names_a_fault_in_one_line_and_exit_1(capsys):
    def boom():
        raise RuntimeError("the released code failed on inputs.npz:\n['ModuleNotFoundError']")
    with pytest.raises(SystemExit) as exit_:
        run_or_fail(boom)
    assert exit_.value.code == 1
    assert capsys.readouterr().err.strip().splitlines() == [
        "error: the released code failed on inputs.npz: ['ModuleNotFoundError']"]


def test_one_line_interrupts_turns_sigterm_into_ctrl_c(monkeypatch):
    import os
    import signal
    import time

    from experiments.console import QUIET_TRACKER, one_line_interrupts

    monkeypatch.setenv("PYTHONWARNINGS", "error::DeprecationWarning")
    before = signal.getsignal(signal.SIGTERM)
    try:
        one_line_interrupts()
        one_line_interrupts()
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)                     # not reached: the handler runs at once
    finally:
        signal.signal(signal.SIGTERM, before)
    assert os.environ["PYTHONWARNINGS"] == f"error::DeprecationWarning,{QUIET_TRACKER}"
