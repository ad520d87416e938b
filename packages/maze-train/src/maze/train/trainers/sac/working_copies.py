"""Working copies: the bfloat16 networks a SAC gradient step runs on with ``mixed_precision``.

With mixed precision the policy and the Q networks exist twice: the float32 masters (they act,
are saved, and the optimizers update them) and bfloat16 working copies, on which the gradient
steps' forward and backward passes run. Gradients computed on a copy move to its master as
float32 before the optimizer step; the master's new values are copied back after it.

The output layers (every :class:`~maze.perception.blocks.output.LinearOutputBlock`: Q values,
action logits) stay float32 and take their input as float32: a bfloat16 output rounds a Q value
near 100 to steps of 0.5, coarser than the per-step rewards the TD targets must resolve. On
LunarLanderContinuous the best evaluation within 35k env steps had a median of 126 over 4 seeds
with float32 outputs against 84 with bfloat16 ones (float32 throughout: 177 within 30k env
steps); the seeds spread widely, so this is a hint rather than proof.

This computes what ``torch.autocast`` computes (bfloat16 matrix products and activations;
float32 losses, gradients and optimizer state), but every parameter is cast once per optimizer
step instead of at every use, and the autograd graph holds no cast nodes. On the Pendulum
benchmark's networks a gradient step took about 4% less than under autocast (medians of three
interleaved pairs of runs: 4.30-4.41 ms against 4.45-4.79 ms).
"""

from __future__ import annotations

import copy
import platform
from collections.abc import Mapping, Sequence
from typing import Any, Optional

import torch
from maze.perception.blocks.output import LinearOutputBlock
from torch import nn

__all__ = ["WorkingCopies", "slow_bfloat16_warning"]


def slow_bfloat16_warning(device: torch.device | str) -> str | None:
    """A warning if bfloat16 working copies are likely slower than float32 on ``device``, else None.

    x86 CPUs without AVX512-BF16 or AMX have no bfloat16 matrix instructions, so oneDNN emulates
    them and ``mixed_precision`` can cost time instead of saving it. GPUs, other CPU
    architectures and torch builds without the CPU-feature probes are not judged.
    """
    if torch.device(device).type != "cpu" or platform.machine().lower() not in ("x86_64", "amd64"):
        return None
    probes = [getattr(torch.cpu, name, None) for name in ("_is_avx512_bf16_supported", "_is_amx_tile_supported")]
    if None in probes or any(probe() for probe in probes):  # a torch without the (private) probes: not judged
        return None
    return (
        "Warning: algorithm.mixed_precision=true, but this CPU has no bfloat16 matrix instructions (AVX512-BF16 or "
        "AMX), so the bfloat16 gradient steps are emulated and likely slower than float32. Set "
        "algorithm.mixed_precision=false unless you measured otherwise."
    )


def _cast_floating_inputs(dtype: torch.dtype):
    """A forward pre-hook casting the floating tensors of a network's input dict to ``dtype``."""

    def hook(module: nn.Module, args: tuple[Any, ...]) -> tuple[Any, ...]:
        inputs: Mapping[str, torch.Tensor] = args[0]
        cast = {key: value.to(dtype) if value.is_floating_point() else value for key, value in inputs.items()}
        return (cast, *args[1:])

    return hook


def _float32_input(module: nn.Module, args: tuple[torch.Tensor, ...]) -> tuple[torch.Tensor, ...]:
    """A forward pre-hook casting a layer's input tensor ``[B, F]`` to float32."""
    return (args[0].float(), *args[1:])


class WorkingCopies:
    """The models a gradient step runs on: the masters themselves, or bfloat16 copies of them.

    Args:
        masters: Models with a ``networks`` mapping of modules that take a dict of tensors
            (policies, critics).
        dtype: The working copies' dtype (e.g. ``torch.bfloat16``); None: the masters are used
            directly, and :meth:`move_gradients` and :meth:`refresh` do nothing.

    Attributes:
        models: The working models, in the order of ``masters`` (each takes float32 inputs
            and returns float32 outputs from its float32 output layers).
    """

    def __init__(self, masters: Sequence[Any], dtype: Optional[torch.dtype]) -> None:
        self.models: list[Any] = list(masters) if dtype is None else [copy.deepcopy(master) for master in masters]
        self._masters: list[torch.Tensor] = []
        self._copies: list[torch.Tensor] = []
        if dtype is None:
            return
        for master, working in zip(masters, self.models, strict=True):
            for network in working.networks.values():
                network.to(dtype)
                network.register_forward_pre_hook(_cast_floating_inputs(dtype))
                for block in network.modules():
                    if isinstance(block, LinearOutputBlock):
                        block.net.float()
                        block.net.register_forward_pre_hook(_float32_input)
            self._masters += (parameter for network in master.networks.values() for parameter in network.parameters())
            self._copies += (parameter for network in working.networks.values() for parameter in network.parameters())

    def move_gradients(self) -> None:
        """Hands the working copies' gradients to the masters (as the masters' dtype) and clears them."""
        for master, working in zip(self._masters, self._copies, strict=True):
            master.grad = None if working.grad is None else working.grad.to(master.dtype)
            working.grad = None

    @torch.no_grad()
    def refresh(self) -> None:
        """Copies the masters' current values into the working copies (after an optimizer step or a load)."""
        if self._masters:
            torch._foreach_copy_(self._copies, self._masters)
