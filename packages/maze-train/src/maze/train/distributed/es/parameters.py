"""Flat parameter vectors of a torch policy: what ES perturbs, ships to its workers and updates."""

from __future__ import annotations

from typing import Any

import torch
from torch.nn.utils import parameters_to_vector, vector_to_parameters

__all__ = ["get_flat_parameters", "set_flat_parameters"]


def get_flat_parameters(policy: Any) -> torch.Tensor:
    """The parameters of all sub-policies (networks) of ``policy`` as one flat vector.

    Args:
        policy: A torch model (``parameters()`` returns its parameters in a fixed order).

    Returns:
        ``[n_parameters]`` copy of the parameters (detached).
    """
    return parameters_to_vector(policy.parameters()).detach().clone()


def set_flat_parameters(policy: Any, flat: torch.Tensor) -> None:
    """Overwrites the parameters of all sub-policies of ``policy`` with the ``[n_parameters]`` vector ``flat``."""
    with torch.no_grad():
        vector_to_parameters(torch.as_tensor(flat, dtype=torch.float32), policy.parameters())
