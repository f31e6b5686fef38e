"""Shared helpers of the runner tests (not a test module)."""
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def data_dir() -> Path | None:
    """$PUBPRIV_DATA, else ../shared/data next to the repository; None when absent."""
    env = os.environ.get("PUBPRIV_DATA")
    path = Path(env) if env else REPO.parent / "shared" / "data"
    return path if path.is_dir() else None


def require_data() -> Path:
    path = data_dir()
    if path is None or not (path / "adult" / "adult.data").is_file():
        pytest.skip("shared data (ADULT) not present; set PUBPRIV_DATA")
    return path


def run_cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """``python run.py *args`` in the repository, as under CI (no progress bar), without
    Hydra's full-traceback switch."""
    env = dict(os.environ, CI="1")
    env.pop("HYDRA_FULL_ERROR", None)
    return subprocess.run([sys.executable, "run.py", *args], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=timeout)


def load_script(name: str):
    """Import ``scripts/<name>.py`` as a module (``scripts/`` is not an installed package)."""
    spec = importlib.util.spec_from_file_location(f"pubpriv_script_{name}",
                                                  REPO / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def valid_record(run: int = 0, seed: int = 0, **fields) -> dict:
    """A record the results store accepts: required fields, config_hash = hash of ``config``."""
    from experiments.release.running.store import RECORD_VERSION
    from pubpriv_core.job import config_hash

    config = fields.pop("config", {"algo": {"name": fields.get("algo", "pmwpub")},
                                   "eps": fields.get("eps", 1.0)})
    record = {"record_version": RECORD_VERSION, "seed": seed, "run": run, "config": config,
              "algo": "pmwpub", "eps": 1.0, "rho": 0.1, "max_error": 0.25, "mean_error": 0.1,
              "runtime_s": 0.5, **fields}
    record["config_hash"] = config_hash(config)
    return record
