"""Builds the networks of policy and critic composers from configs, classes or factory callables."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import torch
from maze.env.errors import ConfigurationError
from maze.env.utils.factory import ConfigType, Factory, to_plain_config
from torch import nn

__all__ = ["dry_run_output_shapes", "instantiate_networks"]


def instantiate_networks(
    networks: Sequence[ConfigType],
    groups: Mapping[Any, Sequence[Any]],
    shape_kwargs: Callable[[Any], dict[str, Any]],
    owner: str,
) -> dict[Any, nn.Module]:
    """Builds one network per key.

    Args:
        networks: Network configs (``_target_`` mappings), classes or factory callables: one
            for all groups, or one per group (in group order).
        groups: Group (sub-step key) -> the network keys of that group (e.g. one per agent).
        shape_kwargs: Network key -> the shape arguments for the constructor (``obs_shapes``, ...).
        owner: The composer name, for error messages.

    Returns:
        Network key -> freshly built network (every key gets its own parameters).

    Raises:
        ConfigurationError: For a wrong number of configs or a config that does not build an ``nn.Module``.
    """
    networks = to_plain_config(networks)
    if networks is None or isinstance(networks, (str, Mapping)) or not isinstance(networks, Sequence):
        networks = [] if networks is None else [networks]
    if len(networks) not in (1, len(groups)):
        raise ConfigurationError(
            f"{owner}: got {len(networks)} network configs for the sub-steps {list(groups)}; give one config for all "
            f"of them or one per sub-step"
        )
    factory = Factory(nn.Module)
    built: dict[Any, nn.Module] = {}
    for index, keys in enumerate(groups.values()):
        config = networks[0] if len(networks) == 1 else networks[index]
        for key in keys:
            try:
                built[key] = factory.instantiate(config, **shape_kwargs(key))
            except ConfigurationError as error:
                raise ConfigurationError(f"{owner}, network for {key!r}: {error}") from None
    return built


def dry_run_output_shapes(network: nn.Module, obs_shapes: Mapping[str, Sequence[int]]) -> dict[str, tuple[int, ...]]:
    """Runs a network once on zero inputs ``[1, *shape]`` (eval mode, no grad) and returns its output shapes.

    Returns:
        Output key -> shape without the batch dim.

    Raises:
        ConfigurationError: If the network does not return a dict of tensors.
    """
    parameter = next(network.parameters(), None)
    device = parameter.device if parameter is not None else torch.device("cpu")
    dummy = {key: torch.zeros((1, *shape), device=device) for key, shape in obs_shapes.items()}
    modes = [(module, module.training) for module in network.modules()]
    network.eval()
    try:
        with torch.no_grad():
            output = network(dummy)
    finally:
        for module, training in modes:
            module.training = training
    if not isinstance(output, Mapping) or not all(isinstance(value, torch.Tensor) for value in output.values()):
        raise ConfigurationError(
            f"network {type(network).__name__} must return a dict of tensors, got {type(output).__name__}"
        )
    return {key: tuple(value.shape[1:]) for key, value in output.items()}
