"""The names of the ONNX policy export format, shared by the exporter and the torch-free loader.

maze-perception's exporter writes an export directory (``<run dir>/onnx``) and maze-deploy's
``OnnxPolicy`` reads it; both take the strings that identify the format from this module, so
writer and reader cannot drift apart. The directory holds :data:`METADATA_FILE` (plain JSON)
and one ONNX file per policy network. The metadata's ``format`` is :data:`FORMAT`; each
action head names its distribution by one of the :data:`DISTRIBUTION_KINDS` (with the
constants its sampler needs, e.g. ``log_std_bounds``). Nothing here imports torch.
"""

from __future__ import annotations

__all__ = [
    "BERNOULLI",
    "BETA",
    "CATEGORICAL",
    "DISTRIBUTION_KINDS",
    "FORMAT",
    "GAUSSIAN",
    "METADATA_FILE",
    "MULTI_CATEGORICAL",
    "ONNX_DIR",
    "SQUASHED_GAUSSIAN",
    "previous_export_prefix",
]

FORMAT = "maze.onnx_policy/1"
"""The ``format`` value of the metadata; a loader refuses any other."""

METADATA_FILE = "metadata.json"
"""The metadata file of an export directory (names the ONNX files of the current export)."""

ONNX_DIR = "onnx"
"""The sub-directory of a training run directory that holds its export."""

CATEGORICAL = "categorical"
MULTI_CATEGORICAL = "multi_categorical"
BERNOULLI = "bernoulli"
GAUSSIAN = "gaussian"
SQUASHED_GAUSSIAN = "squashed_gaussian"
BETA = "beta"

DISTRIBUTION_KINDS = (CATEGORICAL, MULTI_CATEGORICAL, BERNOULLI, GAUSSIAN, SQUASHED_GAUSSIAN, BETA)
"""The ``kind`` values of the action heads' distributions (the built-in distributions of maze)."""


def previous_export_prefix(directory_name: str) -> str:
    """The name prefix of the hidden directory where an older maze's interrupted export left the previous export.

    Older maze versions moved the previous export into ``.<name>-old-<random>/<name>`` before
    renaming a new one into place; the exporter moves such an export back, the loader names it.
    """
    return f".{directory_name}-old-"
