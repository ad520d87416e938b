"""A hostile ``metadata.json`` of an ONNX export: refused with one error naming the file (torch-free)."""

from __future__ import annotations

from pathlib import Path

import pytest
from maze.deploy.onnx_policy import read_metadata
from maze.env.utils.timeout import Timeout
from maze.env.utils.untrusted_files import UntrustedFileError


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("[" * 100_000 + "]" * 100_000, "more than 64 levels deep"),  # before: a raw RecursionError
        ('{"format": ' + '{"a": ' * 80 + "1" + "}" * 81, "more than 64 levels deep"),
        ('{"format": "' + "x" * (5 * 2**20) + '"}', "bytes allowed for a file read from a run directory"),
        ('{"format": "maze.onnx_policy/1", "n": ' + "9" * 5000 + "}", "holds a value that cannot be read"),
    ],
    ids=["deep-list", "deep-mapping", "huge", "digits"],
)
def test_a_metadata_bomb_is_refused_naming_the_file(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "metadata.json"
    path.write_text(text)
    with Timeout(10), pytest.raises(UntrustedFileError, match=problem) as error:
        read_metadata(tmp_path)
    message = str(error.value)
    assert repr(str(path)) in message and "\n" not in message and len(message) < 1000
