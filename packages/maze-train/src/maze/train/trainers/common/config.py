"""AlgorithmConfig: the ``algorithm`` config group as a dataclass, keys mapping 1:1 onto fields."""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Mapping
from typing import Any, TypeVar

from maze.env.errors import ConfigurationError
from maze.env.utils.factory import to_plain_config

__all__ = ["AlgorithmConfig"]

ConfigT = TypeVar("ConfigT", bound="AlgorithmConfig")


@dataclasses.dataclass
class AlgorithmConfig:
    """Base of the algorithm configs; subclasses are dataclasses whose fields are the YAML keys."""

    @classmethod
    def from_config(cls: type[ConfigT], config: Any) -> ConfigT:
        """Builds the config from a mapping (dict or DictConfig), naming unknown keys.

        Raises:
            ConfigurationError: For keys that are no fields, with the closest field name.
        """
        if isinstance(config, cls):
            return config
        values = to_plain_config(config)
        if not isinstance(values, Mapping):
            raise ConfigurationError(f"{cls.__name__} needs a mapping of its keys, got {config!r}")
        fields = [field.name for field in dataclasses.fields(cls)]
        unknown = [key for key in values if key not in fields]
        if unknown:
            hints = [
                f"{key!r} (did you mean {match[0]!r}?)"
                if (match := difflib.get_close_matches(key, fields, 1))
                else repr(key)
                for key in unknown
            ]
            raise ConfigurationError(f"{cls.__name__} has no key {', '.join(hints)}; its keys are {', '.join(fields)}")
        return cls(**values)
