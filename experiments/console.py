"""Exit statuses and one-line error messages shared by both command lines (``run.py`` for query
release, the theory runner): bad input is one ``error:`` line and status 2, a failed write one
line and status 1, Ctrl-C status 130."""
from __future__ import annotations

import argparse
import errno
import os
import signal
import sys
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Callable, Sequence

from hydra.errors import MissingConfigException

from pubpriv_core.data.paths import DataUnavailableError

EXIT_BAD_INPUT = 2
EXIT_FAULT = 1           # the machine failed (disk full, read-only, permissions)
EXIT_INTERRUPTED = 130   # Ctrl-C, as a shell reports SIGINT
#: OS errors that are the machine's fault (status 1), not the path's (status 2).
FAULT_ERRNOS = frozenset({errno.ENOSPC, errno.EIO, errno.EDQUOT, errno.ENOMEM})


class UserError(ValueError):
    """Bad input found on the command line; the message is one line."""


def hydra_error_line(err: BaseException) -> str:
    """One line from a Hydra/OmegaConf error: its first line, its cause's first line, a fix."""
    if isinstance(err, MissingConfigException) and err.options:
        options = ", ".join(err.options)
        return f"{_first_line(err)}; choose one of: {options}"
    text = _first_line(err)
    cause = err.__cause__ or err.__context__
    if cause is not None and _first_line(cause) not in text:
        text = f"{text}: {_first_line(cause)}"
    if "not in" in text or "Could not override" in text:
        text += "; `python run.py --cfg job` lists the valid keys"
    return text


def _first_line(err: BaseException) -> str:
    lines = [line.strip() for line in str(err).strip().splitlines() if line.strip()]
    return lines[0].rstrip(".") if lines else type(err).__name__


def fail(message: str, status: int = EXIT_BAD_INPUT) -> None:
    """Print ``error: message`` (one line) on stderr and exit with ``status`` (bad input: 2)."""
    print(f"error: {' '.join(message.split())}", file=sys.stderr)
    sys.exit(status)


def os_error_status(err: OSError) -> int:
    """Status of an OS error met while checking input: 1 (fault) for a full disk, an I/O error
    or no memory; 2 (bad input) for the rest (a name too long, a file where a folder is expected,
    a missing path, no permission)."""
    return EXIT_FAULT if err.errno in FAULT_ERRNOS else EXIT_BAD_INPUT


def os_error_line(err: OSError) -> str:
    """One line for an OS error met while checking input."""
    where = f" {err.filename}" if err.filename else ""
    return f"cannot use{where}: {err.strerror or err}; pass another path"


def write_failure(err: OSError, results_dirs: Sequence[str]) -> str:
    """One line for a failed write (full disk, read-only mount, permissions)."""
    where = err.filename or ", ".join(results_dirs) or "the results folder"
    return (f"cannot write {where}: {err.strerror or err}; the records written so far are "
            "complete — free space, fix permissions or pass another results_dir, then re-run "
            "the same command to resume")


