"""One policy network as one ONNX file: observation tensors in, the (masked) logits of its action heads out."""

from __future__ import annotations

import contextlib
import io
import logging
import re
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import torch
from maze.env.utils.files import atomic_write_bytes
from torch import nn

__all__ = ["OnnxExportError", "HeadsOnly", "export_network"]

logger = logging.getLogger(__name__)


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


def export_network(
    module: HeadsOnly,
    sample: Sequence[torch.Tensor],
    path: Path,
    name: str,
    opset: int | None,
    verify: Callable[[Path], None] = lambda path: None,
) -> int:
    """Exports ``module`` into one self-contained ONNX file that ``verify`` accepts.

    The first dim of every input and output is dynamic (``batch``); the weights are stored in
    the file (no external-data side file). The file is written atomically.

    Two of torch's exporters are tried in turn. First the TorchScript-based one (deprecated by
    torch, but about 1 s for a policy network), then the ``torch.export``-based one, torch's
    default: its first export in a process costs 3 s on an idle machine and 10-20 s on a busy
    one, four fifths of it one-off (importing ``torch._dynamo`` and ``torch.export``, and
    onnxscript building its registry of some 500 torch ops from their Python source). A file of
    the first that ``verify`` rejects (or that fails, or that this torch no longer has) is
    replaced by the second's.

    Args:
        module: The network adapter.
        sample: One example input per observation key, ``[2, *shape]`` (a batch of 2, so the
            batch dim is not specialized to 1).
        path: The ``.onnx`` file to write.
        name: The network's name for messages (``policy_0``).
        opset: The ONNX opset to target; None: the exporter's recommended one.
        verify: Checks the written file (e.g. against torch with onnxruntime); raises
            :class:`OnnxExportError` when it computes something else.

    Returns:
        The opset of the written model.

    Raises:
        OnnxExportError: Neither exporter gives a file that ``verify`` accepts (naming the
            failing op or construct of ``torch.export``'s exporter, or the verification's finding).
    """
    module.eval()
    try:
        with _quiet():
            model = _torchscript_export(module, sample, opset)
        atomic_write_bytes(path, model.SerializeToString())
        verify(path)
        return _opset(model)
    except OSError:  # the disk (full, read-only, a file-size limit): the other exporter would fail the same way
        raise
    except Exception as error:  # the fast path is a shortcut: any failure leaves the work to torch.export
        logger.debug("the TorchScript-based ONNX export of %r failed (%s); using torch.export's", name, error)
    try:
        with _quiet():
            model = _torch_export(module, sample, opset)
    except Exception as error:  # the exporter raises many types; each becomes one message
        raise OnnxExportError(
            f"policy network {name!r} cannot be exported to ONNX: {_summary(error)}. Replace what the message names "
            "by operations ONNX supports (no data-dependent Python control flow), or serve this policy with torch"
        ) from error
    atomic_write_bytes(path, model.SerializeToString())
    verify(path)
    return _opset(model)


def _torchscript_export(module: HeadsOnly, sample: Sequence[torch.Tensor], opset: int | None) -> Any:
    """The ``onnx.ModelProto`` of torch's TorchScript-based exporter (batch dims dynamic)."""
    import onnx

    names = [*module.input_names, *module.head_names]
    buffer = io.BytesIO()
    torch.onnx.export(
        module,
        tuple(sample),
        buffer,
        dynamo=False,
        input_names=list(module.input_names),
        output_names=list(module.head_names),
        dynamic_axes={tensor: {0: "batch"} for tensor in names},
        opset_version=opset,
        verbose=False,
    )
    return onnx.load_model_from_string(buffer.getvalue())


def _torch_export(module: HeadsOnly, sample: Sequence[torch.Tensor], opset: int | None) -> Any:
    """The ``onnx.ModelProto`` of torch's ``torch.export``-based exporter (batch dims dynamic)."""
    batch = torch.export.Dim("batch", min=1)
    program = torch.onnx.export(
        module,
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
    return program.model_proto


def _opset(model: Any) -> int:
    """The default-domain opset of an ``onnx.ModelProto``."""
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
