"""docs/tutorial.md runs: its ```python blocks are executed in order in one namespace, in a
temporary folder (what a reader would type)."""
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TUTORIAL = REPO / "docs" / "tutorial.md"


def code_blocks(text: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)


def test_tutorial_code_blocks_run(tmp_path, monkeypatch, capsys):
    blocks = code_blocks(TUTORIAL.read_text())
    assert len(blocks) >= 8
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    for number, block in enumerate(blocks, 1):
        exec(compile(block, f"{TUTORIAL.name} block {number}", "exec"), namespace)
    out = capsys.readouterr().out
    assert "run.py and api.run agree" in out
    assert (tmp_path / "my_release" / "weights.csv").is_file()
