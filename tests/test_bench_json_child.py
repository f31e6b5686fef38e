"""``experiments.release.bench.json_child``: a benchmark's fresh process, its last output line
read as JSON, a failure one line naming it."""
import sys

import pytest

from experiments.release.bench import json_child


def test_the_last_line_of_output_is_read_as_json():
    code = "print('warming up'); print('{\"wall_s\": 1.5}')"
    assert json_child([sys.executable, "-c", code], "the probe") == {"wall_s": 1.5}


def test_a_failed_child_is_one_line_with_its_last_error():
    code = "import sys; sys.stderr.write('Traceback\\nValueError: no data root\\n'); sys.exit(3)"
    with pytest.raises(RuntimeError) as err:
        json_child([sys.executable, "-c", code], "the probe")
    assert str(err.value) == "the probe failed: ValueError: no data root"
