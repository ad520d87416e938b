"""The action/observation spaces and agent counts of an env, stored as plain data next to a model.

A checkpoint directory holds ``spaces_config.yaml`` (or ``.json``) so that a trained policy
can be rebuilt without the env, and so that loading it for an env with other spaces fails
with a message naming the first mismatching sub-step and key. The module needs no torch:
torch-free deployments (the ONNX policy of maze-deploy) check their spaces with it too.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Union

import numpy as np
import yaml
from gymnasium import spaces
from maze.env.core.actor import StepKeyType
from maze.env.errors import ConfigurationError
from maze.env.utils.files import atomic_write_bytes
from maze.env.utils.spaces import ordered_dict_space
from maze.env.utils.untrusted_files import load_untrusted_yaml

__all__ = ["SpacesConfig", "space_from_data", "space_to_data"]

FORMAT = "maze.spaces_config/1"


def _bounds(values: np.ndarray) -> Any:
    """A Box bound as plain data: one number when all entries are equal, else nested lists."""
    flat = values.ravel()
    if flat.size and np.all(flat == flat[0]):
        return flat[0].item()
    return values.tolist()


def space_to_data(space: spaces.Space) -> dict[str, Any]:
    """Plain data (YAML/JSON compatible) describing a gymnasium space.

    Raises:
        ConfigurationError: For space classes other than Box, Discrete, MultiDiscrete, MultiBinary and Dict.
    """
    if isinstance(space, spaces.Box):
        return {
            "type": "Box",
            "shape": list(space.shape),
            "dtype": str(space.dtype),
            "low": _bounds(space.low),
            "high": _bounds(space.high),
        }
    if isinstance(space, spaces.Discrete):
        return {"type": "Discrete", "n": int(space.n), "start": int(space.start)}
    if isinstance(space, spaces.MultiDiscrete):
        return {
            "type": "MultiDiscrete",
            "nvec": space.nvec.tolist(),
            "start": space.start.tolist(),
            "dtype": str(space.dtype),
        }
    if isinstance(space, spaces.MultiBinary):
        return {"type": "MultiBinary", "n": np.asarray(space.n).tolist()}
    if isinstance(space, spaces.Dict):
        return {"type": "Dict", "spaces": {key: space_to_data(sub) for key, sub in space.spaces.items()}}
    raise ConfigurationError(
        f"SpacesConfig cannot store a {type(space).__name__} space ({space!r}); supported: Box, Discrete, "
        "MultiDiscrete, MultiBinary and Dict"
    )


def space_from_data(data: Mapping[str, Any]) -> spaces.Space:
    """Rebuilds a space from :func:`space_to_data` output (Dict keys keep their stored order).

    Raises:
        ConfigurationError: For malformed data.
    """
    try:
        kind = data["type"]
        if kind == "Box":
            shape = tuple(data["shape"])
            dtype = np.dtype(data["dtype"])
            low = np.broadcast_to(np.asarray(data["low"], dtype=dtype), shape)
            high = np.broadcast_to(np.asarray(data["high"], dtype=dtype), shape)
            return spaces.Box(low=low, high=high, shape=shape, dtype=dtype)
        if kind == "Discrete":
            return spaces.Discrete(int(data["n"]), start=int(data.get("start", 0)))
        if kind == "MultiDiscrete":
            return spaces.MultiDiscrete(data["nvec"], dtype=np.dtype(data["dtype"]), start=data.get("start"))
        if kind == "MultiBinary":
            return spaces.MultiBinary(data["n"])
        if kind == "Dict":
            return ordered_dict_space({key: space_from_data(sub) for key, sub in data["spaces"].items()})
    except (KeyError, TypeError, ValueError) as error:
        raise ConfigurationError(f"malformed space data {dict(data)!r}: {error!r}") from None
    raise ConfigurationError(f"unknown space type {kind!r} in spaces data; expected Box, Discrete, ... or Dict")


def _dict_space(data: Mapping[str, Any], step_key: StepKeyType, kind: str) -> spaces.Dict:
    """The Dict space of one sub-step entry.

    Raises:
        ConfigurationError: If the stored space is no Dict space.
    """
    space = space_from_data(data)
    if not isinstance(space, spaces.Dict):
        raise ConfigurationError(
            f"malformed spaces config: the {kind} of sub-step {step_key!r} must be a Dict space, got {space!r}"
        )
    return space


@dataclass
class SpacesConfig:
    """The spaces of every sub-step of an env, plus its agent counts.

    Attributes:
        action_spaces_dict: Sub-step key -> dict action space.
        observation_spaces_dict: Sub-step key -> dict observation space.
        agent_counts_dict: Sub-step key -> number of agents acting in that sub-step.
    """

    action_spaces_dict: dict[StepKeyType, spaces.Dict]
    observation_spaces_dict: dict[StepKeyType, spaces.Dict]
    agent_counts_dict: dict[StepKeyType, int]

    @classmethod
    def from_env(cls, env: Any) -> SpacesConfig:
        """Reads the spaces of a structured env (anything with the three ``*_dict`` properties)."""
        return cls(
            action_spaces_dict=dict(env.action_spaces_dict),
            observation_spaces_dict=dict(env.observation_spaces_dict),
            agent_counts_dict=dict(env.agent_counts_dict),
        )

    def to_data(self) -> dict[str, Any]:
        """Plain data: a format tag and one entry per sub-step (keeps int and str step keys apart)."""
        return {
            "format": FORMAT,
            "sub_steps": [
                {
                    "step_key": key,
                    "action_space": space_to_data(self.action_spaces_dict[key]),
                    "observation_space": space_to_data(self.observation_spaces_dict[key]),
                    "agent_count": int(self.agent_counts_dict.get(key, 1)),
                }
                for key in self.action_spaces_dict
            ],
        }

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> SpacesConfig:
        """Rebuilds the config from :meth:`to_data` output.

        Raises:
            ConfigurationError: If the data has another format or is malformed (naming the missing key), or
                a sub-step's action or observation space is no Dict space.
        """
        if not isinstance(data, Mapping) or data.get("format") != FORMAT:
            raise ConfigurationError(
                f"not a spaces config: expected a mapping with format {FORMAT!r}, got "
                f"{data.get('format') if isinstance(data, Mapping) else type(data).__name__!r}"
            )
        if "sub_steps" not in data:
            raise ConfigurationError("malformed spaces config: missing key 'sub_steps'")
        result = cls({}, {}, {})
        for index, step in enumerate(data["sub_steps"]):
            try:
                key = step["step_key"]
                result.action_spaces_dict[key] = _dict_space(step["action_space"], key, "action_space")
                result.observation_spaces_dict[key] = _dict_space(step["observation_space"], key, "observation_space")
                result.agent_counts_dict[key] = int(step["agent_count"])
            except ConfigurationError:
                raise
            except KeyError as error:
                raise ConfigurationError(
                    f"malformed spaces config: sub_steps[{index}] has no key {error.args[0]!r}"
                ) from None
            except (TypeError, ValueError) as error:
                raise ConfigurationError(f"malformed spaces config: sub_steps[{index}]: {error}") from None
        return result

    def save(self, path: Union[str, Path]) -> None:
        """Writes the config atomically as YAML (or JSON when the file name ends with ``.json``)."""
        path = Path(path)
        data = self.to_data()
        text = json.dumps(data, indent=2) if path.suffix == ".json" else yaml.safe_dump(data, sort_keys=False)
        atomic_write_bytes(path, text.encode("utf-8"))

    @classmethod
    def load(cls, path: Union[str, Path]) -> SpacesConfig:
        """Reads a config written by :meth:`save` (YAML or JSON).

        Raises:
            FileNotFoundError: Naming the missing file.
            ConfigurationError: If the file holds no spaces config (e.g. a legacy pickle).
        """
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"spaces config file {str(path)!r} does not exist")
        try:
            data = load_untrusted_yaml(path)
        except (yaml.YAMLError, UnicodeDecodeError) as error:
            raise ConfigurationError(
                f"{str(path)!r} is not a YAML/JSON spaces config (pickled spaces are not loaded, as loading a pickle "
                f"runs code): {type(error).__name__}"
            ) from None
        try:
            return cls.from_data(data)
        except ConfigurationError as error:
            raise ConfigurationError(f"{str(path)!r}: {error}") from None

    def check_compatible(self, other: SpacesConfig, this: str = "checkpoint", that: str = "env") -> None:
        """Checks that ``other`` has the same sub-steps, spaces (and dict key order) and agent counts.

        Args:
            other: The spaces to compare with (e.g. those of the env a policy is loaded for).
            this: What ``self`` describes, for the message.
            that: What ``other`` describes, for the message.

        Raises:
            ConfigurationError: Naming the first mismatching sub-step and observation/action key.
        """
        if list(self.action_spaces_dict) != list(other.action_spaces_dict):
            raise ConfigurationError(
                f"spaces mismatch: the {this} has sub-steps {list(self.action_spaces_dict)}, the {that} has "
                f"{list(other.action_spaces_dict)}"
            )
        for step_key in self.action_spaces_dict:
            for kind, mine, theirs in (
                ("observation", self.observation_spaces_dict[step_key], other.observation_spaces_dict[step_key]),
                ("action", self.action_spaces_dict[step_key], other.action_spaces_dict[step_key]),
            ):
                for key in dict.fromkeys([*mine.spaces, *theirs.spaces]):
                    if mine.spaces.get(key) != theirs.spaces.get(key):
                        raise ConfigurationError(
                            f"spaces mismatch in sub-step {step_key!r}, {kind} key {key!r}: the {this} has "
                            f"{_summary(mine.spaces.get(key))}, the {that} has {_summary(theirs.spaces.get(key))}. "
                            "Load a checkpoint trained on this env, or build the env with the spaces of the "
                            f"{this} (the same env and wrappers config)"
                        )
                if list(mine.spaces) != list(theirs.spaces):
                    raise ConfigurationError(
                        f"spaces mismatch in sub-step {step_key!r}: the {this} orders the {kind} keys "
                        f"{list(mine.spaces)}, the {that} {list(theirs.spaces)}; networks concatenate them in this "
                        f"order, so build the env with the {this}'s key order"
                    )
            if self.agent_counts_dict.get(step_key) != other.agent_counts_dict.get(step_key):
                raise ConfigurationError(
                    f"spaces mismatch in sub-step {step_key!r}: the {this} has {self.agent_counts_dict.get(step_key)} "
                    f"agents, the {that} has {other.agent_counts_dict.get(step_key)}"
                )


def _summary(space: Optional[spaces.Space]) -> str:
    """A one-line description of a space for messages (a Box's bounds as ranges, not whole arrays)."""
    if not isinstance(space, spaces.Box):
        return repr(space)
    low, high = np.asarray(space.low), np.asarray(space.high)
    return (
        f"Box(shape {space.shape}, {space.dtype}, low {low.min():.4g}..{low.max():.4g}, "
        f"high {high.min():.4g}..{high.max():.4g})"
    )
