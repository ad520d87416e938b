"""The exporter (maze-perception) and the torch-free loader (maze-deploy) share one copy of the ONNX format's names."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces
from maze.deploy import onnx_distributions, onnx_policy, onnx_run_dir
from maze.env.agent import onnx_format

pytest.importorskip("torch")  # the torch extra (maze-perception) holds the exporter
distributions = pytest.importorskip("maze.distributions")
export = pytest.importorskip("maze.perception.export")
metadata = pytest.importorskip("maze.perception.export.metadata")

BOX = spaces.Box(low=-1.0, high=1.0, shape=(2,), dtype=np.float32)
HEADS = [
    (distributions.CategoricalProbabilityDistribution, spaces.Discrete(3)),
    (distributions.MultiCategoricalProbabilityDistribution, spaces.MultiDiscrete([2, 3])),
    (distributions.BernoulliProbabilityDistribution, spaces.MultiBinary(2)),
    (distributions.DiagonalGaussianProbabilityDistribution, BOX),
    (distributions.SquashedGaussianProbabilityDistribution, BOX),
    (distributions.BetaProbabilityDistribution, BOX),
]


def test_exporter_and_loader_name_the_format_with_the_same_objects() -> None:
    for name in ("FORMAT", "METADATA_FILE"):
        assert getattr(metadata, name) is getattr(onnx_format, name) is getattr(onnx_policy, name), name
    assert export.METADATA_FILE is onnx_run_dir.METADATA_FILE is onnx_format.METADATA_FILE
    assert export.ONNX_DIR is onnx_run_dir.ONNX_DIR is onnx_format.ONNX_DIR


def test_every_kind_the_exporter_writes_is_one_the_loader_samples() -> None:
    written = []
    for distribution, space in HEADS:
        data = metadata.distribution_data("head", distribution)
        assert isinstance(onnx_distributions.head_sampler("head", space, data), onnx_distributions.HeadSampler)
        written.append(data["kind"])
    assert sorted(written) == sorted(onnx_format.DISTRIBUTION_KINDS)