def ignore_interrupts() -> None:
    """joblib worker initializer: Ctrl-C reaches the whole process group, and the parent alone
    answers it (one line, status 130; joblib then stops the workers), so a worker ignores it
    instead of printing its own traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


#: the warnings filter (``PYTHONWARNINGS``) that quiets the resource tracker's leak warning
QUIET_TRACKER = "ignore:resource_tracker:UserWarning"


def one_line_interrupts() -> None:
    """Ctrl-C and SIGTERM end a command in its one ``interrupted`` line (status 130): SIGTERM
    (``kill``, a scheduler's time limit, ``scancel``) raises ``KeyboardInterrupt`` in the parent
    as Ctrl-C does, so joblib stops its workers instead of the parent dying alone while they run
    on; and multiprocessing's resource tracker, which outlives the parent by a moment, is told
    not to warn about the semaphores of workers stopped that way (it still frees them). Workers
    are fresh interpreters and keep SIGTERM's default."""
    signal.signal(signal.SIGTERM, _interrupt)
    filters = [f for f in os.environ.get("PYTHONWARNINGS", "").split(",") if f]
    if QUIET_TRACKER not in filters:
        os.environ["PYTHONWARNINGS"] = ",".join([*filters, QUIET_TRACKER])


def _interrupt(signum, frame):
    raise KeyboardInterrupt


@contextmanager
def quiet_workers():
    """joblib's process workers started inside the block ignore Ctrl-C (:func:`ignore_interrupts`)."""
    from joblib import parallel_config

    with parallel_config(backend="loky", initializer=ignore_interrupts):
        yield


#: the name a command's parser shows in its usage and errors while :func:`program` sets it
_PROGRAM: ContextVar[str | None] = ContextVar("program", default=None)


@contextmanager
def program(name: str):
    """Parsers made inside the block call themselves ``name`` (e.g. ``scripts/bench.py pgm``,
    when one command runs another's ``main``), unless given a ``prog`` of their own."""
    token = _PROGRAM.set(name)
    try:
        yield
    finally:
        _PROGRAM.reset(token)


class ArgumentParser(argparse.ArgumentParser):
    """argparse with the scripts' error rule: a bad argument is one ``error:`` line naming the
    fix (``--help``) and status 2, without argparse's usage block; its name is the one
    :func:`program` sets, if any."""

    def __init__(self, *args, **kwargs):
        if not args and "prog" not in kwargs and _PROGRAM.get() is not None:
            kwargs["prog"] = _PROGRAM.get()
        super().__init__(*args, **kwargs)

    def error(self, message: str):
        fail(f"{message}; `{self.prog} --help` lists the arguments")


def run_or_fail(fn: Callable, *args):
    """Call a script's library function and return its result; a missing data file or a bad
    value is one ``error:`` line and status 2, a failed write one line and status 1, Ctrl-C one
    line and status 130, a fault the function names (a ``RuntimeError``: a solver or an external
    program that failed) one line and status 1 — never a traceback."""
    try:
        return fn(*args)
    except (DataUnavailableError, ValueError) as err:
        fail(str(err))
    except OSError as err:
        fail(write_failure_line(err), EXIT_FAULT)
    except RuntimeError as err:
        fail(" ".join(str(err).split()), EXIT_FAULT)
    except KeyboardInterrupt:
        fail("interrupted; what was written before is complete, re-run to finish",
             EXIT_INTERRUPTED)


def write_failure_line(err: OSError) -> str:
    """One line for a script's failed read or write (no records involved)."""
    where = f" {err.filename}" if err.filename else ""
    return f"cannot write{where}: {err.strerror or err}; free space, fix permissions or pass " \
           "another output path"


def _int_list(text: str, minimum: int, example: str) -> list[int]:
    """Comma-separated integers ≥ ``minimum`` (argparse turns the error into one usage line)."""
    try:
        values = [int(v) for v in text.split(",")]
    except ValueError:
        values = []
    if not values or min(values) < minimum:
        raise argparse.ArgumentTypeError(f"expected {example}, got {text!r}")
    return values


def positive_ints(text: str) -> list[int]:
    """Comma-separated positive integers."""
    return _int_list(text, 1, "positive integers such as 1000,4000")


def seed_list(text: str) -> list[int]:
    """Comma-separated non-negative integers (seeds such as 0,2,4)."""
    return _int_list(text, 0, "seeds such as 0,2,4")


def positive_int(text: str) -> int:
    """One positive integer."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected one positive integer, got {text!r}")
    return value


def worker_count(text: str) -> int:
    """-1 (all cores, joblib's convention) or a positive integer."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1 and value != -1:
        raise argparse.ArgumentTypeError(f"expected -1 (all cores) or a positive integer, got "
                                         f"{text!r}")
    return value


def positive_float(text: str) -> float:
    """One finite positive number."""
    value = _number(text)
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return value


def non_negative_float(text: str) -> float:
    """One finite number ≥ 0 (a tolerance)."""
    value = _number(text)
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {text!r}")
    return value


def _number(text: str) -> float:
    """``text`` as a float; NaN (refused by every range check) when it is not a number."""
    try:
        return float(text)
    except ValueError:
        return float("nan")
