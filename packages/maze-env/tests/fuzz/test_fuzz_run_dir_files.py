"""Fuzzing the readers of a run directory's YAML and JSON files (``maze.env.utils.untrusted_files``).

Seeds are the files of a real training run (``corpus/run_dir_files/seed_*``); mutations insert
YAML anchors, aliases, tags, interpolations and deep nesting. The readers' contract: a result,
or one ``ConfigurationError`` (``UntrustedFileError``), or the parser's own error for a file
that is no YAML/JSON, within the deadline.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
import yaml
from fuzzing import CORPUS, assert_handled, mutations
from hypothesis import given
from hypothesis import strategies as st
from maze.env.errors import ConfigurationError
from maze.env.utils.untrusted_files import load_untrusted_config, load_untrusted_json, load_untrusted_yaml

_WORKDIR = Path(tempfile.mkdtemp(prefix="maze-fuzz-run-dir-"))
SEED_FILES = sorted((CORPUS / "run_dir_files").glob("seed_*"))
YAML_SEEDS = [path.read_bytes() for path in SEED_FILES if path.suffix == ".yaml"]
JSON_SEEDS = [path.read_bytes() for path in SEED_FILES if path.suffix == ".json"]
CLEAN_ERRORS = (ConfigurationError, yaml.YAMLError, json.JSONDecodeError, UnicodeDecodeError)

FRAGMENTS = [
    b"&a ", b"*a", b"&b [*a, *a, *a]", b"<<: *a\n", b"!!binary AAAA", b"!!python/object/apply:os.system ['true']",
    b"!!set {a, b}", b"2001-12-14t21:59:43.10-05:00", b"${env}", b"${env.name}${env.name}", b"${oc.env:HOME}",
    b"${now:%H}", b"${..x}", b"${", b"}", b"[" * 80, b"{a: " * 40, b"- " * 60, b"99999999999999999999999999",
    b"\n  x: ${env.x}\n", b"\x00", b"\xff\xfe", b"'\n", b'"\\u0000"', b"? [a]\n: b\n", b"%YAML 1.1\n---\n",
]  # fmt: skip
"""YAML constructs a crafted file may hold."""


@st.composite
def yaml_inputs(draw: st.DrawFn) -> bytes:
    """A seed with up to 4 hostile fragments inserted, then byte mutations."""
    data = bytearray(draw(st.sampled_from(YAML_SEEDS)))
    for _ in range(draw(st.integers(1, 4))):
        position = draw(st.integers(0, len(data)))
        data[position:position] = draw(st.sampled_from(FRAGMENTS))
    return draw(mutations([bytes(data)]))


def _reader(suffix: str, read):
    def load(data: bytes) -> None:
        path = _WORKDIR / f"input{suffix}"
        path.write_bytes(data)
        read(path)

    return load


@given(yaml_inputs())
def test_hydra_configs_are_handled(data: bytes) -> None:
    assert_handled(_reader(".yaml", lambda path: load_untrusted_config(path, ["env", "wrappers"])), data, CLEAN_ERRORS)


@given(yaml_inputs())
def test_plain_yaml_files_are_handled(data: bytes) -> None:
    assert_handled(_reader(".yaml", load_untrusted_yaml), data, CLEAN_ERRORS)


@given(mutations(JSON_SEEDS))
def test_metadata_json_files_are_handled(data: bytes) -> None:
    assert_handled(_reader(".json", load_untrusted_json), data, CLEAN_ERRORS)


@pytest.mark.parametrize("path", SEED_FILES, ids=lambda path: path.name)
def test_the_seeds_are_read(path: Path) -> None:
    if path.suffix == ".json":
        assert load_untrusted_json(path)
    elif path.name == "seed_hydra_config.yaml":
        assert "env" in load_untrusted_config(path, ["env"])
    else:
        assert load_untrusted_yaml(path)
