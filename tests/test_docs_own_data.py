"""docs/own-data.md runs as a reader would run it, in an empty folder: each block in order — a
block titled with a file name is written to that file, ```python blocks run in one namespace,
```bash blocks in a shell with ``python run.py`` as the repository's runner (a command marked
``# exits with status 2`` must fail so, in one line)."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "docs" / "own-data.md"
BLOCK = re.compile(r'^```(\w+)(?: title="([^"]+)")?\n(.*?)^```', flags=re.S | re.M)
REFUSED = "# exits with status 2"


def blocks(text: str) -> list[tuple[str, str, str]]:
    """(language, title, code) of every fenced block, in order."""
    return BLOCK.findall(text)


def run_shell(code: str, folder: Path) -> subprocess.CompletedProcess:
    runner = f"{sys.executable} {REPO / 'run.py'}"
    env = dict(os.environ, CI="1")
    env.pop("HYDRA_FULL_ERROR", None)
    return subprocess.run(["bash", "-c", code.replace("python run.py", runner)], cwd=folder,
                          env=env, capture_output=True, text=True, timeout=600)


def test_own_data_page_runs(tmp_path, monkeypatch, capsys):
    found = blocks(PAGE.read_text())
    assert {language for language, _, _ in found} == {"python", "yaml", "bash"}
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    shell_out, refused = [], 0
    for number, (language, title, code) in enumerate(found, 1):
        if title:
            (tmp_path / title).write_text(code)
        elif language == "python":
            exec(compile(code, f"{PAGE.name} block {number}", "exec"), namespace)
        elif language == "bash":
            done = run_shell(code, tmp_path)
            if REFUSED in code:
                refused += 1
                assert done.returncode == 2, done.stderr[-2000:]
                assert done.stderr.startswith("error: ") and done.stderr.count("\n") == 1
            else:
                assert done.returncode == 0, done.stderr[-2000:]
            shell_out.append(done.stdout)
    out = capsys.readouterr().out
    assert refused == 2
    assert "education  categorical     4  HS, Bachelors, Masters, PhD  (given)" in out
    assert "sex        categorical     2  Female, Male  (public)" in out
    assert "not one of its 4 categories" in out
    assert "('HS', 'Bachelors', 'Masters', 'PhD', 'Other')" in out
    assert "pmwpub needs a public source" in out
    assert "records_labelled.csv" in out and "[17.0, 25.0)" in out
    assert "domain: 5 columns, |X| = 480" in shell_out[0]
    assert (tmp_path / "my_release" / "records_labelled.csv").is_file()
    assert len(list((tmp_path / "runs" / "records").rglob("*.json"))) == 2
