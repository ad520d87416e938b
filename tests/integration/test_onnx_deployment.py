"""ONNX deployment of trained runs (issue 28 acceptance): export, decisions equal to torch's, masks, and no torch at all.

For a CartPole PPO run, a Pendulum SAC run (continuous, squashed Gaussian) and the masked
structured Cutting-2D run: ``python -m maze.perception.export`` writes the ONNX files; on
1,000 observations recorded with the torch policy (sampling, so states vary) the ONNX
policy's deterministic actions equal torch's, its probabilities (categorical heads) or
means and standard deviations (Box heads) agree within 1e-5, and masked actions are never
chosen. Then a fresh venv with only ``maze-deploy[onnx]`` (no torch) drives an external
gymnasium CartPole with the ONNX AgentDeployment and gets the torch deployment's returns.
"""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
import venv
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
import torch
from cli_support import TrainingRun, assert_success, maze_run, seeds
from maze.deploy import AgentDeployment, OnnxPolicy
from maze.env.core.structured_env import StructuredEnv
from maze.env.utils.factory import Factory
from maze.env.wrappers.wrapper_factory import WrapperFactory
from maze.perception.checkpoint import SerializedTorchPolicy
from omegaconf import OmegaConf

ROOT = Path(__file__).resolve().parents[2]
N_OBSERVATIONS = 1000
SEEDS = range(5)


@pytest.fixture(scope="module")
def sac_pendulum_run(tmp_path_factory: pytest.TempPathFactory) -> TrainingRun:
    """A tiny continuous SAC run on Pendulum-v1 (100 random transitions, 20 updates)."""
    run_dir = tmp_path_factory.mktemp("sac_pendulum") / "run"
    budget = ("algorithm.n_epochs=1", "algorithm.epoch_length=20", "algorithm.initial_buffer_size=100")
    result = maze_run(
        *("-cn", "conf_train", "env.name=Pendulum-v1", "algorithm=sac", "model=vector_obs"),
        *("critic=template_state_action", "runner=dev", *budget, "algorithm.batch_size=32"),
        *("algorithm.rollout_evaluator.n_episodes=1", *seeds(0)),
        run_dir=run_dir,
    )
    assert_success(result)
    return TrainingRun(run_dir, result)


