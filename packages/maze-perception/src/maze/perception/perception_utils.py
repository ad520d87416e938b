"""Helpers between gymnasium spaces, numpy structures and torch tensors."""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet
from typing import Any, Optional, Union

import numpy as np
import torch
from gymnasium import spaces
from maze.env.errors import ConfigurationError
from maze.env.utils.spaces import ordered_dict_space

__all__ = [
    "Q_VALUE_KEY",
    "common_spaces",
    "convert_to_numpy",
    "convert_to_torch",
    "discrete_observation_keys",
    "flatten_spaces",
    "observation_to_torch",
    "observation_spaces_to_in_shapes",
    "resolve_device",
    "stack_and_flatten_spaces",
    "state_action_critic_shapes",
]

_warned_cuda_fallback = False

Q_VALUE_KEY = "q_value"
"""The output of a Q(s, a) network (``[*batch, 1]``) when some action heads are network inputs."""


def state_action_critic_shapes(
    action_space: spaces.Dict,
) -> tuple[dict[str, tuple[int, ...]], dict[str, tuple[int, ...]]]:
    """The action inputs and outputs of a Q network for a dict action space.

    A ``Discrete(n)`` head is valued for all its actions at once: output ``<head>_q_values``
    ``(n,)``. Every other head (Box, MultiBinary, MultiDiscrete) is a network input under
    its own name, and the network then returns ``q_value`` ``(1,)``.

    Returns:
        ``(action input shapes, output shapes)``.
    """
    inputs = {
        head: tuple(int(dim) for dim in space.shape)
        for head, space in action_space.items()
        if not isinstance(space, spaces.Discrete)
    }
    outputs = {
        f"{head}_q_values": (int(space.n),)
        for head, space in action_space.items()
        if isinstance(space, spaces.Discrete)
    }
    if inputs:
        outputs[Q_VALUE_KEY] = (1,)
    return inputs, outputs


def resolve_device(device: Union[str, torch.device, None]) -> torch.device:
    """Turns a device request into a ``torch.device``; CUDA without CUDA falls back to CPU.

    The fallback warns once per process (a ``RuntimeWarning`` naming the requested device).

    Args:
        device: ``"cpu"``, ``"cuda"``, ``"cuda:1"``, a ``torch.device`` or None (CPU).

    Raises:
        ConfigurationError: For a string torch does not understand as a device.
    """
    global _warned_cuda_fallback
    try:
        resolved = torch.device("cpu" if device is None else device)
    except (RuntimeError, TypeError) as error:
        raise ConfigurationError(f"device {device!r} is not a torch device (use 'cpu' or 'cuda'): {error}") from None
    if resolved.type == "cuda" and not torch.cuda.is_available():
        if not _warned_cuda_fallback:
            warnings.warn(
                f"device {str(resolved)!r} was requested but CUDA is not available; using 'cpu' instead",
                RuntimeWarning,
                stacklevel=2,
            )
            _warned_cuda_fallback = True
        return torch.device("cpu")
    return resolved


def _shape_of(space: spaces.Space, where: str) -> tuple[int, ...]:
    if isinstance(space, spaces.Discrete):
        return (1,)
    if space.shape is None:
        raise ConfigurationError(f"observation {where}: {space!r} has no fixed shape; use Box/Discrete/MultiBinary")
    return tuple(int(dim) for dim in space.shape)


def observation_spaces_to_in_shapes(
    observation_spaces_dict: Mapping[Any, spaces.Dict],
) -> dict[Any, dict[str, tuple[int, ...]]]:
    """The network input shapes (without batch dims) of every sub-step's observations.

    Args:
        observation_spaces_dict: Sub-step key -> dict observation space.

    Returns:
        Sub-step key -> observation key -> shape (``(1,)`` for a ``Discrete`` observation).
    """
    return {
        step_key: {key: _shape_of(space, f"{key!r} of sub-step {step_key!r}") for key, space in dict_space.items()}
        for step_key, dict_space in observation_spaces_dict.items()
    }


