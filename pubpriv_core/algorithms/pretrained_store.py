"""Pre-trained generators on disk: GEM^Pub's public pre-training (Liu, Vietri & Wu 2021, §5),
fitted once per (public data, workload, options) and shared by every process of a sweep.

The pre-training reads only the public data, so storing it costs no privacy. One file per key,
``<directory>/<key>.npz``: the parameter leaves (in the order of ``jax.tree_util``'s
flattening of a template with the same structure) and the fit's information (JSON); what the
caller can recompute from the key (the generator's noise z, drawn from the pre-training seed) is
not stored. A file lock per key lets one process fit while the others wait and then read its result
(joblib workers, Slurm tasks, a resumed sweep); a file is written whole (temporary file, then
rename), and an unreadable one is fitted again and replaced.
"""
from __future__ import annotations

import json
import os
import uuid
import zipfile
from pathlib import Path
from typing import Any, Callable

import jax
import numpy as np
from filelock import FileLock

Fitted = tuple[Any, dict]


class PretrainedStore:
    """Fitted generators under ``directory`` (None: nothing is stored, every call fits)."""

    def __init__(self, directory: Path | None = None):
        self.directory = directory

    def get(self, key: str, template: Any, fit: Callable[[], Fitted]) -> Fitted:
        """(params, info) of ``key``: read if stored, else ``fit()`` and stored. ``template``
        is a parameter tree of the fitted one's structure (its values are not used)."""
        if self.directory is None:
            return fit()
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self.directory / f"{key}.npz"
        with FileLock(str(path) + ".lock"):
            stored = read(path, template) if path.is_file() else None
            if stored is not None:
                return stored
            fitted = fit()
            write(path, fitted)
            return fitted


def write(path: Path, fitted: Fitted) -> None:
    """Store (params, info) in ``path`` whole: a temporary file in its folder, renamed."""
    params, info = fitted
    leaves = {f"leaf{i}": np.asarray(leaf) for i, leaf in
              enumerate(jax.tree_util.tree_leaves(params))}
    temporary = path.parent / f".tmp-{uuid.uuid4().hex}.npz"
    handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # the umask applies
    try:
        with os.fdopen(handle, "wb") as out:
            np.savez(out, info=np.array(json.dumps(info)), **leaves)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def read(path: Path, template: Any) -> Fitted | None:
    """(params, info) stored in ``path`` with ``template``'s structure; None when the file
    is unreadable or does not match the template (it is then fitted again)."""
    structure = jax.tree_util.tree_structure(template)
    shapes = [np.shape(leaf) for leaf in jax.tree_util.tree_leaves(template)]
    try:
        with np.load(path) as stored:
            leaves = [stored[f"leaf{i}"] for i in range(len(shapes))]
            info = json.loads(str(stored["info"]))
    except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile):
        return None
    if [leaf.shape for leaf in leaves] != shapes:
        return None
    params = jax.tree_util.tree_unflatten(structure, [jax.numpy.asarray(x) for x in leaves])
    return params, info