def export(run_dir: Path) -> Path:
    """Runs the exporter's CLI on a run directory; returns ``<run_dir>/onnx``."""
    result = subprocess.run(
        [sys.executable, "-m", "maze.perception.export", str(run_dir)], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0 and not result.stderr.strip(), result.stderr
    return run_dir / "onnx"


def training_env(run_dir: Path) -> Any:
    """The run's env and wrappers (from ``.hydra/config.yaml``) with its normalization statistics."""
    config = OmegaConf.load(run_dir / ".hydra" / "config.yaml")
    core = Factory(StructuredEnv).instantiate(OmegaConf.to_container(config.env, resolve=True))
    env = WrapperFactory.wrap_from_config(core, OmegaConf.to_container(config.wrappers, resolve=True))
    if (run_dir / "statistics.npz").is_file():
        env.load_statistics(run_dir / "statistics.npz")
    return env


def recorded_observations(run_dir: Path, policy: SerializedTorchPolicy) -> dict[Any, dict[str, np.ndarray]]:
    """``N_OBSERVATIONS`` observations the torch policy met (sampling), stacked per sub-step key."""
    env = training_env(run_dir)
    torch.manual_seed(0)
    per_step: dict[Any, list[dict]] = {}
    observation, _ = env.reset(seed=0)
    for _ in range(N_OBSERVATIONS):
        actor = env.actor_id()
        per_step.setdefault(actor.step_key, []).append(observation)
        observation, _, terminated, truncated, _ = env.step(policy.compute_action(observation, actor_id=actor))
        if terminated or truncated:
            observation, _ = env.reset()
    return {step: {key: np.stack([obs[key] for obs in steps]) for key in steps[0]} for step, steps in per_step.items()}


def assert_onnx_decides_like_torch(run_dir: Path) -> tuple[OnnxPolicy, dict]:
    """Deterministic actions equal, probabilities / means and stds within 1e-5, on the recorded observations."""
    torch_policy = SerializedTorchPolicy(
        None, run_dir / "state_dict.pt", run_dir / "spaces_config.yaml", model_config_file=run_dir / "model_config.yaml"
    )
    onnx_policy = OnnxPolicy(export(run_dir))
    observations = recorded_observations(run_dir, torch_policy)
    assert sum(len(next(iter(batch.values()))) for batch in observations.values()) == N_OBSERVATIONS
    for step_key, batch in observations.items():
        actor = (step_key, 0)
        expected = torch_policy.compute_action(batch, actor_id=actor, deterministic=True)
        got = onnx_policy.compute_action(batch, actor_id=actor, deterministic=True)
        assert got.keys() == expected.keys()
        for head in expected:
            if expected[head].dtype.kind == "f":
                np.testing.assert_allclose(got[head], expected[head], atol=1e-5)
            else:
                assert np.array_equal(got[head], expected[head]), head
        with torch.inference_mode():
            distributions = torch_policy.logits_dict_to_distribution(
                torch_policy.compute_logits_dict(batch, actor), actor
            ).distribution_dict
        parameters = onnx_policy.compute_head_parameters(batch, actor)
        for head, distribution in distributions.items():
            if "probs" in parameters[head]:
                np.testing.assert_allclose(parameters[head]["probs"], distribution.dist.probs.numpy(), atol=1e-5)
            else:
                normal = distribution.dist.base_dist
                np.testing.assert_allclose(parameters[head]["mean"], normal.loc.numpy(), atol=1e-5)
                np.testing.assert_allclose(parameters[head]["std"], normal.scale.numpy(), atol=1e-5)
    return onnx_policy, observations


def test_cartpole_ppo(tiny_ppo_run: TrainingRun) -> None:
    assert_onnx_decides_like_torch(tiny_ppo_run.run_dir)


def test_pendulum_sac(sac_pendulum_run: TrainingRun) -> None:
    policy, _ = assert_onnx_decides_like_torch(sac_pendulum_run.run_dir)
    assert policy.metadata["networks"][0]["heads"][0]["distribution"]["kind"] == "squashed_gaussian"


def test_masked_structured_cutting_2d(cutting_run: TrainingRun) -> None:
    policy, observations = assert_onnx_decides_like_torch(cutting_run.run_dir)
    masks = {0: ("piece_idx", "inventory_mask"), 1: ("cut_rotation", "cutting_mask")}
    for step_key, (head, mask_key) in masks.items():
        batch = observations[step_key]
        masked = batch[mask_key] == 0
        assert masked.any(), mask_key  # the recorded states do mask actions
        probs = policy.compute_head_parameters(batch, (step_key, 0))[head]["probs"]
        assert np.all(probs[masked] == 0.0)
        policy.seed(0)
        for deterministic in (True, False, False, False):
            chosen = policy.compute_action(batch, actor_id=(step_key, 0), deterministic=deterministic)[head]
            assert not masked[np.arange(len(chosen)), chosen].any()


def episode_returns(agent: Any, seeds: Any) -> list[float]:
    """The return of one external CartPole-v1 episode per seed driven by ``agent`` (also run by :data:`DRIVER`)."""
    env, returns = gym.make("CartPole-v1"), []
    for seed in seeds:
        state, info = env.reset(seed=seed)
        agent.reset(seed=seed)
        total, reward, done = 0.0, 0.0, False
        while not done:
            state, reward, terminated, truncated, info = env.step(agent.act(state, reward, False, info))
            total, done = total + reward, terminated or truncated
        agent.close(state, reward, terminated=terminated, truncated=truncated)
        returns.append(total)
    return returns


DRIVER = (
    """
import importlib.util, json, sys
from typing import Any
import gymnasium as gym
from maze.deploy import AgentDeployment

assert importlib.util.find_spec("torch") is None, "torch is installed"
"""
    + inspect.getsource(episode_returns)
    + """
returns = episode_returns(
    AgentDeployment.from_run_dir(sys.argv[1], backend="onnx", deterministic=True), json.loads(sys.argv[2])
)
assert "torch" not in sys.modules
print(json.dumps(returns))
"""
)


def torch_free_python(directory: Path) -> Path:
    """A venv with maze-deploy[onnx] and its in-repo dependencies installed, and no torch."""
    venv.create(directory, with_pip=True)
    python = directory / "bin" / "python"
    packages = [str(ROOT / "packages" / name) for name in ("maze-env", "maze-rollout")]
    install = [str(python), "-m", "pip", "install", "-q", "-c", str(ROOT / "tools" / "constraints.txt")]
    subprocess.run([*install, *packages, f"{ROOT / 'packages' / 'maze-deploy'}[onnx]"], check=True, timeout=600)
    return python


def test_torch_free_venv_reaches_the_torch_deployments_returns(tiny_ppo_run: TrainingRun, tmp_path: Path) -> None:
    run_dir = tiny_ppo_run.run_dir
    onnx_dir = export(run_dir)
    expected = episode_returns(AgentDeployment.from_run_dir(run_dir, deterministic=True), SEEDS)
    python = torch_free_python(tmp_path / "venv")
    result = subprocess.run(
        [str(python), "-I", "-c", DRIVER, str(onnx_dir), json.dumps(list(SEEDS))],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == expected
