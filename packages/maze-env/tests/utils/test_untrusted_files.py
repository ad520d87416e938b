"""Hostile run-directory files: refused quickly with one error naming the file, never a hang or a blow-up.

Each hostile file is read in a subprocess with a wall-clock bound and a 1 GiB address-space
limit, so a regression fails the test instead of hanging the suite or exhausting the machine.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml
from maze.env.errors import ConfigurationError
from maze.env.utils.spaces_config import SpacesConfig
from maze.env.utils.untrusted_files import (
    MAX_BYTES_VARIABLE,
    FileLimits,
    UntrustedFileError,
    load_untrusted_config,
    load_untrusted_json,
    load_untrusted_yaml,
)
from omegaconf import OmegaConf

SECONDS = 20


def billion_laughs(levels: int) -> str:
    """``levels`` anchors, each a list of 9 aliases of the one before (9**levels strings from about 300*levels bytes)."""
    lines = ["l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" for i in range(1, levels)]
    return "\n".join([*lines, f"env: {{_target_: x.Y, lol: *l{levels - 1}}}", ""])


def doubling_chain(levels: int, seed: str = "x" * 30) -> str:
    """``b0: ${a}${a}``, ``b1: ${b0}${b0}`` ...: a value 2**levels times the seed's length."""
    lines = [f"a: {seed}"]
    lines += [
        f"b{i}: '${{{'a' if i == 0 else f'b{i - 1}'}}}${{{'a' if i == 0 else f'b{i - 1}'}}}'" for i in range(levels)
    ]
    return "\n".join([*lines, f"env: {{_target_: x.Y, name: '${{b{levels - 1}}}'}}", ""])


