"""The trained policy as an MLflow model (pyfunc flavour), logged by ``logger=mlflow`` at the end of a run.

The model wraps the run's checkpoint (``state_dict.pt``, ``spaces_config.yaml``,
``model_config.yaml``) and acts with maze's :class:`~maze.perception.checkpoint.SerializedTorchPolicy`,
so ``mlflow.pyfunc.load_model("runs:/<run id>/policy")``, ``mlflow models serve`` and the
model registry take it like any pyfunc model. ``predict`` takes a batch of observations as
the policy sees them (after the run's wrappers: normalized where the run normalizes): a
pandas DataFrame with one column per observation key, or a dict ``{key: [B, *shape]}``; it
returns the most likely actions as a DataFrame with one column per action head. ``params``
may name the sub-step of a structured env (``{"step_key": 1}``; default: the first).

Needs maze-train (with maze-perception and torch) where the model is loaded.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from importlib import metadata
from pathlib import Path
from typing import Any, Optional

import numpy as np

__all__ = ["MODEL_NAME", "log_policy_model", "policy_model_class"]

MODEL_NAME = "policy"
"""The name of the logged model in its run (``runs:/<run id>/policy``)."""

_CHECKPOINT = {
    "state_dict": "state_dict.pt",
    "spaces_config": "spaces_config.yaml",
    "model_config": "model_config.yaml",
}
"""Artifact name -> file of the run directory the model is made of."""


@functools.lru_cache(maxsize=1)
def policy_model_class() -> type:
    """The pyfunc model class, defined on first use (mlflow is an optional extra of maze-train)."""
    import mlflow.pyfunc

    class MazePolicyModel(mlflow.pyfunc.PythonModel):
        """A pyfunc model that acts with the policy of a maze checkpoint (deterministic: the most likely actions)."""

        def load_context(self, context: Any) -> None:
            """Builds the policy from the logged checkpoint files."""
            from maze.perception.checkpoint import SerializedTorchPolicy

            files = context.artifacts
            self.policy = SerializedTorchPolicy(
                None, files["state_dict"], files["spaces_config"], model_config_file=files["model_config"]
            )

        def predict(self, context: Any, model_input, params: Optional[dict[str, Any]] = None) -> Any:  # noqa: ANN001
            """Observations ``[B, *shape]`` per key -> the most likely action per head, a DataFrame of ``B`` rows.

            ``model_input`` has no type hint: MLflow would read one as the input schema.
            """
            import pandas as pd
            from maze.env.core.actor import ActorID

            step_key = (params or {}).get("step_key")
            actor = ActorID(step_key, 0) if step_key is not None else None
            actions = self.policy.compute_action(_observations(model_input), actor_id=actor, deterministic=True)
            return pd.DataFrame({head: list(np.asarray(value)) for head, value in actions.items()})

    return MazePolicyModel


def _observations(model_input: Any) -> dict[str, np.ndarray]:
    """``{key: float32 [B, *shape]}`` of a DataFrame (a column per key) or a mapping of arrays."""
    if isinstance(model_input, Mapping):
        return {key: np.asarray(value, dtype=np.float32) for key, value in model_input.items()}
    return {key: np.stack([np.asarray(cell, dtype=np.float32) for cell in model_input[key]]) for key in model_input}


def log_policy_model(run_dir: Path) -> bool:
    """Logs the policy of ``run_dir`` as :data:`MODEL_NAME` into MLflow's active run.

    Returns:
        False when the run directory lacks a checkpoint file (nothing logged).
    """
    artifacts = {name: run_dir / file for name, file in _CHECKPOINT.items()}
    if not all(path.is_file() for path in artifacts.values()):
        return False
    import mlflow.pyfunc

    mlflow.pyfunc.log_model(
        name=MODEL_NAME,
        python_model=policy_model_class()(),
        artifacts={name: str(path) for name, path in artifacts.items()},
        pip_requirements=_requirements(),
    )
    return True


def _requirements() -> list[str]:
    """The packages the model needs, pinned to the versions here (maze's are installed from its repository)."""
    names = ("mlflow", "torch", "numpy", "pandas", "gymnasium", "maze-env", "maze-distributions", "maze-perception")
    pinned = []
    for name in names:
        try:
            pinned.append(f"{name}=={metadata.version(name)}")
        except metadata.PackageNotFoundError:
            continue
    return pinned
