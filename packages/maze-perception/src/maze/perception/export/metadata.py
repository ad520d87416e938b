"""The plain-data description of an exported policy (``metadata.json``), read by maze-deploy's ONNX policy.

Nothing in it is code: spaces are :class:`~maze.env.utils.spaces_config.SpacesConfig` data,
each action head names its distribution by a *kind* (``categorical``, ``squashed_gaussian``,
...) with the constants the sampler needs, and the env/wrappers configs are the resolved
configs of the training run (their ``_target_`` names pass maze's allow-list when a
deployment builds them, like any run-directory config). The format's names (``FORMAT``,
``METADATA_FILE``, the kinds) are those of :mod:`maze.env.agent.onnx_format`, which the
loader reads too.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib.metadata import version
from typing import Any, Optional

import numpy as np
import torch
from maze.distributions import (
    BernoulliProbabilityDistribution,
    BetaProbabilityDistribution,
    CategoricalProbabilityDistribution,
    DiagonalGaussianProbabilityDistribution,
    DistributionMapper,
    MultiCategoricalProbabilityDistribution,
    ProbabilityDistribution,
    SquashedGaussianProbabilityDistribution,
)
from maze.env.agent.onnx_format import (
    BERNOULLI,
    BETA,
    CATEGORICAL,
    FORMAT,
    GAUSSIAN,
    METADATA_FILE,
    MULTI_CATEGORICAL,
    SQUASHED_GAUSSIAN,
)
from maze.perception.export.onnx_network import OnnxExportError

__all__ = ["FORMAT", "METADATA_FILE", "distribution_data", "metadata", "network_entry"]

EXPORTER = "torch.onnx.export(dynamo=True)"


def distribution_data(head: str, distribution: type[ProbabilityDistribution]) -> dict[str, Any]:
    """The kind (and sampling constants) of a head's distribution.

    Raises:
        OnnxExportError: For a distribution the ONNX policy cannot sample (custom ones, subclasses).
    """
    name = f"{distribution.__module__}.{distribution.__qualname__}"
    if distribution is CategoricalProbabilityDistribution:
        return {"kind": CATEGORICAL, "class": name}
    if distribution is MultiCategoricalProbabilityDistribution:
        return {"kind": MULTI_CATEGORICAL, "class": name}
    if distribution is BernoulliProbabilityDistribution:
        return {"kind": BERNOULLI, "class": name}
    if distribution is DiagonalGaussianProbabilityDistribution:
        return {"kind": GAUSSIAN, "class": name, "log_std_bounds": list(distribution.log_std_bounds)}
    if distribution is SquashedGaussianProbabilityDistribution:
        return {"kind": SQUASHED_GAUSSIAN, "class": name, "log_std_bounds": list(distribution.log_std_bounds)}
    if distribution is BetaProbabilityDistribution:
        return {"kind": BETA, "class": name, "max_concentration": float(distribution.max_concentration)}
    raise OnnxExportError(
        f"action head {head!r} uses the distribution {name}, which the ONNX policy cannot sample; it samples the "
        "built-in distributions of maze.distributions (categorical, multi-categorical, Bernoulli, Gaussian, squashed "
        "Gaussian, Beta). Map the head to one of them, or serve this policy with torch"
    )


def network_entry(
    key: Any,
    file_name: str,
    inputs: Mapping[str, tuple[int, ...]],
    discrete_keys: frozenset[str],
    heads: Mapping[str, tuple[int, ...]],
    mapper: DistributionMapper,
) -> dict[str, Any]:
    """The metadata of one exported network.

    Args:
        key: The network's key: a sub-step key, or ``(step_key, agent_id)`` for separate agent nets.
        file_name: Its ONNX file.
        inputs: Observation key -> network input shape (without the batch dim).
        discrete_keys: Observation keys fed as ``[B, 1]`` floats from ``Discrete`` integers.
        heads: Action head -> logits shape (without the batch dim).
        mapper: The distribution mapper of the network's sub-step.
    """
    step_key, agent_id = key if isinstance(key, tuple) else (key, None)
    return {
        "step_key": step_key,
        "agent_id": agent_id,
        "file": file_name,
        "inputs": [
            {"name": name, "shape": list(shape), "discrete": name in discrete_keys} for name, shape in inputs.items()
        ],
        "heads": [
            {
                "name": head,
                "logits_shape": list(shape),
                "distribution": distribution_data(head, mapper.distribution_class(head)),
            }
            for head, shape in heads.items()
        ],
    }


def metadata(
    spaces: Mapping[str, Any],
    networks: list[dict[str, Any]],
    opset: int,
    statistics: Optional[Mapping[str, Mapping[str, np.ndarray]]],
    env: Any,
    wrappers: Any,
) -> dict[str, Any]:
    """The whole ``metadata.json`` (plain data: dicts, lists, strings, numbers, None).

    Args:
        spaces: ``SpacesConfig.to_data()`` of the policy.
        networks: One :func:`network_entry` per network.
        opset: The ONNX opset of the files.
        statistics: Observation normalization statistics ``{key: {statistic: array}}``, or None.
        env: The run's env config (resolved), or None.
        wrappers: The run's wrappers config (resolved), or None.
    """
    return {
        "format": FORMAT,
        "maze_version": version("maze-perception"),
        "torch_version": torch.__version__,
        "exporter": EXPORTER,
        "opset": opset,
        "spaces": dict(spaces),
        "networks": networks,
        "normalization_statistics": None
        if statistics is None
        else {
            key: {name: np.asarray(value).tolist() for name, value in stats.items()}
            for key, stats in statistics.items()
        },
        "env": env,
        "wrappers": wrappers,
    }
