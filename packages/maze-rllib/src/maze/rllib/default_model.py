"""``model=rllib``: RLlib's own default RLModule of the algorithm instead of a Maze model composer.

The model config holds RLlib ``DefaultModelConfig`` keys (``fcnet_hiddens``, ``fcnet_activation``,
``vf_share_layers``, ...); RLlib builds the module of the algorithm (PPO's actor-critic, SAC's
policy with twin Q networks). The env's dict observations are flattened by RLlib's
``FlattenObservations`` connector and a single action head is passed as its plain space (SAC
takes only ``Box`` and ``Discrete`` actions). Maze evaluates the module through
:class:`RLlibModulePolicy`; the best module is saved with RLlib's ``save_to_path`` into
:data:`RLLIB_MODULE_DIR` of the run directory (there is no Maze ``state_dict.pt``).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Optional

import torch
from maze.env.agent.policy import Policy
from maze.env.core.actor import ActorID
from maze.env.errors import ConfigurationError
from maze.env.utils.suggestions import close_matches

__all__ = [
    "RLLIB_MODULE_DIR",
    "RLlibDefaultModel",
    "RLlibModuleEvaluation",
    "RLlibModulePolicy",
    "flatten_observations_connector",
]

RLLIB_MODULE_DIR = "rllib_module"
"""Directory of the run directory that holds the best RLlib module of a ``model=rllib`` run."""


class RLlibDefaultModel:
    """The ``model`` config of ``model=rllib``: RLlib ``DefaultModelConfig`` keys, checked by name.

    Args:
        **model_config: ``DefaultModelConfig`` keys -> values.

    Raises:
        ConfigurationError: For keys that RLlib's ``DefaultModelConfig`` does not have (with close matches).
    """

    def __init__(self, **model_config: Any) -> None:
        from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig

        known = [field.name for field in dataclasses.fields(DefaultModelConfig)]
        unknown = [key for key in model_config if key not in known]
        if unknown:
            hints = [
                f"model.{key}" + (f" (did you mean model.{match[0]}?)" if (match := close_matches(key, known)) else "")
                for key in unknown
            ]
            raise ConfigurationError(f"RLlib's DefaultModelConfig has no key {', '.join(hints)}")
        self.model_config = dict(model_config)

    def graph_structures(self) -> dict[str, Any]:
        """No Maze inference graphs to draw (RLlib builds the networks)."""
        return {}


class RLlibModulePolicy(Policy):
    """A Maze policy acting with an RLlib module that takes flattened observations (``model=rllib``).

    Args:
        module: The RLlib module (``forward_inference`` gives the action distribution inputs).
        observation_space: The env's dict observation space of the sub-step (flattened like RLlib's connector).
        action_head: The name of the single action head when the module acts in its plain space;
            None when the module's actions are the dict actions themselves.
        action_space: The module's action space, whose ``Box`` actions are unsquashed from [-1, 1] like
            RLlib's env runners do with ``normalize_actions`` (None: actions are used as sampled).
    """

    def __init__(
        self, module: Any, observation_space: Any, action_head: Optional[str], action_space: Optional[Any] = None
    ) -> None:
        from ray.rllib.core.columns import Columns
        from ray.rllib.utils.numpy import flatten_inputs_to_1d_tensor
        from ray.rllib.utils.spaces.space_utils import get_base_struct_from_space, unsquash_action

        self.module = module
        self.observation_struct = get_base_struct_from_space(observation_space)
        self.action_head = action_head
        self.action_struct = None if action_space is None else get_base_struct_from_space(action_space)
        self._obs_column, self._logits_column = Columns.OBS, Columns.ACTION_DIST_INPUTS
        self._flatten, self._unsquash = flatten_inputs_to_1d_tensor, unsquash_action
        self._distribution_class = module.get_inference_action_dist_cls()

    def seed(self, seed: int) -> None:
        """Seeds torch's global generator, which sampling draws from."""
        torch.manual_seed(seed)

    def compute_action(
        self,
        observation: dict[str, Any],
        maze_state: Optional[Any] = None,
        env: Optional[Any] = None,
        actor_id: Optional[ActorID] = None,
        deterministic: bool = False,
    ) -> dict[str, Any]:
        """The module's action for a batched observation dict (key -> ``[B, *shape]``).

        Returns:
            Action head -> ``[B, *action_shape]`` numpy arrays.
        """
        flat = self._flatten(dict(observation), spaces_struct=self.observation_struct, batch_axis=True)
        with torch.no_grad():
            output = self.module.forward_inference({self._obs_column: torch.as_tensor(flat, dtype=torch.float32)})
            distribution = self._distribution_class.from_logits(output[self._logits_column])
            if deterministic:
                distribution = distribution.to_deterministic()
            action = distribution.sample()
        action = _to_numpy(action)
        if self.action_struct is not None:
            action = self._unsquash(action, self.action_struct)
        if self.action_head is not None:
            return {self.action_head: action}
        return dict(action)


def _to_numpy(action: Any) -> Any:
    """Tensors (also in a dict of heads) as numpy arrays."""
    if isinstance(action, dict):
        return {head: value.numpy() for head, value in action.items()}
    return action.numpy()


class RLlibModuleEvaluation:
    """Evaluates RLlib's default module through :class:`RLlibModulePolicy`; saves the best into the run directory.

    Args:
        directory: Where the best module goes (``<run dir>/rllib_module``, RLlib's ``save_to_path`` format).
        observation_space: The sub-step's dict observation space.
        action_head: The single action head the module acts for in its plain space (None: dict actions).
        action_space: The module's action space when its ``Box`` actions are normalized (see :class:`RLlibModulePolicy`).
    """

    def __init__(
        self, directory: Path, observation_space: Any, action_head: Optional[str], action_space: Optional[Any]
    ) -> None:
        self.directory = directory
        self.observation_space = observation_space
        self.action_head = action_head
        self.action_space = action_space

    def policy(self, algorithm: Any) -> Policy:
        """A Maze policy acting with the algorithm's module."""
        return RLlibModulePolicy(algorithm.get_module(), self.observation_space, self.action_head, self.action_space)

    def keep_best(self, algorithm: Any) -> None:
        """Saves the algorithm's module (replacing the previous best)."""
        algorithm.get_module().save_to_path(str(self.directory))


def flatten_observations_connector(env: Any = None, spaces: Any = None, device: Any = None) -> Any:
    """RLlib's ``env_to_module_connector`` of ``model=rllib``: observations flattened to one vector."""
    from ray.rllib.connectors.env_to_module import FlattenObservations

    return FlattenObservations()
