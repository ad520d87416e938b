"""One policy network as one ONNX file: observation tensors in, the (masked) logits of its action heads out."""

from __future__ import annotations

import contextlib
import io
import logging
import re
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path

import torch
from maze.env.utils.files import atomic_write_bytes
from torch import nn

__all__ = ["OnnxExportError", "HeadsOnly", "export_network"]


class OnnxExportError(RuntimeError):
    """A policy cannot be exported to ONNX; the message names the network, the cause and what to do."""


class HeadsOnly(nn.Module):
    """Runs a tensor-dict policy network on positional inputs and returns only its action logits.

    ONNX graphs take and return flat tensor lists; this adapter gives the exporter that
    signature. Outputs that are no action head (shared embeddings for a critic) are dropped.
    Action masks stay inside the network, so the exported logits of masked actions are the
    dtype's minimum exactly as in torch.

    Args:
        network: Maps ``{observation key: [B, *shape]}`` to ``{name: [B, ...]}``.
        input_names: The observation keys, in the order of the positional inputs.
        head_names: The action heads to return, in this order.
    """

    def __init__(self, network: nn.Module, input_names: Sequence[str], head_names: Sequence[str]) -> None:
        super().__init__()
        self.network = network
        self.input_names = tuple(input_names)
        self.head_names = tuple(head_names)

    def forward(self, *inputs: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """``[B, *shape]`` per input -> ``[B, *logits_shape]`` per head."""
        output = self.network(dict(zip(self.input_names, inputs, strict=True)))
        return tuple(output[head] for head in self.head_names)


def export_network(module: HeadsOnly, sample: Sequence[torch.Tensor], path: Path, name: str, opset: int | None) -> int:
    """Exports ``module`` with torch's ``torch.export``-based exporter into one self-contained ONNX file.

    The first dim of every input and output is dynamic (``batch``); the weights are stored in
    the file (no external-data side file). The file is written atomically.

    Args:
        module: The network adapter.
        sample: One example input per observation key, ``[2, *shape]`` (a batch of 2, so the
            batch dim is not specialized to 1).
        path: The ``.onnx`` file to write.
        name: The network's name for messages (``policy_0``).
        opset: The ONNX opset to target; None: the exporter's recommended one.

    Returns:
        The opset of the written model.

    Raises:
        OnnxExportError: The exporter cannot handle the network (naming the failing op or construct).
    """
    batch = torch.export.Dim("batch", min=1)
    try:
        with _quiet():
            program = torch.onnx.export(
                module.eval(),
                tuple(sample),
                dynamo=True,
                input_names=list(module.input_names),
                output_names=list(module.head_names),
                dynamic_shapes=(tuple({0: batch} for _ in sample),),  # forward(*inputs): one var-positional
                opset_version=opset,
                external_data=False,
                optimize=True,
                verbose=False,
            )
    except Exception as error:  # the exporter raises many types; each becomes one message
        raise OnnxExportError(
            f"policy network {name!r} cannot be exported to ONNX: {_summary(error)}. Replace what the message names "
            "by operations ONNX supports (no data-dependent Python control flow), or serve this policy with torch"
        ) from error
    model = program.model_proto
    atomic_write_bytes(path, model.SerializeToString())
    return next(entry.version for entry in model.opset_import if entry.domain in ("", "ai.onnx"))


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Keeps the exporter's progress lines, graph dumps and warnings off the console."""
    logger = logging.getLogger("torch")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    sink = io.StringIO()
    try:
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        logger.setLevel(level)


_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_CLASS = re.compile(r"<class '(?:[\w.]+\.)?(\w+)'>: ")


def _summary(error: Exception) -> str:
    """The first line of the exporter's exception summary (``DispatchError: No ONNX function found for ...``)."""
    text = _ANSI.sub("", str(error))
    marker = "## Exception summary"
    if marker in text:
        lines = [line for line in text.split(marker, 1)[1].splitlines() if line.strip()]
        text = lines[0] if lines else text
    else:
        text = f"{type(error).__name__}: {text.strip().splitlines()[0] if text.strip() else ''}"
    return _CLASS.sub(r"\1: ", text).strip()
