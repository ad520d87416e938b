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
    with pytest.raises(ConfigurationError, match=r"pip install 'maze-deploy\[torch\]'"):
        AgentDeployment.from_run_dir(run_dir)


def test_importing_maze_deploy_does_not_import_torch() -> None:
    probe = "import sys, maze.deploy; assert 'torch' not in sys.modules, sorted(sys.modules)"
    subprocess.run([sys.executable, "-c", probe], check=True)
