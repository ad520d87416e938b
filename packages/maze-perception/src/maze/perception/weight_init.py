"""Weight initialisation helpers: the normc and orthogonal schemes and sigmoid bias for Bernoulli heads."""

from __future__ import annotations

import math
from typing import Any, Callable

import torch
from maze.env.errors import ConfigurationError
from torch import nn

__all__ = [
    "HIDDEN_GAINS",
    "compute_sigmoid_bias",
    "make_module_init",
    "make_module_init_normc",
    "make_module_init_orthogonal",
]

HIDDEN_GAINS = {"normc": 1.0, "orthogonal": math.sqrt(2.0)}
"""The schemes of :func:`make_module_init` and the gain each gives hidden layers.

Output heads get the same gains under both (0.01 for policy heads, 1.0 for value heads unless
the builder's ``value_head_gain`` says otherwise);
``orthogonal`` with ``sqrt(2)`` for hidden layers is the initialisation of stable-baselines3
and the RL-Zoo.
"""


def _layer_init(init_weight: Callable[[torch.Tensor], Any]) -> Callable[[nn.Module], None]:
    """An init function for ``module.apply``: ``init_weight`` on linear and convolution weights, zero biases."""

    def init(module: nn.Module) -> None:
        if not isinstance(module, (nn.Linear, nn.modules.conv._ConvNd)):
            return
        with torch.no_grad():
            init_weight(module.weight)
            if module.bias is not None:
                module.bias.zero_()

    return init


def make_module_init_normc(std: float = 1.0) -> Callable[[nn.Module], None]:
    """Builds an init function for ``module.apply`` that gives every output unit a weight norm of ``std``.

    Linear and convolution layers get Gaussian weights rescaled so that the weights feeding
    each output unit (a row of ``[out, in]``, or an output channel of ``[out, in, *kernel]``)
    have L2 norm ``std``; their biases are set to zero. Other modules are left alone.

    Args:
        std: The norm of each output unit's weight vector (e.g. 1.0 for hidden layers,
            0.01 for policy heads).

    Returns:
        A function taking one module, to be passed to ``nn.Module.apply``.
    """
    if not std > 0:
        raise ConfigurationError(f"make_module_init_normc: std must be positive, got {std!r}")

    def normc_(weight: torch.Tensor) -> None:
        rows = torch.randn_like(weight).reshape(weight.shape[0], -1)
        rows.mul_(std / rows.norm(dim=1, keepdim=True).clamp_min(1e-12))
        weight.copy_(rows.reshape_as(weight))

    return _layer_init(normc_)


def make_module_init_orthogonal(gain: float = 1.0) -> Callable[[nn.Module], None]:
    """Builds an init function for ``module.apply``: orthogonal weights scaled by ``gain``, zero biases.

    Linear and convolution layers get (semi-)orthogonal weight matrices (``torch.nn.init.orthogonal_``,
    a convolution's weight flattened to ``[out, in * kernel]``); other modules are left alone.

    Args:
        gain: The scale of the orthogonal matrix (e.g. ``sqrt(2)`` for hidden layers, 0.01 for
            policy heads, 1.0 for value heads).

    Returns:
        A function taking one module, to be passed to ``nn.Module.apply``.
    """
    if not gain > 0:
        raise ConfigurationError(f"make_module_init_orthogonal: gain must be positive, got {gain!r}")

    return _layer_init(lambda weight: nn.init.orthogonal_(weight, gain=gain))


def make_module_init(scheme: str, gain: float) -> Callable[[nn.Module], None]:
    """The init function of ``scheme`` (a key of :data:`HIDDEN_GAINS`) with ``gain``, for ``module.apply``.

    Args:
        scheme: ``normc`` (:func:`make_module_init_normc`, ``gain`` is the norm of each output
            unit's weights) or ``orthogonal`` (:func:`make_module_init_orthogonal`).
        gain: The scale of the weights.

    Raises:
        ConfigurationError: For an unknown scheme.
    """
    if scheme == "normc":
        return make_module_init_normc(gain)
    if scheme == "orthogonal":
        return make_module_init_orthogonal(gain)
    raise ConfigurationError(f"weight_init={scheme!r} is not a known scheme; use one of {', '.join(HIDDEN_GAINS)}")


def compute_sigmoid_bias(probability: float) -> float:
    """The bias ``b`` with ``sigmoid(b) == probability``, to start Bernoulli heads at a chosen rate.

    Args:
        probability: The initial probability of a 1, strictly between 0 and 1.

    Returns:
        ``log(p / (1 - p))`` (0.0 for ``p = 0.5``).
    """
    if not 0.0 < probability < 1.0:
        raise ConfigurationError(f"compute_sigmoid_bias: probability must lie in (0, 1), got {probability!r}")
    return math.log(probability / (1.0 - probability))
