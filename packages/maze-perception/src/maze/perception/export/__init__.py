"""ONNX export of trained policies (the ``onnx`` extra): ``python -m maze.perception.export <run dir>``.

Writes ``<run dir>/onnx/``: one self-contained ONNX file per policy network (every sub-step
of a structured policy, ``policy_<key>.onnx``) and ``metadata.json``, which maze-deploy's
torch-free ``OnnxPolicy`` reads. A network file takes the sub-step's observations
(``[batch, *shape]`` float32, one input per observation key, ``Discrete`` observations as
``[batch, 1]``) and returns the logits of every action head (``[batch, *logits_shape]``),
with the action masks of the network applied inside the graph. The batch dim is dynamic.
The metadata is plain data: the spaces, each head's distribution kind, the observation
normalization statistics, the run's env and wrappers configs, the opset and the versions.

Exporter: ``torch.onnx.export(..., dynamo=True)``, the ``torch.export``-based exporter. It
is torch's default since 2.9 and the one maintained; the TorchScript exporter
(``dynamo=False``) is deprecated in torch 2.13 (it warns on every call) and receives no new
operator support. It needs ``onnxscript``, which the ``onnx`` extra installs. Our networks
are tensor-dict modules without data-dependent control flow, which ``torch.export``
(non-strict) captures completely, with the batch dim declared dynamic (``torch.export.Dim``)
instead of traced as a constant. Weights go into the file (``external_data=False``): policy
networks are far below ONNX's 2 GB limit, and one file per network is simpler to ship.
Every exported network is run once with onnxruntime and compared against torch before the
export counts as done.
"""

from maze.env.agent.onnx_format import FORMAT, METADATA_FILE, ONNX_DIR
from maze.perception.export.exporter import export_policy, export_run_dir
from maze.perception.export.onnx_network import OnnxExportError

__all__ = ["FORMAT", "METADATA_FILE", "ONNX_DIR", "OnnxExportError", "export_policy", "export_run_dir"]
