"""Helpers of the ES tests: job configs, policy wrappers (heuristic, aborting, crashing), /proc readers."""

from __future__ import annotations

import multiprocessing
from pathlib import Path
from typing import Any, Optional

import gymnasium as gym
import numpy as np
import pytest
from maze.env.agent.policy import Policy
from maze.env.gym_adapter.gym_maze_env import GymMazeEnv
from maze.train.trainers.es import ESAbortException, ESRunner
from train_test_support import small_model_config

CARTPOLE = {"_target_": "maze.env.gym_adapter.gym_maze_env.make_gym_maze_env", "name": "CartPole-v1"}
NOISE_TABLE_SIZE = 200_000
"""Floats in the tests' noise tables (the documented default of 1e8 is 400 MB)."""


def es_job_config(**algorithm: Any) -> dict[str, Any]:
    """A ``conf_train`` job config of ES on CartPole with a small template model and a tiny budget."""
    return {
        "env": CARTPOLE,
        "wrappers": {},
        "model": small_model_config("template", "cartpole", critic=False),
        "algorithm": {"n_epochs": 2, "n_rollouts_per_update": 4, **algorithm},
        "seeding": {"env_base_seed": 1, "agent_base_seed": 1},
        "input_dir": "",
    }


def set_up_es(directory: Path, cfg: dict, **kwargs: Any) -> Any:
    """An ES runner set up with ``directory`` as its run directory."""
    directory.mkdir(parents=True, exist_ok=True)
    kwargs.setdefault("shared_noise_table_size", NOISE_TABLE_SIZE)
    kwargs.setdefault("n_eval_rollouts", 2)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(directory)
        runner = ESRunner(**kwargs)
        runner.setup(cfg)
    return runner


class CountingWrapper(Policy):
    """A policy_wrapper that counts its calls and delegates to the torch policy."""

    calls = 0

    def __init__(self, torch_policy: Any) -> None:
        self.torch_policy = torch_policy

    def compute_action(
        self,
        observation: Any,
        maze_state: Any = None,
        env: Any = None,
        actor_id: Any = None,
        deterministic: bool = False,
    ) -> dict[str, Any]:
        self.before_action(observation)
        return self.torch_policy.compute_action(observation, actor_id=actor_id, deterministic=deterministic)

    def before_action(self, observation: Any) -> None:
        """Counts the call (subclasses add their behaviour)."""
        type(self).calls += 1

    def seed(self, seed: int) -> None:
        self.torch_policy.seed(seed)


class AbortingWrapper(CountingWrapper):
    """Aborts the training rollout at every ``every``-th unbatched action (a heuristic rejecting the rollout).

    Evaluation (batched observations) is neither counted nor aborted.
    """

    every = 97

    def before_action(self, observation: Any) -> None:
        if observation["observation"].ndim == 1:
            type(self).calls += 1
            if type(self).calls % self.every == 0:
                raise ESAbortException("rejected by the heuristic")


class CrashingWrapper(CountingWrapper):
    """Raises a RuntimeError on the ``crash_after``-th action in a worker process (a bug inside a rollout worker)."""

    crash_after = 30

    def before_action(self, observation: Any) -> None:
        type(self).calls += 1
        if type(self).calls >= self.crash_after and multiprocessing.parent_process() is not None:
            raise RuntimeError("boom inside the ES worker")


def shm_mappings(pid: int, name: str) -> list[dict[str, int]]:
    """The memory figures (kB) of every mapping of ``/dev/shm/<name>`` in process ``pid`` (/proc/<pid>/smaps)."""
    mappings: list[dict[str, int]] = []
    current: Optional[dict[str, int]] = None
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        fields = line.split()
        if "-" in fields[0] and len(fields) >= 5 and ":" in fields[3]:  # a mapping header
            current = {} if len(fields) >= 6 and fields[5] == f"/dev/shm/{name}" else None
            if current is not None:
                mappings.append(current)
        elif current is not None and fields[0].endswith(":") and len(fields) >= 2 and fields[1].isdigit():
            current[fields[0][:-1]] = int(fields[1])
    return mappings


def status_kib(pid: int, field: str) -> int:
    """A ``kB`` field of ``/proc/<pid>/status`` (e.g. ``RssAnon``, ``RssShmem``)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise KeyError(field)


class _NanAtStep(gym.Wrapper):
    """CartPole whose observation entry 2 (``what='observation'``) or reward turns NaN at ``step`` of every episode."""

    def __init__(self, env: gym.Env, what: str, step: int) -> None:
        super().__init__(env)
        self.what, self.step_to_poison = what, step

    def reset(self, **kwargs: Any) -> tuple:
        self.steps = 0
        return self.env.reset(**kwargs)

    def step(self, action: Any) -> tuple:
        observation, reward, terminated, truncated, info = self.env.step(action)
        self.steps += 1
        if self.steps == self.step_to_poison and self.what == "observation":
            observation = np.array(observation, dtype=np.float32)
            observation[2] = np.nan
        elif self.steps == self.step_to_poison:
            reward = float("nan")
        return observation, reward, terminated, truncated, info


def nan_observation_cartpole() -> GymMazeEnv:
    """A CartPole-v1 MazeEnv that returns a NaN observation at the fourth step of every episode."""
    return GymMazeEnv(_NanAtStep(gym.make("CartPole-v1"), "observation", step=4))


def nan_reward_cartpole() -> GymMazeEnv:
    """A CartPole-v1 MazeEnv that returns a NaN reward at the third step of every episode."""
    return GymMazeEnv(_NanAtStep(gym.make("CartPole-v1"), "reward", step=3))
