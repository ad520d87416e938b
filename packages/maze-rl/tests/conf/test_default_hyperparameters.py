"""The documented defaults learn on an env whose returns are in the thousands (the collapse of issue 45).

With value targets at the env's raw scale, the value loss used to swamp the policy gradient and
the policy collapsed onto one action within the first epochs. Here CartPole's rewards are
multiplied by 100 (returns up to 50,000; a random policy scores about 2,200): with nothing but
``algorithm=<name>`` (defaults for every other key, the default model and critic), one epoch
must keep the policy's entropy above a floor and more than double the random policy's return.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest
from maze.env.gym_adapter.gym_maze_env import GymMazeEnv
from maze.rl.api import RunContext
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

REWARD_FACTOR = 100.0
RANDOM_RETURN = 22.0 * REWARD_FACTOR
"""A uniformly random CartPole policy lasts about 22 steps."""
ENTROPY_FLOOR = 0.3
"""Nats; a collapsed policy over CartPole's two actions is near 0, a uniform one at ln 2 = 0.69."""


class ScaledReward(gym.RewardWrapper):
    """Multiplies every reward by ``factor``."""

    def __init__(self, env: gym.Env, factor: float) -> None:
        super().__init__(env)
        self.factor = factor

    def reward(self, reward: Any) -> float:
        return float(reward) * self.factor


def scaled_cartpole() -> GymMazeEnv:
    return GymMazeEnv(ScaledReward(gym.make("CartPole-v1"), REWARD_FACTOR))


def scalars(run_dir: Path, tag: str) -> list[float]:
    accumulator = EventAccumulator(str(run_dir), size_guidance={"scalars": 0})
    accumulator.Reload()
    return [event.value for event in accumulator.Scalars(tag)]


@pytest.mark.parametrize("algorithm", ["ppo", "a2c"])
def test_defaults_keep_entropy_and_learn_on_returns_in_the_thousands(algorithm: str, tmp_path: Path) -> None:
    run_dir = tmp_path / algorithm
    rc = RunContext(
        env=scaled_cartpole,
        algorithm=algorithm,
        overrides={"algorithm.n_epochs": 1, "seeding.env_base_seed": 1, "seeding.agent_base_seed": 1},
        silent=True,
        run_dir=run_dir,
    )
    best = rc.train()
    entropy = scalars(run_dir, "train_ActorCriticEvents/policy_entropy/0")
    assert entropy and min(entropy) > ENTROPY_FLOOR, f"{algorithm}: the policy collapsed (entropy {entropy})"
    assert best is not None and best > 2 * RANDOM_RETURN, f"{algorithm}: best evaluation {best}, random {RANDOM_RETURN}"