def flatten_spaces(dict_spaces: Iterable[spaces.Dict]) -> spaces.Dict:
    """Merges dict spaces (e.g. of consecutive sub-steps) into one dict holding every key once.

    Raises:
        ConfigurationError: If a key occurs in several spaces with different sub-spaces.
    """
    merged: dict[str, spaces.Space] = {}
    for dict_space in dict_spaces:
        for key, space in dict_space.items():
            if key in merged and merged[key] != space:
                raise ConfigurationError(
                    f"flatten_spaces: key {key!r} has two different spaces, {merged[key]!r} and {space!r}; "
                    "rename one of them or use stack_and_flatten_spaces"
                )
            merged[key] = space
    return ordered_dict_space(merged)


def common_spaces(dict_spaces: Iterable[spaces.Dict]) -> spaces.Dict:
    """The keys every dict space has (in the order of the first space), e.g. those all sub-steps observe.

    Raises:
        ConfigurationError: If there is no common key, or a common key has different sub-spaces.
    """
    dict_spaces = list(dict_spaces)
    keys = [key for key in dict_spaces[0].spaces if all(key in other.spaces for other in dict_spaces[1:])]
    if not keys:
        raise ConfigurationError(
            f"no key is common to all of the dict spaces {[list(space.spaces) for space in dict_spaces]}; a shared "
            "critic needs such keys (or stack_observations=True, or one critic per sub-step)"
        )
    return flatten_spaces(spaces.Dict([(key, space[key]) for key in keys]) for space in dict_spaces)


def stack_and_flatten_spaces(dict_spaces: Iterable[spaces.Dict]) -> spaces.Dict:
    """Merges dict spaces into one; a key present in ``k > 1`` spaces becomes a stacked ``Box`` ``(k, *shape)``.

    Raises:
        ConfigurationError: If a repeated key is no ``Box`` or has different shapes.
    """
    collected: dict[str, list[spaces.Space]] = {}
    for dict_space in dict_spaces:
        for key, space in dict_space.items():
            collected.setdefault(key, []).append(space)
    merged: dict[str, spaces.Space] = {}
    for key, parts in collected.items():
        if len(parts) == 1:
            merged[key] = parts[0]
            continue
        if not all(isinstance(part, spaces.Box) and part.shape == parts[0].shape for part in parts):
            raise ConfigurationError(
                f"stack_and_flatten_spaces: key {key!r} occurs {len(parts)} times with spaces {parts}; only Box "
                "spaces of equal shape can be stacked"
            )
        merged[key] = spaces.Box(
            low=np.stack([part.low for part in parts]),
            high=np.stack([part.high for part in parts]),
            dtype=parts[0].dtype,
        )
    return ordered_dict_space(merged)


_FLOAT32 = np.dtype(np.float32)


def _to_tensor(value: Any, device: torch.device) -> torch.Tensor:
    """One observation entry as a float32 tensor on ``device`` (numpy float32 arrays are wrapped, not copied)."""
    if isinstance(value, np.ndarray):
        if value.dtype != _FLOAT32:
            value = value.astype(np.float32)
        else:
            flags = value.flags
            if not (flags.writeable and flags.c_contiguous):
                value = np.array(value)
        tensor = torch.from_numpy(value)
    else:
        tensor = value if isinstance(value, torch.Tensor) else torch.as_tensor(value, dtype=torch.float32)
        if tensor.dtype != torch.float32:
            tensor = tensor.float()
    return tensor if tensor.device == device else tensor.to(device)


