"""Interface of template model builders and the parsing of their modality config."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple, Optional

from maze.env.errors import ConfigurationError
from maze.env.utils.factory import resolve_target, to_plain_config
from maze.perception.blocks.base import PerceptionBlock
from torch import nn

__all__ = ["BaseModelBuilder", "ModalityBlock", "RESERVED_MODALITIES"]

RESERVED_MODALITIES = ("hidden", "recurrence")
"""Modality config keys a builder uses for its preset blocks (``{}`` or ``~`` disables one)."""


class ModalityBlock(NamedTuple):
    """A block class and its parameters, from one ``modality_config`` entry."""

    block_type: type[PerceptionBlock]
    block_params: dict[str, Any]


class BaseModelBuilder(ABC):
    """Builds policy, critic and Q networks from observation shapes, following an architecture template.

    Args:
        observation_modality_mapping: Observation key -> modality name (e.g. ``feature``, ``image``).
        modality_config: Modality name -> ``{block_type: <dotted path>, block_params: {...}}``;
            the reserved keys ``hidden`` and ``recurrence`` configure the preset blocks
            (``{}`` or ``~`` leaves them out).
        shared_embedding_keys: Tensor names the policy exposes and the critic consumes
            (e.g. ``['latent']``); ``~`` or ``[]`` for separate networks.

    Raises:
        ConfigurationError: For a modality without config, an unknown block type or malformed entries.
    """

    def __init__(
        self,
        observation_modality_mapping: Mapping[str, str],
        modality_config: Mapping[str, Any],
        shared_embedding_keys: Optional[Sequence[str]] = None,
    ) -> None:
        self.observation_modality_mapping = dict(to_plain_config(observation_modality_mapping) or {})
        config = dict(to_plain_config(modality_config) or {})
        self.shared_embedding_keys = list(to_plain_config(shared_embedding_keys) or [])
        for key, modality in self.observation_modality_mapping.items():
            if modality in RESERVED_MODALITIES:
                raise ConfigurationError(
                    f"observation_modality_mapping maps {key!r} to {modality!r}, a reserved modality key "
                    f"{list(RESERVED_MODALITIES)}; pick another modality name"
                )
            if not config.get(modality):
                raise ConfigurationError(
                    f"observation {key!r} has modality {modality!r}, which modality_config does not configure "
                    f"(configured: {sorted(config)}); add modality_config.{modality}.block_type"
                )
        self.modalities: dict[str, Optional[ModalityBlock]] = {
            name: _parse_modality(name, entry) for name, entry in config.items()
        }
        for reserved in RESERVED_MODALITIES:
            self.modalities.setdefault(reserved, None)

    @abstractmethod
    def policy_net(
        self, obs_shapes: Mapping[str, Sequence[int]], action_logits_shapes: Mapping[str, Sequence[int]]
    ) -> nn.Module:
        """A network mapping observations to the logits of every action head (plus shared embeddings)."""

    @abstractmethod
    def critic_net(self, obs_shapes: Mapping[str, Sequence[int]]) -> nn.Module:
        """A network mapping observations (and shared embeddings) to ``{'value': [B, 1]}``."""

    @abstractmethod
    def state_action_critic_net(
        self, obs_shapes: Mapping[str, Sequence[int]], output_shapes: Mapping[str, Sequence[int]]
    ) -> nn.Module:
        """A Q network mapping observations and action inputs to the outputs in ``output_shapes``."""


def _parse_modality(name: str, entry: Any) -> Optional[ModalityBlock]:
    """Parses one ``modality_config`` entry (None/``{}`` for a disabled preset)."""
    if not entry:
        return None
    if not isinstance(entry, Mapping) or "block_type" not in entry or set(entry) - {"block_type", "block_params"}:
        raise ConfigurationError(
            f"modality_config.{name} must be {{block_type: <dotted path>, block_params: {{...}}}} (or {{}} for the "
            f"reserved {list(RESERVED_MODALITIES)}), got {entry!r}"
        )
    block_type = entry["block_type"]
    if isinstance(block_type, str):
        try:
            block_type = resolve_target(block_type, ("maze.perception.blocks",))
        except ConfigurationError as error:
            raise ConfigurationError(f"modality_config.{name}.block_type: {error}") from None
    if not (isinstance(block_type, type) and issubclass(block_type, PerceptionBlock)):
        raise ConfigurationError(f"modality_config.{name}.block_type must name a PerceptionBlock, got {block_type!r}")
    params = entry.get("block_params") or {}
    if not isinstance(params, Mapping):
        raise ConfigurationError(f"modality_config.{name}.block_params must be a mapping, got {params!r}")
    return ModalityBlock(block_type, dict(params))
