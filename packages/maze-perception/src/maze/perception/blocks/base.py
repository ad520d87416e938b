"""The perception block interface and the helpers every block shares.

A perception block is a :class:`torch.nn.Module` that maps a dictionary of named tensors
to a dictionary of named tensors. Its input shapes are declared without batch (or time)
dimensions, so blocks can infer their output shapes and be chained into inference graphs.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, Union

import torch
from maze.env.errors import ConfigurationError
from maze.env.utils.factory import resolve_target
from torch import nn
from torch.nn.modules import module as _torch_module

__all__ = [
    "call_module",
    "KeysType",
    "NonLinType",
    "PerceptionBlock",
    "ShapeType",
    "ShapesType",
    "check_positive_ints",
    "fetch_tensor",
    "negative_dim",
    "normalize_keys",
    "normalize_shapes",
    "resolve_non_lin",
    "has_no_own_dispatch",
    "no_global_dispatch",
    "runs_forward_directly",
]

KeysType = Union[str, Sequence[str]]
"""One tensor name or a list of tensor names."""

ShapeType = tuple[int, ...]
"""The shape of one tensor without batch (or time) dimensions."""

ShapesType = Union[Sequence[int], Sequence[Sequence[int]]]
"""One shape (for a single key) or one shape per key."""

NonLinType = Union[str, type[nn.Module]]
"""An activation class such as ``torch.nn.ReLU`` or its dotted path ``"torch.nn.ReLU"``."""


def normalize_keys(keys: KeysType, what: str) -> list[str]:
    """Turns one key or a sequence of keys into a non-empty list of unique strings.

    Args:
        keys: A tensor name or a sequence of tensor names.
        what: The argument name used in error messages (e.g. ``"in_keys"``).

    Raises:
        ConfigurationError: If ``keys`` is empty, holds non-strings or duplicates.
    """
    key_list = [keys] if isinstance(keys, str) else list(keys)
    if not key_list:
        raise ConfigurationError(f"{what} is empty: name at least one tensor")
    bad = [key for key in key_list if not isinstance(key, str) or not key]
    if bad:
        raise ConfigurationError(f"{what} must be non-empty strings, got {bad!r}")
    if len(set(key_list)) != len(key_list):
        raise ConfigurationError(f"{what} {key_list!r} names a tensor twice")
    return key_list


def _is_int(value: Any) -> bool:
    """True for Python and numpy-like integers (not bools)."""
    return not isinstance(value, bool) and hasattr(value, "__index__")


def normalize_shapes(in_shapes: ShapesType, num_keys: int, owner: str) -> list[ShapeType]:
    """Turns one shape or a list of shapes into one tuple of ints per input key.

    A flat sequence of ints (``(16,)``, ``[3, 64, 64]``, ``torch.Size``) is one shape and is
    only valid for a single key; a sequence of such sequences gives one shape per key.

    Args:
        in_shapes: The shape(s) without batch dimensions.
        num_keys: The number of input keys the shapes must match.
        owner: The block name used in error messages.

    Raises:
        ConfigurationError: If the number of shapes differs from ``num_keys`` or a
            dimension is not a positive integer.
    """
    shapes = list(in_shapes)
    if all(_is_int(dim) for dim in shapes):
        shape_list = [shapes]
    else:
        shape_list = [list(shape) for shape in shapes]
    result: list[ShapeType] = []
    for shape in shape_list:
        if not all(_is_int(dim) and int(dim) > 0 for dim in shape):
            raise ConfigurationError(f"{owner}: in_shapes entry {shape!r} must hold positive integers only")
        result.append(tuple(int(dim) for dim in shape))
    if len(result) != num_keys:
        raise ConfigurationError(
            f"{owner}: got {len(result)} in_shapes {result!r} for {num_keys} in_keys; give one shape per input key"
        )
    return result


def check_positive_ints(values: int | Sequence[int], what: str, owner: str) -> list[int]:
    """Checks that ``values`` is one positive int or a non-empty list of them and returns a list.

    Raises:
        ConfigurationError: Naming the owner and the argument.
    """
    result = [values] if _is_int(values) else list(values)
    if not result or not all(_is_int(value) and int(value) > 0 for value in result):
        raise ConfigurationError(f"{owner}: {what} must be a non-empty list of positive ints, got {values!r}")
    return [int(value) for value in result]


def negative_dim(dim: int, rank: int, what: str, owner: str) -> int:
    """Turns a dimension index into the shape without batch dims into a negative index.

    Negative indices count from the end and stay valid whatever leading batch/time dims a
    tensor has.

    Args:
        dim: The index into a shape of ``rank`` dims (negative counts from the end).
        rank: The rank of the shape without batch dims.
        what: The argument name used in error messages.
        owner: The block name used in error messages.

    Raises:
        ConfigurationError: If ``dim`` is out of range.
    """
    if not -rank <= dim < rank:
        raise ConfigurationError(
            f"{owner}: {what}={dim} is out of range for a shape of rank {rank} (without batch dims)"
        )
    return dim - rank if dim >= 0 else dim


def fetch_tensor(tensors: Mapping[str, torch.Tensor], key: str, owner: str) -> torch.Tensor:
    """Returns ``tensors[key]`` or raises a KeyError naming the owner and the available keys."""
    if key not in tensors:
        raise KeyError(f"{owner}: no tensor {key!r} among {sorted(tensors)}")
    return tensors[key]


def resolve_non_lin(non_lin: NonLinType) -> type[nn.Module]:
    """Resolves an activation given as a module class or a dotted path string.

    Args:
        non_lin: ``torch.nn.ReLU``, ``"torch.nn.ReLU"`` or a short ``torch.nn`` name such as ``"ReLU"``.

    Raises:
        ConfigurationError: If the path does not resolve to a ``torch.nn.Module`` subclass.
    """
    resolved = resolve_target(non_lin, search_modules=("torch.nn",)) if isinstance(non_lin, str) else non_lin
    if not (isinstance(resolved, type) and issubclass(resolved, nn.Module)):
        raise ConfigurationError(
            f"non_lin must be a torch.nn.Module class or its dotted path (e.g. 'torch.nn.ReLU'), got {non_lin!r}"
        )
    return resolved


class PerceptionBlock(nn.Module, ABC):
    """Interface of all perception blocks: a tensor dictionary in, a tensor dictionary out.

    Shapes are declared without batch dimensions. :meth:`out_shapes` runs one dry forward
    pass on zero tensors of the declared input shapes (in eval mode, without gradients) the
    first time it is called and caches the result; blocks that know their output shapes
    without running (inference and joint blocks) override it.

    Args:
        in_keys: Name(s) of the input tensors.
        out_keys: Name(s) of the output tensors.
        in_shapes: The input shape(s) without batch dimensions, one per input key.
    """

    def __init__(self, in_keys: KeysType, out_keys: KeysType, in_shapes: ShapesType):
        super().__init__()
        self.in_keys: list[str] = normalize_keys(in_keys, f"{type(self).__name__} in_keys")
        self.out_keys: list[str] = normalize_keys(out_keys, f"{type(self).__name__} out_keys")
        self.in_shapes: list[ShapeType] = normalize_shapes(in_shapes, len(self.in_keys), type(self).__name__)
        self._out_shapes_cache: list[ShapeType] | None = None

    @abstractmethod
    def forward(self, block_input: Mapping[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """Computes the output tensors.

        Args:
            block_input: At least the tensors named by ``in_keys``; each has the declared
                input shape, possibly behind leading batch/time dimensions.

        Returns:
            The tensors named by ``out_keys``.
        """

    def out_shapes(self) -> list[ShapeType]:
        """Returns the output shapes (without batch dimensions), one per output key."""
        if self._out_shapes_cache is None:
            self._out_shapes_cache = self._dry_run_out_shapes()
        return list(self._out_shapes_cache)

    def _dry_run_out_shapes(self) -> list[ShapeType]:
        """Runs the block once on zero inputs of the declared shapes and reads the output shapes."""
        parameter = next(self.parameters(), None)
        device = parameter.device if parameter is not None else torch.device("cpu")
        dtype = parameter.dtype if parameter is not None and parameter.is_floating_point() else torch.float32
        dummy = {
            key: torch.zeros(shape, device=device, dtype=dtype)
            for key, shape in zip(self.in_keys, self.in_shapes, strict=True)
        }
        modes = [(module, module.training) for module in self.modules()]
        self.eval()
        try:
            with torch.no_grad():
                output = self(dummy)
        finally:
            for module, training in modes:
                module.training = training
        return [tuple(fetch_tensor(output, key, type(self).__name__).shape) for key in self.out_keys]

    def expect_key_counts(self, in_counts: Sequence[int], out_counts: Sequence[int]) -> None:
        """Checks the number of input and output keys against the counts the block supports.

        Raises:
            ConfigurationError: Naming the block, the keys and the supported counts.
        """
        for what, keys, counts in (("in_keys", self.in_keys, in_counts), ("out_keys", self.out_keys, out_counts)):
            if len(keys) not in counts:
                raise ConfigurationError(
                    f"{type(self).__name__} takes {' or '.join(map(str, counts))} {what}, got {keys!r}"
                )

    def _repr_params(self) -> dict[str, Any]:
        """The key hyper-parameters shown in :meth:`__repr__` (blocks extend this)."""
        return {}

    def __repr__(self) -> str:
        """The graph label: the class name followed by one ``name: value`` line per key parameter."""
        lines = [type(self).__name__]
        for name, value in self._repr_params().items():
            shown = value.__name__ if isinstance(value, type) else value
            lines.append(f"{name}: {shown}")
        return "\n".join(lines)


_GLOBAL_HOOKS = tuple(
    getattr(_torch_module, name)
    for name in (
        "_global_forward_pre_hooks",
        "_global_forward_hooks",
        "_global_forward_hooks_always_called",
        "_global_backward_pre_hooks",
        "_global_backward_hooks",
    )
    if hasattr(_torch_module, name)
)
"""torch's registries of hooks for all modules (dicts that are filled in place)."""