def observation_to_torch(
    observation: Mapping[str, Any], device: torch.device, discrete_keys: AbstractSet[str] = frozenset()
) -> dict[str, torch.Tensor]:
    """An observation dict (numpy arrays, numbers or tensors, with or without batch dims) as float32 tensors.

    Args:
        observation: Key -> value ``[*batch, *shape]``.
        device: Where the tensors go.
        discrete_keys: Keys of ``Discrete`` observations: their values are integers ``[*batch]``
            and get the trailing dim of their network input shape ``(1,)``: ``[*batch, 1]``.

    Returns:
        Key -> float32 tensor.
    """
    tensors = {key: _to_tensor(value, device) for key, value in observation.items()}
    if discrete_keys:
        for key in discrete_keys & tensors.keys():
            tensors[key] = tensors[key].unsqueeze(-1)
    return tensors


def discrete_observation_keys(observation_spaces_dict: Mapping[Any, spaces.Dict]) -> frozenset[str]:
    """The keys of ``Discrete`` observations (for :func:`observation_to_torch`).

    Raises:
        ConfigurationError: If a key is Discrete in one sub-step but not in another.
    """
    kinds: dict[str, set[bool]] = {}
    for dict_space in observation_spaces_dict.values():
        for key, space in dict_space.spaces.items():
            kinds.setdefault(key, set()).add(isinstance(space, spaces.Discrete))
    mixed = [key for key, kind in kinds.items() if len(kind) > 1]
    if mixed:
        raise ConfigurationError(
            f"observations {mixed} are Discrete in some sub-steps and not in others; rename them per space"
        )
    return frozenset(key for key, kind in kinds.items() if True in kind)


def convert_to_torch(
    struct: Any, device: Union[str, torch.device, None], cast: Optional[torch.dtype], in_place: bool = False
) -> Any:
    """Converts numpy arrays and numbers inside dicts, lists and tuples to tensors.

    Numpy arrays are wrapped without a copy where the dtype and device allow it.

    Args:
        struct: An array, number, tensor, or a dict/list/tuple of them (nested).
        device: The target device.
        cast: A dtype for every tensor (e.g. ``torch.float32``), or None to keep dtypes.
        in_place: Replace the values of dicts and lists in place instead of building new ones.

    Returns:
        The same structure with tensors as leaves.
    """
    if isinstance(struct, torch.Tensor):
        return struct.to(device=device, dtype=cast or struct.dtype)
    if isinstance(struct, np.ndarray):
        array = struct if struct.dtype != object else struct.astype(np.float32)
        return torch.from_numpy(np.ascontiguousarray(array)).to(device=device, dtype=cast)
    if isinstance(struct, (bool, int, float, np.number, np.bool_)):
        return torch.as_tensor(struct, device=device, dtype=cast)
    return _map_container(struct, lambda value: convert_to_torch(value, device, cast, in_place), in_place)


def convert_to_numpy(struct: Any, cast: Optional[np.dtype] = None, in_place: bool = False) -> Any:
    """Converts tensors inside dicts, lists and tuples to numpy arrays (detached, on the CPU).

    Args:
        struct: A tensor, or a dict/list/tuple of them (nested); other leaves pass through.
        cast: A numpy dtype for every converted array, or None to keep dtypes.
        in_place: Replace the values of dicts and lists in place instead of building new ones.
    """
    if isinstance(struct, torch.Tensor):
        array = struct.detach().cpu().numpy()
        return array.astype(cast) if cast is not None else array
    if isinstance(struct, np.ndarray):
        return struct.astype(cast) if cast is not None else struct
    return _map_container(struct, lambda value: convert_to_numpy(value, cast, in_place), in_place)


def _map_container(struct: Any, convert: Any, in_place: bool) -> Any:
    if isinstance(struct, dict):
        if in_place:
            for key, value in struct.items():
                struct[key] = convert(value)
            return struct
        return {key: convert(value) for key, value in struct.items()}
    if isinstance(struct, Mapping):
        return {key: convert(value) for key, value in struct.items()}
    if isinstance(struct, list):
        if in_place:
            struct[:] = [convert(value) for value in struct]
            return struct
        return [convert(value) for value in struct]
    if isinstance(struct, tuple):
        return type(struct)(*map(convert, struct)) if hasattr(struct, "_fields") else tuple(map(convert, struct))
    return struct
