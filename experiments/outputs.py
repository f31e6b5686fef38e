"""Output paths checked before any work starts: every script that writes a folder or a file
(``run.py``'s ``results_dir`` and Hydra folders, ``collect.py -o``, ``reproduce.py --out``, the
plots, the theory runner's ``experiment.out``, the benchmarks' ``--out``) calls one of these
first, so a path that cannot be written is one ``error:`` line and status 2 before anything is
computed, not a failed write after minutes of work.

A path is writable when its deepest existing ancestor is a folder in which a file can be created
right now (a temp file is created and removed there); the folders below it are created later by
the writer. Any OS error while looking (a name too long, a loop of links) means "not writable".
"""
from __future__ import annotations

import os
import tempfile
import argparse
from pathlib import Path

from experiments.console import UserError

def existing_ancestor(path: str | os.PathLike) -> Path:
    """The deepest ancestor of ``path`` (itself included) that exists as an entry (a dangling
    link or a loop of links counts: nothing can be created below it)."""
    folder = Path(path).expanduser().absolute()
    while not os.path.lexists(folder) and folder != folder.parent:
        folder = folder.parent
    return folder


def _names_too_long(path: Path, ancestor: Path) -> str | None:
    """The first name below ``ancestor`` on the way to ``path`` that the file system would
    refuse as too long (``os.lstat`` reports such a path as missing, not as an error)."""
    limit = os.pathconf(ancestor, "PC_NAME_MAX")
    for part in path.relative_to(ancestor).parts:
        if len(os.fsencode(part)) > limit:
            return f"has a name longer than {limit} bytes ({part[:20]}...)"
    return None


def folder_problem(path: str | os.PathLike) -> str | None:
    """Why ``path`` cannot be (or become) a writable folder, or None."""
    if not str(path).strip():
        return "is empty"
    try:
        target = Path(path).expanduser()
        if os.path.lexists(target) and not target.is_dir():
            return "exists and is not a folder"
        ancestor = existing_ancestor(target)
        if not ancestor.is_dir():
            return f"lies under {ancestor}, which is not a folder"
        tempfile.TemporaryFile(dir=ancestor).close()
        return _names_too_long(target.absolute(), ancestor)
    except OSError as err:
        return f"cannot be written ({err.strerror or err})"


def file_problem(path: str | os.PathLike, suffixes: tuple[str, ...] = ()) -> str | None:
    """Why ``path`` cannot be written as a file (one of ``suffixes`` when given), or None."""
    if not str(path).strip():
        return "is empty"
    target = Path(path).expanduser()
    if suffixes and target.suffix.lower() not in suffixes:
        return f"must end in {', '.join(suffixes)}"
    try:
        if target.is_dir():
            return "is a folder"
        ancestor = existing_ancestor(target.parent)
        if not ancestor.is_dir():
            return f"lies under {ancestor}, which is not a folder"
        tempfile.TemporaryFile(dir=ancestor).close()
        return _names_too_long(target.absolute(), ancestor)
    except OSError as err:
        return f"cannot be written ({err.strerror or err})"


def writable_folder(path: str | os.PathLike, what: str) -> Path:
    """``path`` as a Path, or :class:`UserError` naming ``what`` (e.g. ``--out``) and the fix."""
    problem = folder_problem(path)
    if problem:
        raise UserError(f"{what} {path} {problem}; pass a folder that exists or can be created "
                        "and is writable")
    return Path(path).expanduser()


def writable_file(path: str | os.PathLike, what: str, suffixes: tuple[str, ...] = ()) -> Path:
    """``path`` as a Path, or :class:`UserError` naming ``what`` (e.g. ``-o``) and the fix."""
    problem = file_problem(path, suffixes)
    if problem:
        raise UserError(f"{what} {path} {problem}; pass a file path in a writable folder")
    return Path(path).expanduser()


def readable_folder(path: str | os.PathLike, what: str) -> Path:
    """An existing folder (records to read), or :class:`UserError`."""
    try:
        ok = Path(path).expanduser().is_dir()
    except OSError:
        ok = False
    if not ok:
        raise UserError(f"{what} {path} is not a folder; pass the runner's results_dir")
    return Path(path).expanduser()



def folder_arg(text: str) -> Path:
    """argparse type of an output folder (``--out``): checked writable when parsed."""
    problem = folder_problem(text)
    if problem:
        raise argparse.ArgumentTypeError(f"{text} {problem}; pass a writable folder")
    return Path(text).expanduser()


def file_arg(text: str) -> Path:
    """argparse type of an output file: its folder checked writable when parsed."""
    problem = file_problem(text)
    if problem:
        raise argparse.ArgumentTypeError(f"{text} {problem}; pass a file path in a writable "
                                         "folder")
    return Path(text).expanduser()


def image_arg(text: str) -> Path:
    """argparse type of an image file: a format matplotlib writes, in a writable folder."""
    from matplotlib.figure import Figure

    formats = tuple(f".{f}" for f in Figure().canvas.get_supported_filetypes())
    problem = file_problem(text, formats)
    if problem:
        raise argparse.ArgumentTypeError(f"{text} {problem}; pass e.g. figure.png in a "
                                         "writable folder")
    return Path(text).expanduser()
