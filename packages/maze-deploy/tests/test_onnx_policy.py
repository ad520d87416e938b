"""OnnxPolicy and AgentDeployment.from_run_dir(..., backend="onnx"): torch's decisions without torch, clear errors."""

from __future__ import annotations

import json
import shutil
from importlib.resources import files
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
import yaml
from gymnasium import spaces
from maze.deploy import AgentDeployment, OnnxPolicy
from maze.env import GymMazeEnv
from maze.env.core.actor import ActorID
from maze.env.errors import ConfigurationError
from maze.env.utils.spaces_config import SpacesConfig
from maze.env.wrappers.wrapper_factory import WrapperFactory

torch = pytest.importorskip("torch")  # the torch extra (maze-perception) exports the policies these tests deploy
export_policy = pytest.importorskip("maze.perception.export").export_policy
build_model_composer = pytest.importorskip("maze.perception.models.base_model_composer").build_model_composer

WRAPPERS = {
    "ObservationNormalizationWrapper": {
        "default_strategy": "MeanZeroStdOneObservationNormalizationStrategy",
        "default_strategy_config": {"clip_range": [-3.0, 3.0], "axis": [0]},
    }
}
STATISTICS = {"observation": {"mean": [0.0, 0.0, 0.0, 0.0], "std": [0.1, 0.5, 0.1, 0.5]}}


def vector_obs_policy(spaces_config: SpacesConfig) -> Any:
    torch.manual_seed(0)
    config = yaml.safe_load((files("maze.perception") / "conf" / "model" / "vector_obs.yaml").read_text())
    return build_model_composer(config, spaces_config).torch_policy("cpu")


@pytest.fixture(scope="module")
def cartpole_export(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Path]:
    """A CartPole vector_obs TorchPolicy and its ONNX export (with env, wrappers and statistics)."""
    torch.set_num_threads(1)
    env = WrapperFactory.wrap_from_config(GymMazeEnv("CartPole-v1"), WRAPPERS)
    env.set_normalization_statistics(STATISTICS)
    policy = vector_obs_policy(SpacesConfig.from_env(env))
    with torch.no_grad():  # sharper than at initialization, so the decisions depend on the state
        for parameter in policy.parameters():
            parameter.mul_(4.0)
    directory = tmp_path_factory.mktemp("run") / "onnx"
    config = {"_target_": "maze.env.GymMazeEnv", "env": "CartPole-v1"}
    export_policy(
        policy,
        SpacesConfig.from_env(env),
        directory,
        env=config,
        wrappers=WRAPPERS,
        normalization_statistics=STATISTICS,
    )
    return policy, directory


def run_episodes(agent: AgentDeployment, seeds: range) -> tuple[list[float], list[int]]:
    """Drives an external gymnasium CartPole with ``agent``; returns the returns and all actions."""
    env, returns, actions = gym.make("CartPole-v1"), [], []
    for seed in seeds:
        state, info = env.reset(seed=seed)
        agent.reset(seed=seed)
        total, reward, done = 0.0, 0.0, False
        while not done:
            action = agent.act(state, reward, False, info)
            actions.append(int(action))
            state, reward, terminated, truncated, info = env.step(action)
            total += reward
            done = terminated or truncated
        agent.close(state, reward, terminated=terminated, truncated=truncated)
        returns.append(total)
    return returns, actions


def test_onnx_deployment_takes_the_torch_deployments_decisions(cartpole_export: tuple[Any, Path]) -> None:
    policy, directory = cartpole_export
    onnx_agent = AgentDeployment.from_run_dir(directory.parent, backend="onnx", deterministic=True)
    assert isinstance(onnx_agent.policy, OnnxPolicy)
    torch_agent = AgentDeployment(
        policy=policy,
        env=GymMazeEnv("CartPole-v1"),
        wrappers=WRAPPERS,
        normalization_statistics=STATISTICS,
        deterministic=True,
    )
    onnx_run, torch_run = run_episodes(onnx_agent, range(3)), run_episodes(torch_agent, range(3))
    assert onnx_run == torch_run
    assert len(set(onnx_run[1])) == 2  # both actions occur: the comparison is not trivially constant


def test_sampling_is_seeded_and_follows_the_heads_probabilities(cartpole_export: tuple[Any, Path]) -> None:
    policy, directory = cartpole_export
    onnx = OnnxPolicy(directory)
    observation = {"observation": np.tile(np.array([[0.05, 0.3, -0.02, 0.4]], dtype=np.float32), (20000, 1))}
    onnx.seed(7)
    first = onnx.compute_action(observation)["action"]
    onnx.seed(7)
    assert np.array_equal(first, onnx.compute_action(observation)["action"])
    assert not np.array_equal(first, onnx.compute_action(observation)["action"])
    probs = torch.softmax(policy.compute_logits_dict(observation)["action"][0], -1).detach().numpy()
    np.testing.assert_allclose(np.bincount(first, minlength=2) / first.size, probs, atol=0.015)
    np.testing.assert_allclose(onnx.compute_head_parameters(observation)["action"]["probs"][0], probs, atol=1e-6)


def test_top_candidates_equal_the_torch_policys(cartpole_export: tuple[Any, Path]) -> None:
    policy, directory = cartpole_export
    observation = {"observation": np.array([0.05, -0.3, 0.02, 0.4], dtype=np.float32)}
    actions, probabilities = OnnxPolicy(directory).compute_top_action_candidates(observation, 2)
    expected_actions, expected_probabilities = policy.compute_top_action_candidates(observation, 2)
    assert actions == expected_actions
    np.testing.assert_allclose(probabilities, expected_probabilities, atol=1e-6)


