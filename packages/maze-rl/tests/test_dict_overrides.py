"""A dict-valued override of an existing key replaces its value; the config files' own examples compose."""

from __future__ import annotations

import re
import subprocess
import sys
from importlib.resources import files
from pathlib import Path

import pytest
from hydra.errors import ConfigCompositionException
from maze.rl.config_errors import describe_config_error
from maze.rl.hydra_config import read_hydra_config
from omegaconf import OmegaConf

_EXAMPLE = re.compile(r"\{(?:[^{}]|\{[^{}]*\})*\}")
"""A flow-style dict in a comment, one level of nesting: ``{runtime_env: {working_dir: .}}``."""


def documented_dict_examples(text: str) -> list[tuple[str, str]]:
    """(key, example) for every ``e.g. {...}`` in the comment block above a key of a YAML file."""
    examples, comment = [], []
    for line in text.splitlines():
        if line.startswith("#"):
            comment.append(line)
            continue
        key = line.split(":", 1)[0].strip()
        block = " ".join(comment)
        if "e.g." in block:
            examples += [(key, example) for example in _EXAMPLE.findall(block.split("e.g.", 1)[1])]
        comment = []
    return examples


RAY_RUNNER_EXAMPLES = documented_dict_examples((files("maze.conf") / "runner" / "ray.yaml").read_text())
LAUNCHER_EXAMPLES = documented_dict_examples((files("maze.conf") / "hydra" / "launcher" / "ray.yaml").read_text())


def test_the_config_files_have_dict_examples() -> None:
    assert ("ray_init", "{num_cpus: 4}") in RAY_RUNNER_EXAMPLES
    assert ("runtime_env", '{working_dir: ., env_vars: {OMP_NUM_THREADS: "1"}}') in RAY_RUNNER_EXAMPLES
    assert ("ray_init", "{num_cpus: 4}") in LAUNCHER_EXAMPLES


@pytest.mark.parametrize(("key", "example"), RAY_RUNNER_EXAMPLES)
def test_the_ray_runner_examples_compose_verbatim(key: str, example: str) -> None:
    cfg = read_hydra_config(config_name="conf_train", overrides=["runner=ray", f"runner.{key}={example}"])
    assert OmegaConf.to_container(cfg.runner[key]) == OmegaConf.to_container(OmegaConf.create(f"v: {example}").v)


@pytest.mark.parametrize(("key", "example"), LAUNCHER_EXAMPLES)
def test_the_ray_launcher_examples_compose_verbatim(key: str, example: str) -> None:
    cfg = read_hydra_config(
        config_name="conf_train",
        overrides=["hydra/launcher=ray", f"hydra.launcher.{key}={example}"],
        return_hydra_config=True,
    )
    assert OmegaConf.to_container(cfg.hydra.launcher[key]) == OmegaConf.to_container(
        OmegaConf.create(f"v: {example}").v
    )


def test_a_dict_override_replaces_instead_of_merging() -> None:
    cfg = read_hydra_config(
        config_name="conf_train",
        overrides=["model=vector_obs", "model.model_builder.observation_modality_mapping={warehouse: feature}"],
    )
    assert OmegaConf.to_container(cfg.model.model_builder.observation_modality_mapping) == {"warehouse": "feature"}


def test_plus_still_merges_and_later_overrides_see_the_replaced_dict() -> None:
    mapping = "model.model_builder.observation_modality_mapping"
    cfg = read_hydra_config(
        config_name="conf_train",
        overrides=["model=vector_obs", f"+{mapping}={{warehouse: feature}}"],
    )
    assert OmegaConf.to_container(OmegaConf.select(cfg, mapping)) == {"observation": "feature", "warehouse": "feature"}
    cfg = read_hydra_config(
        config_name="conf_train",
        overrides=["model=vector_obs", f"{mapping}={{warehouse: feature}}", f"{mapping}.warehouse=hidden"],
    )
    assert OmegaConf.to_container(OmegaConf.select(cfg, mapping)) == {"warehouse": "hidden"}


def test_a_dict_override_of_an_unknown_key_is_still_refused() -> None:
    with pytest.raises(ConfigCompositionException) as caught:
        read_hydra_config(config_name="conf_train", overrides=["runner=ray", "runner.ray_initt={num_cpus: 2}"])
    message = describe_config_error(caught.value)
    assert message.startswith("Unknown config key 'runner.ray_initt'") and "Did you mean 'runner.ray_init'?" in message


def test_maze_run_composes_the_issue_example(tmp_path: Path) -> None:
    script = Path(sys.executable).parent / "maze-run"
    result = subprocess.run(
        [
            str(script),
            "-cn",
            "conf_train",
            "runner=ray",
            "runner.ray_init={num_cpus: 2}",
            "--cfg",
            "job",
            "-p",
            "runner",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert OmegaConf.create(result.stdout).ray_init == {"num_cpus": 2}