_MODULE_CALL = nn.Module.__call__


def no_global_dispatch() -> bool:
    """True when no global module hooks are registered and no JIT trace is running."""
    return not (any(_GLOBAL_HOOKS) or torch._C._get_tracing_state())


def has_no_own_dispatch(module: nn.Module) -> bool:
    """True when ``module`` has no hooks, is not compiled and does not override ``__call__``."""
    return not (
        type(module).__call__ is not _MODULE_CALL
        or module._forward_pre_hooks
        or module._forward_hooks
        or module._backward_pre_hooks
        or module._backward_hooks
        or getattr(module, "_compiled_call_impl", None) is not None
    )


def runs_forward_directly(module: nn.Module) -> bool:
    """True when ``nn.Module.__call__`` would only call ``forward``.

    That holds when no hooks are registered (on the module or globally), the module is not
    compiled, no JIT trace is running and the module's class does not override ``__call__``.
    """
    return has_no_own_dispatch(module) and no_global_dispatch()


def call_module(module: nn.Module, *args: Any) -> Any:
    """Runs ``module(*args)``, skipping the bookkeeping of ``nn.Module.__call__`` where it does nothing.

    When :func:`runs_forward_directly` holds, ``forward`` is called directly, which saves
    about a microsecond per module on the per-step inference path. Otherwise the regular
    ``__call__`` runs, so hooks, ``torch.compile`` and tracing behave as usual.

    Args:
        module: Any module.
        *args: Its positional inputs.

    Returns:
        What ``module(*args)`` returns.
    """
    if runs_forward_directly(module):
        return module.forward(*args)
    return module(*args)
