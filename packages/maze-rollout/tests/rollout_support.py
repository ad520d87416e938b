"""Envs and policies for the rollout runner tests (importable by worker processes: tests/ is on sys.path)."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any, Optional

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from maze.env import GymMazeEnv, Policy, RandomPolicy, load_trajectory, read_event_log_tsv
from maze.env.core.actor import ActorID

CARTPOLE = {"_target_": "maze.env.make_gym_maze_env", "name": "CartPole-v1"}
RANDOM_POLICY = {"_target_": "maze.env.RandomPolicy"}


class FrameEnv(gym.Env):
    """Episodes of ``length`` steps; ``render()`` returns a ``(4, 6, 3)`` frame filled with the step count."""

    metadata = {"render_modes": ["rgb_array"]}

    def __init__(self, length: int = 5, render_mode: Optional[str] = None) -> None:
        self.observation_space = spaces.Box(-1.0, 1.0, (2,), np.float32)
        self.action_space = spaces.Discrete(2)
        self.length = length
        self.render_mode = render_mode
        self.steps = 0

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        self.steps = 0
        return np.zeros(2, np.float32), {}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        self.steps += 1
        return np.full(2, 0.1, np.float32), 1.0, self.steps >= self.length, False, {}

    def render(self) -> Optional[np.ndarray]:
        if self.render_mode != "rgb_array":
            return None
        return np.full((4, 6, 3), self.steps, np.uint8)


def make_frame_env(name: str = "frames", render_mode: Optional[str] = None, length: int = 5) -> GymMazeEnv:
    """A GymMazeEnv of :class:`FrameEnv` (``name`` is ignored, like the gym_env config's key)."""
    return GymMazeEnv(FrameEnv(length, render_mode))


class _FailOnSeed(gym.Wrapper):
    """Calls ``fail()`` at the third step of the episode reset with ``seed``."""

    def __init__(self, env: gym.Env, seed: int, fail: Any) -> None:
        super().__init__(env)
        self.fail_seed, self.fail, self.steps, self.armed = seed, fail, 0, False

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> Any:
        self.steps, self.armed = 0, seed == self.fail_seed
        return self.env.reset(seed=seed, options=options)

    def step(self, action: Any) -> Any:
        self.steps += 1
        if self.armed and self.steps == 3:
            self.fail()
        return self.env.step(action)


def explode() -> None:
    """Raises the error the failing env raises."""
    raise RuntimeError("the test env exploded on purpose")


def make_failing_cartpole(fail_seed: int) -> GymMazeEnv:
    """CartPole-v1 that raises (in :func:`explode`) in the episode reset with ``fail_seed``."""
    return GymMazeEnv(_FailOnSeed(gym.make("CartPole-v1"), fail_seed, explode))


def _kill_process() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def make_killing_cartpole(fail_seed: int) -> GymMazeEnv:
    """CartPole-v1 whose process is killed (SIGKILL) in the episode reset with ``fail_seed``."""
    return GymMazeEnv(_FailOnSeed(gym.make("CartPole-v1"), fail_seed, _kill_process))


class SpyPolicy(Policy):
    """A random policy that records what it was called with (for in-process runners).

    Args:
        action_spaces_dict: The env's action spaces (filled in by the runners).
        needs: ``"state"`` or ``"env"`` to ask for the MazeState or the env.
    """

    def __init__(self, action_spaces_dict: dict, needs: Optional[str] = None) -> None:
        self.random = RandomPolicy(action_spaces_dict)
        self.needs = needs
        self.calls: list[dict[str, Any]] = []
        self.seeds: list[int] = []
        self.resets = 0

    def needs_state(self) -> bool:
        return self.needs == "state"

    def needs_env(self) -> bool:
        return self.needs == "env"

    def seed(self, seed: int) -> None:
        self.seeds.append(seed)
        self.random.seed(seed)

    def reset(self) -> None:
        self.resets += 1

    def compute_action(
        self,
        observation: Any,
        maze_state: Optional[Any] = None,
        env: Optional[Any] = None,
        actor_id: Optional[ActorID] = None,
        deterministic: bool = False,
    ) -> Any:
        self.calls.append(
            {
                "observation": observation,
                "maze_state": maze_state,
                "env": env,
                "actor_id": actor_id,
                "deterministic": deterministic,
            }
        )
        return self.random.compute_action(observation, actor_id=actor_id)


class SpyFactory:
    """Builds :class:`SpyPolicy` s (a policy "class" for runners) and keeps them in :attr:`policies`.

    Args:
        needs: Passed to every SpyPolicy.
    """

    def __init__(self, needs: Optional[str] = None) -> None:
        self.needs = needs
        self.policies: list[SpyPolicy] = []

    def __call__(self, action_spaces_dict: dict) -> SpyPolicy:
        self.policies.append(SpyPolicy(action_spaces_dict, self.needs))
        return self.policies[-1]


def trajectory_lengths(run_dir: Path) -> list[int]:
    """The step count of every trajectory file in ``run_dir/trajectory_data`` (each file loads)."""
    return [len(load_trajectory(path)) for path in sorted((run_dir / "trajectory_data").glob("*.traj.npz"))]


def reward_rows(run_dir: Path) -> list[Any]:
    """The rows of the reward event log of ``run_dir``."""
    return read_event_log_tsv(run_dir / "event_logs" / "BaseEnvEvents.reward.tsv")
