"""Interface of template model builders and the parsing of their modality config."""

from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple, Optional

from maze.env.errors import ConfigurationError
from maze.env.utils.factory import resolve_target, to_plain_config
from maze.perception.blocks.base import PerceptionBlock
from maze.perception.blocks.feed_forward.dense import DenseBlock
from maze.perception.weight_init import HIDDEN_GAINS, make_module_init
from torch import nn

__all__ = ["BaseModelBuilder", "ModalityBlock", "RESERVED_MODALITIES", "with_hidden_units"]

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
        weight_init: The initialisation scheme of the networks' layers: ``normc`` (each output
            unit's weights have norm 1 in hidden layers) or ``orthogonal`` (gain ``sqrt(2)`` in hidden
            layers, as stable-baselines3 and the RL-Zoo); either way policy heads start with gain 0.01
            (see :mod:`maze.perception.weight_init`).
        value_head_gain: The gain of the critics' output heads (state values and Q values). 1.0 gives the
            untrained critic values of the inputs' scale; a small gain such as 0.01 starts it near 0 for
            every observation. With return-based reward scaling the value targets are near unit scale,
            so a critic over large raw inputs (tens to hundreds) starts with errors far larger
            than the differences between the scaled rewards, and its advantages are noise until it fits
            (measured on the flat Cutting-2D tutorial env: PPO avoided the rare valid actions for good).

    Raises:
        ConfigurationError: For a modality without config, an unknown block type or malformed entries,
            or an unknown ``weight_init``.
    """

    def __init__(
        self,
        observation_modality_mapping: Mapping[str, str],
        modality_config: Mapping[str, Any],
        shared_embedding_keys: Optional[Sequence[str]] = None,
        weight_init: str = "normc",
        value_head_gain: float = 1.0,
    ) -> None:
        if weight_init not in HIDDEN_GAINS:
            raise ConfigurationError(
                f"model_builder.weight_init={weight_init!r} is not a known scheme; use one of {', '.join(HIDDEN_GAINS)}"
            )
        if not value_head_gain > 0:
            raise ConfigurationError(
                f"model_builder.value_head_gain={value_head_gain!r} must be positive, e.g. 1.0 or 0.01"
            )
        self.weight_init = weight_init
        self.value_head_gain = float(value_head_gain)
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

    def initialize(self, net: nn.Module, heads: Sequence[nn.Module], head_gain: float) -> None:
        """Initialises ``net`` with the :attr:`weight_init` scheme: its ``heads`` with ``head_gain``, the rest as hidden layers.

        Args:
            net: The whole network.
            heads: Its output heads.
            head_gain: Their gain (0.01 for policy heads, :attr:`value_head_gain` for value heads).
        """
        hidden_gain = HIDDEN_GAINS[self.weight_init]
        net.apply(make_module_init(self.weight_init, hidden_gain))
        if head_gain != hidden_gain:
            for head in heads:
                head.apply(make_module_init(self.weight_init, head_gain))

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


def with_hidden_units(builder_config: Mapping[str, Any], hidden_units: Sequence[int]) -> dict[str, Any]:
    """A template builder config whose dense layers from the observations to the latent are ``hidden_units``.

    The first size becomes the ``hidden_units`` of every observation modality built by a
    :class:`~maze.perception.blocks.DenseBlock` (other modalities, e.g. convolutions, keep theirs),
    the remaining sizes those of the ``hidden`` preset, which is left out for a single size.
    ``[64, 64]`` on ``model=vector_obs`` thus builds two 64-unit layers, like stable-baselines3's
    ``net_arch=[64, 64]``.

    Args:
        builder_config: The ``model_builder`` config (``modality_config`` as in :class:`BaseModelBuilder`).
        hidden_units: The layer sizes, at least one.

    Returns:
        A changed copy of ``builder_config``.

    Raises:
        ConfigurationError: For no list of integer sizes (e.g. a single number), no sizes, no dense
            observation modality, or more than one size without a dense ``hidden`` preset.
    """
    is_list = isinstance(hidden_units, Sequence) and not isinstance(hidden_units, (str, bytes))
    if not is_list or not all(_is_size(size) for size in hidden_units):
        example = [hidden_units] if _is_size(hidden_units) else [64, 64]
        raise ConfigurationError(f"model.hidden_units={hidden_units!r} must be a list of layer sizes, e.g. {example}")
    sizes = [int(size) for size in hidden_units]
    if not sizes or min(sizes) < 1:
        raise ConfigurationError(f"model.hidden_units={list(hidden_units)!r} needs at least one positive layer size")
    config = dict(to_plain_config(builder_config))
    modalities = {name: dict(entry or {}) for name, entry in dict(config.get("modality_config") or {}).items()}

    def dense(name: str) -> bool:
        parsed = _parse_modality(name, modalities.get(name))
        return parsed is not None and issubclass(parsed.block_type, DenseBlock)

    observed = set(dict(config.get("observation_modality_mapping") or {}).values())
    targets = [name for name in modalities if name in observed and dense(name)]
    if not targets:
        raise ConfigurationError(
            "model.hidden_units sets the layers of the dense observation modalities, but the model_builder has none "
            f"(modalities: {sorted(observed)}); set their block_params.hidden_units in modality_config instead"
        )
    rest = sizes[1:]
    if rest and not dense("hidden"):
        raise ConfigurationError(
            f"model.hidden_units={sizes}: sizes after the first go to the hidden preset, but modality_config.hidden "
            "is no DenseBlock; give one size or configure modality_config.hidden"
        )
    for name in targets:
        modalities[name]["block_params"] = {**(modalities[name].get("block_params") or {}), "hidden_units": sizes[:1]}
    if rest:
        modalities["hidden"]["block_params"] = {
            **(modalities["hidden"].get("block_params") or {}),
            "hidden_units": rest,
        }
    else:
        modalities["hidden"] = {}
    config["modality_config"] = modalities
    return config


def _is_size(value: Any) -> bool:
    """Whether ``value`` is an integer layer size (``True`` and ``32.5`` are not)."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)
