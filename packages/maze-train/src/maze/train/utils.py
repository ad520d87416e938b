"""Small helpers of the trainers: stacking dicts of arrays, gradient norms, attributes delegated to a part."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Union

import numpy as np
import torch

__all__ = [
    "compute_gradient_norm",
    "delegated",
    "stack_numpy_dict_list",
    "stack_torch_dict_list",
    "unstack_numpy_list_dict",
]


def stack_numpy_dict_list(dict_list: Sequence[Mapping[str, Any]]) -> dict[str, np.ndarray]:
    """Stacks dicts with the same keys into one dict of arrays.

    Args:
        dict_list: ``n`` dicts, key -> value of shape ``[*shape]``.

    Returns:
        Key -> ``[n, *shape]``.
    """
    return {key: np.stack([item[key] for item in dict_list]) for key in dict_list[0]}


def unstack_numpy_list_dict(list_dict: Mapping[str, np.ndarray]) -> list[dict[str, np.ndarray]]:
    """The inverse of :func:`stack_numpy_dict_list`: key -> ``[n, *shape]`` becomes ``n`` dicts of ``[*shape]``."""
    keys = list(list_dict)
    if not keys:
        return []
    return [{key: list_dict[key][index] for key in keys} for index in range(len(list_dict[keys[0]]))]


def stack_torch_dict_list(
    dict_list: Sequence[Mapping[str, Any]], device: Union[str, torch.device] = "cpu"
) -> dict[str, torch.Tensor]:
    """Like :func:`stack_numpy_dict_list`, as tensors on ``device`` (key -> ``[n, *shape]``)."""
    return {
        key: torch.as_tensor(np.asarray(value), device=device)
        for key, value in stack_numpy_dict_list(dict_list).items()
    }


def compute_gradient_norm(parameters: Iterable[torch.nn.Parameter]) -> float:
    """The L2 norm of the gradients of ``parameters`` (those without a gradient count as 0)."""
    grads = [parameter.grad for parameter in parameters if parameter.grad is not None]
    if not grads:
        return 0.0
    return float(torch.linalg.vector_norm(torch.stack(torch._foreach_norm(grads))))


def delegated(part: str, name: str, doc: str) -> property:
    """A property that reads and writes ``self.<part>.<name>``, e.g. a trainer's ``guard`` that is its collector's.

    Args:
        part: The attribute holding the part (e.g. ``"collector"``).
        name: The part's attribute.
        doc: The property's docstring.
    """

    def get(self: Any) -> Any:
        return getattr(getattr(self, part), name)

    def set_(self: Any, value: Any) -> None:
        setattr(getattr(self, part), name, value)

    return property(get, set_, doc=doc)
