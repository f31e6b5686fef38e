"""The example algorithm plugin (examples/pubpriv-example-algo) made visible to a subprocess
(not a test module): the installed package when ``.ci/run`` installed it, else its entry point
declared from its own pyproject.toml in a temporary site folder (the dist-info that
``pip install`` would write), with its sources on the path."""
from __future__ import annotations

import os
import tomllib
from importlib.metadata import entry_points
from pathlib import Path

from pubpriv_core.algorithms.plugins import GROUP

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "pubpriv-example-algo"


def installed() -> bool:
    return any(point.name == "measure_fit" for point in entry_points(group=GROUP))


def plugin_env(site: Path) -> dict[str, str]:
    """The environment of a subprocess that sees the example plugin and this repository."""
    paths = [str(REPO)]
    if not installed():
        project = tomllib.loads((EXAMPLE / "pyproject.toml").read_text())["project"]
        dist = site / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
        dist.mkdir(parents=True, exist_ok=True)
        (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\n"
                                       f"Version: {project['version']}\n")
        points = project["entry-points"][GROUP]
        (dist / "entry_points.txt").write_text(
            f"[{GROUP}]\n" + "".join(f"{k} = {v}\n" for k, v in points.items()))
        paths = [str(site), str(EXAMPLE / "src"), *paths]
    env = dict(os.environ, CI="1", MPLBACKEND="Agg")
    env["PYTHONPATH"] = os.pathsep.join([*paths, env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env.pop("HYDRA_FULL_ERROR", None)
    return env
