"""Helpers of the maze-train tests: fake envs, small model configs, a recording stats writer, a scripted policy,
numbered replay transitions, a check that worker processes are gone."""

from __future__ import annotations

import os
from collections.abc import Callable
from importlib import resources
from typing import Any, Optional

import numpy as np
import yaml
from maze.env.core.actor import ActorID
from maze.env.log_stats.log_stats import LogStats
from maze.env.log_stats.writers import LogStatsWriter
from maze.env.testing.fake_envs import build_dummy_maze_env, build_multi_agent_env, build_multi_step_env
from maze.train.replay import TransitionBatch

FAKE_ENVS: dict[str, Callable[..., Any]] = {
    "dummy": build_dummy_maze_env,
    "multi_step": lambda **kwargs: build_multi_step_env(end_between_sub_steps=False, **kwargs),
    "multi_agent": lambda **kwargs: build_multi_agent_env(end_between_sub_steps=False, **kwargs),
}
"""The fake envs trainers can batch (episodes end only after a full round of sub-steps)."""

TEMPLATE_FEATURES = {
    "dummy": ["observation", "action_mask"],
    "multi_step": ["items", "step"],
    "multi_agent": ["observation", "agent"],
    "cartpole": ["observation"],
}
"""The observation keys of each env, all mapped to the template model's ``feature`` modality."""


class RecordingWriter(LogStatsWriter):
    """Keeps every ``(prefix, step, stats)`` write."""

    def __init__(self) -> None:
        self.rows: list[tuple[Optional[str], int, LogStats]] = []

    def write(self, path: Optional[str], step: int, stats: LogStats) -> None:
        self.rows.append((path, step, dict(stats)))

    def values(self, prefix: str, topic: str, event: str, name: Optional[str] = None, groups: tuple = ()) -> list:
        """The values of one statistic in the writes under ``prefix`` that have it, in write order."""
        return [
            value
            for path, _, stats in self.rows
            if path == prefix
            for key, value in stats.items()
            if (key.topic, key.event, key.name, key.groups) == (topic, event, name, groups)
        ]

    def steps(self, prefix: str) -> list[int]:
        """The log steps of the writes under ``prefix``."""
        return [step for path, step, _ in self.rows if path == prefix]


def packaged_config(group: str, name: str) -> dict[str, Any]:
    """A model or critic config shipped with maze-perception (``maze/perception/conf/<group>/<name>.yaml``)."""
    return yaml.safe_load(resources.files(f"maze.perception.conf.{group}").joinpath(f"{name}.yaml").read_text())


def small_model_config(kind: str, env_name: str, critic: bool = True, hidden: int = 8) -> dict[str, Any]:
    """A tiny ``flatten_concat`` or ``template`` (vector_obs) model config for an env of :data:`TEMPLATE_FEATURES`.

    Args:
        kind: ``flatten_concat`` (with ``critic/flatten_concat_state``) or ``template`` (with ``critic/template_state``).
        env_name: The env whose observation keys the template model maps.
        critic: Include the critic config (False: ``critic: None``).
        hidden: Units of every hidden layer.
    """
    if kind == "flatten_concat":
        model = packaged_config("model", "flatten_concat")
        model["policy"]["networks"][0]["hidden_units"] = [hidden]
        critic_config = packaged_config("critic", "flatten_concat_state")
        critic_config["critic"]["networks"][0]["hidden_units"] = [hidden]
    else:
        model = packaged_config("model", "vector_obs")
        builder = model["model_builder"]
        builder["observation_modality_mapping"] = dict.fromkeys(TEMPLATE_FEATURES[env_name], "feature")
        for modality in ("feature", "hidden"):
            builder["modality_config"][modality]["block_params"]["hidden_units"] = [hidden]
        critic_config = packaged_config("critic", "template_state")
    if critic:
        model.update(critic_config)
    return model


class ZeroPolicy:
    """Acts with all-zero actions of the current actor's action space and records whom it was asked for."""

    def __init__(self, action_spaces_dict: dict[Any, Any]) -> None:
        self.action_spaces_dict = action_spaces_dict
        self.actor_ids: list[ActorID] = []

    def compute_action(self, observation: dict[str, np.ndarray], actor_id: ActorID, **_: Any) -> dict[str, np.ndarray]:
        self.actor_ids.append(actor_id)
        n_envs = len(next(iter(observation.values())))
        spaces = self.action_spaces_dict[actor_id[0]].spaces
        return {key: np.zeros((n_envs, *space.shape), dtype=space.dtype) for key, space in spaces.items()}


def transitions(start: int, count: int) -> TransitionBatch[np.ndarray]:
    """``count`` transitions numbered from ``start`` (the number is in every field)."""
    ids = np.arange(start, start + count)
    return TransitionBatch(
        observations={"observation": np.stack([ids, -ids], axis=1).astype(np.float32)},
        actions={"action": ids.astype(np.int64)},
        rewards=ids.astype(np.float32),
        next_observations={"observation": np.stack([ids + 1, -ids - 1], axis=1).astype(np.float32)},
        dones=(ids % 2).astype(np.float32),
    )


def assert_no_process_left(pids: list[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            continue
        # A zombie would still answer signal 0; a stopped worker is reaped by join, so the pid is gone.
        raise AssertionError(f"actor process {pid} still exists")
