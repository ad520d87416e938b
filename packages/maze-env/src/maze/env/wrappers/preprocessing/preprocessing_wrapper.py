"""PreProcessingWrapper: cascaded, per-observation pre-processing with implicit space updates."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple, Optional, TypeVar

from gymnasium import spaces
from maze.env.core.actor import StepKeyType
from maze.env.errors import ConfigurationError
from maze.env.utils.factory import Factory, to_plain_config
from maze.env.utils.spaces import ordered_dict_space
from maze.env.wrappers._shared import instantiate_for_space
from maze.env.wrappers.preprocessing.preprocessors.base import PreProcessor
from maze.env.wrappers.wrapper import ObservationWrapper

__all__ = ["PreProcessingWrapper", "PREPROCESSORS_MODULE"]

PREPROCESSORS_MODULE = "maze.env.wrappers.preprocessing.preprocessors"
"""Module whose pre-processor class names may be used as short ``_target_`` s."""

_ENTRY_KEYS = ("observation", "_target_", "keep_original", "config")

ValueType = TypeVar("ValueType")

_FACTORY = Factory(PreProcessor, search_modules=[PREPROCESSORS_MODULE])


class _Step(NamedTuple):
    """One pre-processing step of one sub-step."""

    observation: str
    output: str
    preprocessor: PreProcessor
    keep_original: bool


class PreProcessingWrapper(ObservationWrapper):
    """Pre-processes observations (gray scaling, resizing, one-hot encoding, ...).

    Each entry of ``pre_processor_mapping`` applies one :class:`PreProcessor` to one
    observation key and stores the result as ``<observation>-<tag>`` (``rgb_image`` ->
    ``rgb_image-rgb2gray``). Entries apply in order, so a later entry can process the
    output of an earlier one (``rgb_image-rgb2gray`` -> ``rgb_image-rgb2gray-resize_img``).
    With ``keep_original: false`` the input key is dropped. The observation spaces follow
    implicitly. In structured envs every sub-step that has the key is processed.

    Example entry (YAML)::

        - observation: rgb_image
          _target_: Rgb2GrayPreProcessor   # short name or dotted path (or a class)
          keep_original: false
          config: {rgb_dim: -1}

    Args:
        env: The env to wrap.
        pre_processor_mapping: The entries ``{observation, _target_, keep_original, config}``;
            ``keep_original`` defaults to False and ``config`` to ``{}``.

    Raises:
        ConfigurationError: For an entry with unknown or missing keys, an unknown
            ``_target_`` or config key, an observation key that no sub-step has at that
            point of the cascade, or an output key that already exists.
    """

    def __init__(self, env: Any, pre_processor_mapping: Sequence[Mapping[str, Any]]) -> None:
        super().__init__(env)
        entries = [_checked_entry(index, entry) for index, entry in enumerate(to_plain_config(pre_processor_mapping))]
        self._pipelines: dict[StepKeyType, list[_Step]] = {}
        self._observation_spaces_dict: dict[StepKeyType, spaces.Dict] = {}
        used = [False] * len(entries)
        for step_key, space in env.observation_spaces_dict.items():
            pipeline, sub_spaces = [], dict(space.spaces)
            for index, entry in enumerate(entries):
                if entry["observation"] not in sub_spaces:
                    continue
                step = _build_step(index, entry, sub_spaces[entry["observation"]])
                if step.output in sub_spaces:
                    raise ConfigurationError(
                        f"pre_processor_mapping[{index}] would write observation {step.output!r}, which sub-step "
                        f"{step_key!r} already has; drop the duplicate entry or set keep_original: false earlier"
                    )
                _apply_step(sub_spaces, step, step.preprocessor.processed_space())
                pipeline.append(step)
                used[index] = True
            self._pipelines[step_key] = pipeline
            self._observation_spaces_dict[step_key] = ordered_dict_space(sub_spaces)
        _check_all_used(entries, used, env.observation_spaces_dict)
        self._only_pipeline: Optional[list[_Step]] = (
            next(iter(self._pipelines.values())) if len(self._pipelines) == 1 else None
        )

    @property
    def observation_spaces_dict(self) -> dict[StepKeyType, spaces.Dict]:
        """Pre-processed observation space per sub-step key."""
        return self._observation_spaces_dict

    def observation(self, observation: dict[str, Any]) -> dict[str, Any]:
        """Pre-processes the observation of the actor that acts next."""
        pipeline = self._only_pipeline
        if pipeline is None:
            pipeline = self._pipelines[self.env.actor_id()[0]]
        return _run_pipeline(pipeline, observation)

    def get_observation_and_action_dicts(
        self, maze_state: Any, maze_action: Any, first_step_in_episode: bool
    ) -> tuple[Optional[dict[StepKeyType, Any]], Optional[dict[StepKeyType, Any]]]:
        """Pre-processes each sub-step's converted observation with that sub-step's pipeline."""
        observations, actions = self.env.get_observation_and_action_dicts(
            maze_state, maze_action, first_step_in_episode
        )
        if observations is not None:
            observations = {key: _run_pipeline(self._pipelines[key], value) for key, value in observations.items()}
        return observations, actions


def _run_pipeline(pipeline: list[_Step], observation: dict[str, Any]) -> dict[str, Any]:
    processed = dict(observation)
    for step in pipeline:
        _apply_step(processed, step, step.preprocessor.process(processed[step.observation]))
    return processed


def _apply_step(values: dict[str, ValueType], step: _Step, output: ValueType) -> None:
    """Adds ``output`` under the step's output key (to spaces or to values alike)."""
    values[step.output] = output
    if not step.keep_original:
        del values[step.observation]


def _checked_entry(index: int, entry: Any) -> dict[str, Any]:
    if not isinstance(entry, Mapping):
        raise ConfigurationError(
            f"pre_processor_mapping[{index}] must be a mapping with keys {list(_ENTRY_KEYS)}, got {entry!r}"
        )
    unknown = [key for key in entry if key not in _ENTRY_KEYS]
    missing = [key for key in ("observation", "_target_") if key not in entry]
    if unknown or missing:
        raise ConfigurationError(
            f"pre_processor_mapping[{index}] = {dict(entry)!r}: unknown keys {unknown}, missing keys {missing}. "
            f"An entry has the keys {list(_ENTRY_KEYS)} (keep_original and config are optional)"
        )
    config = entry.get("config") or {}
    if not isinstance(config, Mapping):
        raise ConfigurationError(f"pre_processor_mapping[{index}].config must be a mapping, got {config!r}")
    return {**entry, "keep_original": bool(entry.get("keep_original", False)), "config": dict(config)}


def _build_step(index: int, entry: dict[str, Any], space: spaces.Space) -> _Step:
    preprocessor = instantiate_for_space(
        _FACTORY,
        entry["_target_"],
        space,
        entry["config"],
        f"pre_processor_mapping[{index}] (observation {entry['observation']!r})",
    )
    output = f"{entry['observation']}-{preprocessor.tag()}"
    return _Step(entry["observation"], output, preprocessor, entry["keep_original"])


def _check_all_used(entries: list[dict[str, Any]], used: list[bool], original: Mapping[StepKeyType, Any]) -> None:
    for index, entry in enumerate(entries):
        if not used[index]:
            available = {step_key: list(space.spaces) for step_key, space in original.items()}
            raise ConfigurationError(
                f"pre_processor_mapping[{index}] names observation {entry['observation']!r}, which no sub-step has "
                f"at that point of the cascade. The env's observation keys are {available}; keys written by "
                "earlier entries are '<observation>-<tag>'"
            )
