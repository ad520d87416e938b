"""Demonstrations for SACfD: a trajectory dataset turned into replay-buffer transitions."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Callable, Optional

import numpy as np
from gymnasium import spaces
from maze.env.errors import ConfigurationError
from maze.env.trajectory_recording.spaces_records import SpacesRecord
from maze.env.utils.factory import Factory, to_plain_config
from maze.env.utils.finite import NonFiniteValue, NonFiniteValueError, find_non_finite
from maze.rollout.datasets import InMemoryDataset, resolve_data_paths
from maze.rollout.datasets.conversion import TrajectoryConversionError
from maze.rollout.datasets.trajectory_processor import TrajectoryProcessor
from maze.train.replay.replay_buffer import TransitionBatch
from maze.train.utils import stack_numpy_dict_list

__all__ = ["demonstration_rollouts", "load_demonstrations", "records_to_transitions"]


def load_demonstrations(
    config: Any, conversion_env_factory: Callable[[], Any], launch_dir: Optional[str] = None
) -> Sequence[SpacesRecord]:
    """Instantiates the ``runner.initial_demonstration_trajectories`` dataset config.

    Args:
        config: The dataset config (``input_data``: a trajectory file or directory, or a list).
        conversion_env_factory: Builds the env that converts recorded MazeStates.
        launch_dir: Relative ``input_data`` paths are taken from here (None: as given).

    Raises:
        ConfigurationError: If ``input_data`` does not exist (naming the key to set) or its
            trajectories do not fit the env's spaces.
    """
    config = dict(to_plain_config(config))
    if not config.get("input_data"):
        raise ConfigurationError(
            "runner.initial_demonstration_trajectories.input_data is empty; set it to recorded trajectories, e.g. "
            "<rollout run dir>/trajectory_data"
        )
    config["input_data"] = input_data = resolve_data_paths(config["input_data"], launch_dir)
    paths = [input_data] if isinstance(input_data, str) else input_data
    missing = [path for path in paths if not Path(path).exists()]
    if missing:
        raise ConfigurationError(
            f"runner.initial_demonstration_trajectories.input_data: {', '.join(missing)} does not exist; set it to "
            "recorded trajectories (absolute, or relative to the directory maze-run was started in), e.g. "
            "<rollout run dir>/trajectory_data from `maze-run env.name=... policy=...`"
        )
    processor = config.pop("trajectory_processor", None)
    if processor is not None:
        config["trajectory_processor"] = Factory(TrajectoryProcessor).instantiate(processor)
    try:
        return Factory(InMemoryDataset).instantiate(config, conversion_env_factory=conversion_env_factory)
    except TrajectoryConversionError as error:
        raise ConfigurationError(
            f"runner.initial_demonstration_trajectories: {error}. Record the demonstrations with the env and "
            "wrappers of this training run"
        ) from None


def records_to_transitions(
    records: Sequence[SpacesRecord], observation_space: spaces.Dict, action_space: spaces.Dict
) -> TransitionBatch[np.ndarray]:
    """Stacks the records (with ``next_observation``) of a flat env into one transition batch.

    Raises:
        ConfigurationError: If there are no records, a record lacks its next observation,
            or observations/actions do not match the env's spaces.
        NonFiniteValueError: For a NaN or infinite observation, action, reward or next
            observation, naming the file and step (with the records of an :class:`InMemoryDataset`).
    """
    if not records:
        raise ConfigurationError("the demonstration dataset holds no transitions; record some episodes first")
    if any(record.next_observation is None for record in records):
        raise ConfigurationError(
            "demonstration records lack next observations; use trajectory_processor "
            "maze.rollout.datasets.trajectory_processor.IdentityWithNextObservationTrajectoryProcessor"
        )
    batch = TransitionBatch(
        observations=stack_numpy_dict_list([record.observation for record in records]),
        actions=stack_numpy_dict_list([record.action for record in records]),
        rewards=np.asarray([float(np.sum(record.reward)) for record in records], dtype=np.float32),
        next_observations=stack_numpy_dict_list([record.next_observation for record in records]),
        dones=np.asarray([bool(record.terminated) for record in records], dtype=np.float32),
    )
    for what, values, space in (
        ("observation", batch.observations, observation_space),
        ("action", batch.actions, action_space),
    ):
        expected = {key: tuple(sub.shape) for key, sub in space.spaces.items()}
        found = {key: tuple(value.shape[1:]) for key, value in values.items()}
        if expected != found:
            raise ConfigurationError(
                f"the demonstrations' {what}s {found} do not match the env's {what} space {expected}; record "
                "the demonstrations with the same env and wrappers as the training run"
            )
    batch.observations = {key: value.astype(observation_space[key].dtype) for key, value in batch.observations.items()}
    batch.next_observations = {
        key: value.astype(observation_space[key].dtype) for key, value in batch.next_observations.items()
    }
    batch.actions = {key: value.astype(action_space[key].dtype) for key, value in batch.actions.items()}
    _check_finite(batch, records)
    return batch


def _check_finite(batch: TransitionBatch[np.ndarray], records: Sequence[SpacesRecord]) -> None:
    """Raises on the first NaN or infinite value of the demonstrations, naming its file and step.

    Raises:
        NonFiniteValueError: Naming the file, the step, what was not finite and its value.
    """
    for what, values in (
        ("observation", batch.observations),
        ("action", batch.actions),
        ("reward", batch.rewards),
        ("next observation", batch.next_observations),
    ):
        culprit = find_non_finite(values)
        if culprit is not None:
            where = NonFiniteValue(culprit.key, culprit.index[1:], culprit.value).describe()
            raise NonFiniteValueError(
                f"runner.initial_demonstration_trajectories: {_locate(records, culprit.index[0])} holds the "
                f"non-finite {what}{where}; SACfD cannot learn from it. Fix or remove that episode"
            )


def _locate(records: Sequence[SpacesRecord], item: int) -> str:
    """Where demonstration item ``item`` was recorded, e.g. ``the file 'data/ep_3.traj.npz' at step 17``."""
    files, trajectories = getattr(records, "files", None), getattr(records, "trajectories", None)
    if files is None or trajectories is None:
        return f"demonstration item {item}"
    remaining = item
    for path, trajectory in zip(files, trajectories, strict=True):
        for step, step_records in enumerate(trajectory.step_records):
            if remaining < len(step_records):
                return f"the file {str(path)!r} at step {step}"
            remaining -= len(step_records)
    return f"demonstration item {item}"


def demonstration_rollouts(
    transitions: TransitionBatch[np.ndarray], n_rollout_steps: int
) -> TransitionBatch[np.ndarray]:
    """The first ``R * n_rollout_steps`` of the ``M`` demonstration transitions, ``R = M // n_rollout_steps``.

    For buffers of whole rollouts (``split_rollouts_into_transitions: false``), which cut them
    into ``R`` rollouts of ``n_rollout_steps`` consecutive transitions in the dataset's order
    (episode by episode): like a worker's rollouts, a rollout runs on across episode ends. The
    last ``M % n_rollout_steps`` transitions, too few for a rollout, are left out.

    Raises:
        ConfigurationError: If there are fewer than ``n_rollout_steps`` transitions.
    """
    count = len(transitions) - len(transitions) % n_rollout_steps
    if count == 0:
        raise ConfigurationError(
            f"the {len(transitions)} demonstration transitions make no rollout of algorithm.n_rollout_steps="
            f"{n_rollout_steps} steps; record more episodes or lower algorithm.n_rollout_steps"
        )
    return transitions.map(lambda value: value[:count])
