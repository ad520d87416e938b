"""Deploying the torch policy of a training run directory (the ``torch`` extra)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from deploy_test_support import (
    CARTPOLE_STATISTICS,
    NORMALIZED,
    NORMALIZED_STACKED,
    cartpole_stack,
    deployed_rollout,
    direct_rollout,
    torch_vector_obs_policy,
    vector_obs_model_config,
)
from maze.deploy import AgentDeployment
from maze.env import GymMazeEnv
from maze.env.errors import ConfigurationError
from maze.env.wrappers.normalization import save_normalization_statistics

ENV_CONFIG = {"_target_": "maze.env.gym_adapter.gym_maze_env.make_gym_maze_env", "name": "CartPole-v1"}
TRAINING_WRAPPERS = {
    "ObservationNormalizationWrapper": {
        "default_strategy": "MeanZeroStdOneObservationNormalizationStrategy",
        "default_strategy_config": {"clip_range": [-5.0, 5.0]},
        "default_statistics": None,  # estimated in training, stored as statistics.npz
    },
}


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    """What a training run leaves behind: checkpoint, spaces, model config, statistics, Hydra config."""
    checkpoint = pytest.importorskip("maze.perception.checkpoint")
    models = pytest.importorskip("maze.perception.models")
    stack = cartpole_stack(NORMALIZED)
    policy = torch_vector_obs_policy(stack)
    checkpoint.save_checkpoint(tmp_path, policy, models.SpacesConfig.from_env(stack), vector_obs_model_config())
    save_normalization_statistics({"observation": CARTPOLE_STATISTICS}, tmp_path / "statistics.npz")
    (tmp_path / ".hydra").mkdir()
    hydra_config = {"env": ENV_CONFIG, "wrappers": TRAINING_WRAPPERS, "model": "${model_config}", "seed": 1}
    (tmp_path / ".hydra" / "config.yaml").write_text(yaml.safe_dump(hydra_config))
    return tmp_path


def test_from_run_dir_reproduces_the_trained_policy(run_dir: Path) -> None:
    policy = torch_vector_obs_policy(cartpole_stack(NORMALIZED))  # same seed: the weights of the run
    expected = direct_rollout(cartpole_stack(NORMALIZED), policy, [0, 1])
    agent = AgentDeployment.from_run_dir(run_dir, deterministic=True)
    assert type(agent.policy).__name__ == "SerializedTorchPolicy"
    episodes, _ = deployed_rollout(agent, [0, 1])
    assert episodes == expected
    explicit = AgentDeployment.from_run_dir(run_dir, env=ENV_CONFIG, wrappers=TRAINING_WRAPPERS, deterministic=True)
    assert deployed_rollout(explicit, [0, 1])[0] == expected


def test_from_run_dir_errors(run_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    with pytest.raises(ConfigurationError, match=r"does not exist; pass the output directory of a training run"):
        AgentDeployment.from_run_dir(run_dir / "nothing")
    with pytest.raises(ConfigurationError, match=r"spaces mismatch in sub-step 0, observation key 'observation'"):
        AgentDeployment.from_run_dir(run_dir, env=GymMazeEnv("CartPole-v1"), wrappers=NORMALIZED_STACKED)
    with pytest.raises(ConfigurationError, match=r"has no ObservationNormalizationWrapper"):
        AgentDeployment.from_run_dir(run_dir, env=GymMazeEnv("CartPole-v1"))  # the run normalized observations
    (run_dir / ".hydra" / "config.yaml").write_text("env: [unclosed\n")
    with pytest.raises(
        ConfigurationError, match=r"(?s)cannot read env and wrappers from .*config.yaml.*ParserError.*pass env="
    ):
        AgentDeployment.from_run_dir(run_dir)
    (run_dir / ".hydra" / "config.yaml").unlink()
    with pytest.raises(ConfigurationError, match=r"has no .hydra/config.yaml .* pass env="):
        AgentDeployment.from_run_dir(run_dir)
    (run_dir / "model_config.yaml").unlink()
    with pytest.raises(ConfigurationError, match=r"lacks \['model_config.yaml'\]"):
        AgentDeployment.from_run_dir(run_dir, env=ENV_CONFIG, wrappers=TRAINING_WRAPPERS)


def test_without_the_torch_extra_the_error_names_it(run_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *args: None if name == "maze.perception" else real_find_spec(name)
    )
    with pytest.raises(ConfigurationError, match=r"pip install .*packages/maze-deploy\[torch\]"):
        AgentDeployment.from_run_dir(run_dir)


def test_importing_maze_deploy_does_not_import_torch() -> None:
    probe = "import sys, maze.deploy; assert 'torch' not in sys.modules, sorted(sys.modules)"
    subprocess.run([sys.executable, "-c", probe], check=True)


def _billion_laughs(levels: int) -> str:
    lines = ["l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" for i in range(1, levels)]
    return "\n".join([*lines, f"env: {{_target_: maze.env.GymMazeEnv, env: CartPole-v1, lol: *l{levels - 1}}}", ""])


def _doubling_chain(levels: int) -> str:
    lines = ["a: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "b0: '${a}${a}'"]
    lines += [f"b{i}: '${{b{i - 1}}}${{b{i - 1}}}'" for i in range(1, levels)]
    return "\n".join([*lines, f"env: {{_target_: maze.env.GymMazeEnv, env: '${{b{levels - 1}}}'}}", ""])


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (_billion_laughs(5), "uses the YAML anchor &l0"),
        (_billion_laughs(9), "uses the YAML anchor &l0"),
        (_doubling_chain(24), "through its interpolations beyond"),
        (_doubling_chain(100), "chains more than 32 interpolations"),
        ("env: " + "[" * 900 + "]" * 900, "more than 64 levels deep"),
        ("env: {_target_: maze.env.GymMazeEnv, env: '${oc.env:HOME}'}", r"resolver \$\{oc.env:...\}"),
    ],
    ids=["laughs-5", "laughs-9", "doubling", "doubling-long", "deep", "resolver"],
)
def test_a_hostile_hydra_config_is_refused_quickly_naming_the_file(run_dir: Path, text: str, problem: str) -> None:
    """Before: 5 alias levels took 25.6 s, 9 levels and the doubling chain did not finish (here: TimeoutError)."""
    from maze.env.utils.timeout import Timeout
    from maze.env.utils.untrusted_files import UntrustedFileError

    config = run_dir / ".hydra" / "config.yaml"
    config.write_text(text)
    assert config.stat().st_size < 3500
    with Timeout(10), pytest.raises(UntrustedFileError, match=problem) as error:
        AgentDeployment.from_run_dir(run_dir)
    assert repr(str(config)) in str(error.value) and "\n" not in str(error.value)


def test_an_unknown_env_argument_of_the_run_is_a_configuration_error_naming_the_key(run_dir: Path) -> None:
    config = run_dir / ".hydra" / "config.yaml"
    config.write_text(yaml.safe_dump({"env": {**ENV_CONFIG, "bogus": "y" * 300}, "wrappers": TRAINING_WRAPPERS}))
    with pytest.raises(ConfigurationError, match=r"does not take it\. Remove env\.bogus from the config") as error:
        AgentDeployment.from_run_dir(run_dir)
    assert "yyyyy" not in str(error.value)