def test_spaces_that_differ_from_the_env_are_one_clear_error(cartpole_export: tuple[Any, Path]) -> None:
    _, directory = cartpole_export
    with pytest.raises(ConfigurationError, match=r"spaces mismatch in sub-step 0, observation key 'observation'"):
        AgentDeployment.from_run_dir(
            directory, env=GymMazeEnv("Acrobot-v1"), backend="onnx", normalization_statistics=None
        )
    acrobot = GymMazeEnv("Acrobot-v1")
    with pytest.raises(ConfigurationError, match=r"ONNX policy .* has Box\(shape \(4,\)"):
        OnnxPolicy(directory, acrobot.observation_spaces_dict, acrobot.action_spaces_dict)


def test_an_onnx_file_that_differs_from_its_metadata_is_refused(
    cartpole_export: tuple[Any, Path], tmp_path: Path
) -> None:
    _, directory = cartpole_export
    copy = tmp_path / "onnx"
    shutil.copytree(directory, copy)
    metadata = json.loads((copy / "metadata.json").read_text())
    metadata["networks"][0]["inputs"][0]["shape"] = [5]
    (copy / "metadata.json").write_text(json.dumps(metadata))
    with pytest.raises(ConfigurationError, match=r"takes the input 'observation' \['batch', 4\], but its metadata"):
        OnnxPolicy(copy)


def test_missing_export_and_unknown_backend_are_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match=r"holds no ONNX export .*python -m maze.perception.export"):
        AgentDeployment.from_run_dir(tmp_path, backend="onnx")
    with pytest.raises(ConfigurationError, match=r"backend='tensorflow'; use 'torch' or 'onnx'"):
        AgentDeployment.from_run_dir(tmp_path, backend="tensorflow")


def test_an_export_hidden_by_an_interrupted_export_of_an_older_maze_is_named(
    cartpole_export: tuple[Any, Path], tmp_path: Path
) -> None:
    _, directory = cartpole_export
    shutil.copytree(directory, tmp_path / ".onnx-old-k2j3h4" / "onnx")  # no onnx/: killed between its two renames
    with pytest.raises(ConfigurationError, match=r"left the previous export in '.*\.onnx-old-k2j3h4/onnx'; the next"):
        AgentDeployment.from_run_dir(tmp_path, backend="onnx")


def test_metadata_cannot_name_code(cartpole_export: tuple[Any, Path], tmp_path: Path) -> None:
    _, directory = cartpole_export
    copy = tmp_path / "onnx"
    shutil.copytree(directory, copy)
    metadata = json.loads((copy / "metadata.json").read_text())
    metadata["env"] = {"_target_": "os.system", "command": "echo owned"}
    (copy / "metadata.json").write_text(json.dumps(metadata))
    with pytest.raises(ConfigurationError, match=r"os\.system"):
        AgentDeployment.from_run_dir(copy, backend="onnx")


BOX = spaces.Box(np.array([-2.0, 0.0], dtype=np.float32), np.array([2.0, 1.0], dtype=np.float32))


@pytest.mark.parametrize(
    ("distribution", "space"),
    [
        ("SquashedGaussianProbabilityDistribution", BOX),
        ("BetaProbabilityDistribution", BOX),
        ("DiagonalGaussianProbabilityDistribution", BOX),
        ("BernoulliProbabilityDistribution", spaces.MultiBinary(3)),
        ("MultiCategoricalProbabilityDistribution", spaces.MultiDiscrete([3, 2], start=[1, -1])),
        ("CategoricalProbabilityDistribution", spaces.Discrete(3, start=2)),
    ],
)
def test_each_distribution_kind_acts_like_torch(distribution: str, space: spaces.Space, tmp_path: Path) -> None:
    """Deterministic actions equal torch's; sampled actions lie in the space."""
    observation_space = spaces.Dict({"observation": spaces.Box(-1.0, 1.0, shape=(3,), dtype=np.float32)})
    spaces_config = SpacesConfig({0: spaces.Dict({"head": space})}, {0: observation_space}, {0: 1})
    config = yaml.safe_load((files("maze.perception") / "conf" / "model" / "vector_obs.yaml").read_text())
    config["distribution_mapper_config"] = [{"action_head": "head", "distribution": distribution}]
    torch.manual_seed(0)
    policy = build_model_composer(config, spaces_config).torch_policy("cpu")
    onnx = OnnxPolicy(export_policy(policy, spaces_config, tmp_path / "onnx"))
    observation = {"observation": np.random.default_rng(0).uniform(-1, 1, size=(64, 3)).astype(np.float32)}
    expected = policy.compute_action(observation, actor_id=ActorID(0, 0), deterministic=True)["head"]
    got = onnx.compute_action(observation, actor_id=ActorID(0, 0), deterministic=True)["head"]
    assert got.dtype == expected.dtype
    np.testing.assert_allclose(got, expected, atol=1e-5)
    onnx.seed(0)
    sampled = onnx.compute_action(observation, deterministic=False)["head"]
    if distribution != "DiagonalGaussianProbabilityDistribution":  # the only unbounded one
        assert all(space.contains(np.asarray(action, dtype=space.dtype)) for action in sampled), sampled