def read_bounded(reader: str, path: Path, *arguments: str) -> dict[str, Any]:
    """Calls ``maze.env.utils.untrusted_files.<reader>(path, *arguments)`` in a bounded subprocess.

    Returns:
        ``{"type": <exception class name>, "message": ...}`` or ``{"type": None}`` when it returned.
    """
    code = textwrap.dedent(
        f"""
        import json, resource, sys
        resource.setrlimit(resource.RLIMIT_AS, (2**30, 2**30))
        from maze.env.utils import untrusted_files
        try:
            untrusted_files.{reader}(sys.argv[1], {", ".join(arguments)})
            print(json.dumps({{"type": None}}))
        except Exception as error:
            print(json.dumps({{"type": type(error).__name__, "message": str(error),
                              "configuration_error": isinstance(error, untrusted_files.ConfigurationError)}}))
        """
    )
    try:
        done = subprocess.run(
            [sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=SECONDS, check=False
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{reader}({path.name}) still ran after {SECONDS} s")
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def assert_refused(result: dict[str, Any], path: Path, *words: str) -> None:
    assert result["type"] == "UntrustedFileError", result
    assert result["configuration_error"] and "\n" not in result["message"]
    assert repr(str(path)) in result["message"] and "nothing of it was used" in result["message"]
    for word in words:
        assert word in result["message"], result["message"]


@pytest.mark.parametrize("levels", [5, 9])
def test_billion_laughs_is_refused_at_its_first_anchor(tmp_path: Path, levels: int) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(billion_laughs(levels))
    assert path.stat().st_size < 3000
    assert_refused(read_bounded("load_untrusted_config", path, "['env']"), path, "anchor &l0", "line 1")
    assert_refused(read_bounded("load_untrusted_yaml", path), path, "anchor &l0")


def test_an_alias_without_anchor_is_refused_too(tmp_path: Path) -> None:
    path = tmp_path / "model_config.yaml"
    path.write_text("a: *nothing\n")
    with pytest.raises(UntrustedFileError, match=r"alias \*nothing"):
        load_untrusted_yaml(path)


@pytest.mark.parametrize(("levels", "words"), [(25, ["beyond 4194304", "budget"]), (100, ["chains more than 32"])])
def test_doubling_interpolation_chain_is_refused_within_the_budget(tmp_path: Path, levels: int, words: list) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(doubling_chain(levels))
    assert path.stat().st_size < 3500
    assert_refused(read_bounded("load_untrusted_config", path, "['env']"), path, *words)
    small = tmp_path / "small.yaml"
    small.write_text(doubling_chain(4))
    assert load_untrusted_config(small, ["env"])["env"]["name"] == "x" * 30 * 16


def test_a_chain_of_empty_doublings_does_no_exponential_work(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(doubling_chain(30, seed="''"))
    assert load_untrusted_config(path, ["env"])["env"]["name"] == ""  # resolved once each: 30 steps, not 2**30
    path.write_text(doubling_chain(100, seed="''"))
    assert_refused(read_bounded("load_untrusted_config", path, "['env']"), path, "chains more than 32")


@pytest.mark.parametrize(
    "text", ["[" * 100_000 + "]" * 100_000, "a:\n" + "".join(f"{' ' * i}b:\n" for i in range(1, 200))]
)
def test_deep_nesting_is_refused_before_anything_recursive_walks_it(tmp_path: Path, text: str) -> None:
    path = tmp_path / "spaces_config.yaml"
    path.write_text(text)
    result = read_bounded("load_untrusted_yaml", path)
    if result["type"] == "ScannerError":  # libyaml's own limit (1000 levels) speaks first: a YAML error
        assert "maximum nesting depth" in result["message"]
    else:
        assert_refused(result, path, "more than 64 levels")


def test_an_oversized_file_is_refused_before_it_is_parsed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "training_state.yaml"
    path.write_text("epochs: 1\nnote: " + "x" * (4 * 2**20))
    assert_refused(read_bounded("load_untrusted_yaml", path), path, "more than the 4194304 bytes", MAX_BYTES_VARIABLE)
    monkeypatch.setenv(MAX_BYTES_VARIABLE, str(8 * 2**20))
    assert load_untrusted_yaml(path)["epochs"] == 1
    with pytest.raises(UntrustedFileError, match="more than the 100 bytes"):
        load_untrusted_yaml(path, FileLimits(max_bytes=100))
    monkeypatch.setenv(MAX_BYTES_VARIABLE, "lots")
    with pytest.raises(ConfigurationError, match=f"{MAX_BYTES_VARIABLE}='lots' is not a positive number"):
        FileLimits()


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[" * 200_000 + "]" * 200_000, ["more than 64 levels"]),
        ('{"a": ' * 100 + "1" + "}" * 100, ["more than 64 levels", "a.a.a"]),
        ('{"format": "' + "x" * (5 * 2**20) + '"}', ["bytes allowed"]),
        ('{"n": ' + "9" * 5000 + "}", ["cannot be read", "4300 digits"]),
    ],
    ids=["deep", "deep-mapping", "huge", "digits"],
)
def test_metadata_json_bombs_are_refused(tmp_path: Path, text: str, words: list[str]) -> None:
    path = tmp_path / "metadata.json"
    path.write_text(text)
    assert_refused(read_bounded("load_untrusted_json", path), path, *words)


def test_syntax_errors_stay_the_parsers_own(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("env: [unclosed\n")
    (tmp_path / "a.json").write_text("{nope")
    with pytest.raises(yaml.YAMLError):
        load_untrusted_yaml(tmp_path / "a.yaml")
    with pytest.raises(json.JSONDecodeError):
        load_untrusted_json(tmp_path / "a.json")


def test_only_plain_data_is_read(tmp_path: Path) -> None:
    path = tmp_path / "model_config.yaml"
    path.write_text("a: !!binary aGVsbG8=\n")
    with pytest.raises(UntrustedFileError, match="type bytes at a"):
        load_untrusted_yaml(path)
    path.write_text("a: !!python/object/apply:os.system [echo]\n")
    with pytest.raises(yaml.YAMLError, match="could not determine a constructor"):
        load_untrusted_yaml(path)


def test_resolvers_are_refused_and_do_not_read_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("env: {token: '${oc.env:SECRET_TOKEN}'}\nlaunch_dir: '${hydra:runtime.cwd}'\n")
    monkeypatch.setenv("SECRET_TOKEN", "s3cret")
    with pytest.raises(UntrustedFileError, match=r"resolver \$\{oc.env:...\} in env.token") as error:
        load_untrusted_config(path, ["env"])
    assert "s3cret" not in str(error.value)
    path.write_text("env: {name: x}\nlaunch_dir: '${hydra:runtime.cwd}'\n")
    assert load_untrusted_config(path, ["env", "wrappers"]) == {"env": {"name": "x"}}  # launch_dir is not resolved


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("env: {a: '${env.b}', b: '${env.a}'}", "refers to itself"),
        ("env: {a: '${nope.x}'}", r"names a key that does not exist \(nope\)"),
        ("b: {x: 1}\na: '${b}'\nenv: {a: '${a.x}'}", "through a, itself an interpolation"),
        ("env: {a: '${x'}", "no valid interpolation"),
        ("env: {a: '" + "${a." * 300 + "x" + "}" * 300 + "'}", "nests interpolations too deeply"),
    ],
)
def test_broken_interpolations_are_configuration_errors_naming_the_file(tmp_path: Path, text: str, error: str) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(text)
    with pytest.raises(ConfigurationError, match=error) as raised:
        load_untrusted_config(path, ["env"])
    assert repr(str(path)) in str(raised.value)


def test_a_benign_hydra_config_resolves_as_omegaconf_resolves_it(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(
        textwrap.dedent(
            r"""
            seed: 3
            runner: {concurrency: 4, n: '${.concurrency}'}
            model: ${model_config}
            env:
              _target_: maze.env.GymMazeEnv
              env: CartPole-v1
              lr: 1e-3
              seed: ${seed}
              text: s-${seed}-${runner.concurrency}
              nested: {a: '${..env}', b: '${runner}', c: '\${escaped}', d: '${env.nested.a}'}
              listed: [1, '${.0}', '${env.listed[0]}']
              missing: ???
            wrappers: {TimeLimitWrapper: {max_episode_steps: '${runner.n}'}}
            """
        )
    )
    resolved = load_untrusted_config(path, ["env", "wrappers", "absent"])
    expected = OmegaConf.load(path)
    assert resolved == {key: OmegaConf.to_container(expected[key], resolve=True) for key in ("env", "wrappers")}
    assert resolved["env"]["lr"] == 0.001 and resolved["env"]["nested"]["b"] is not resolved["wrappers"]
    path.write_text("env: {a: 1, a: 2}\n")
    with pytest.raises(yaml.YAMLError, match="duplicate key a"):  # as OmegaConf.load
        load_untrusted_config(path, ["env"])


def test_spaces_config_load_refuses_anchors(tmp_path: Path) -> None:
    path = tmp_path / "spaces_config.yaml"
    path.write_text(billion_laughs(9))
    with pytest.raises(UntrustedFileError, match=r"spaces_config.yaml' uses the YAML anchor &l0"):
        SpacesConfig.load(path)
