"""OnnxPolicy: a trained policy exported to ONNX, run with onnxruntime and numpy (no torch).

Reads the directory ``python -m maze.perception.export <run dir>`` writes (``<run dir>/onnx``):
``metadata.json`` (plain data) and one ONNX file per policy network. Loading runs no code
from the directory: no pickles, and nothing of the metadata is instantiated here.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Union

import numpy as np
from gymnasium import spaces
from maze.deploy.onnx_distributions import CategoricalSampler, HeadSampler, head_sampler
from maze.env.agent.onnx_format import FORMAT, METADATA_FILE
from maze.env.agent.policy import Policy
from maze.env.core.actor import ActorID, StepKeyType
from maze.env.errors import ConfigurationError
from maze.env.utils.install_hints import pip_install_command
from maze.env.utils.spaces_config import SpacesConfig
from maze.env.utils.untrusted_files import load_untrusted_json

__all__ = ["METADATA_FILE", "OnnxPolicy", "read_metadata"]


def read_metadata(model_dir: Union[str, os.PathLike]) -> dict[str, Any]:
    """The ``metadata.json`` of an exported policy directory.

    Raises:
        ConfigurationError: No such file, no JSON, or another format.
    """
    path = Path(model_dir).expanduser() / METADATA_FILE
    if not path.is_file():
        raise ConfigurationError(
            f"{str(path.parent)!r} holds no exported policy (no {METADATA_FILE}); export the training run first: "
            "python -m maze.perception.export <run dir> (writes <run dir>/onnx)"
        )
    try:
        data = load_untrusted_json(path)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ConfigurationError(f"{str(path)!r} is not valid JSON ({error}); export the policy again") from None
    if not isinstance(data, Mapping) or data.get("format") != FORMAT:
        found = data.get("format") if isinstance(data, Mapping) else type(data).__name__
        raise ConfigurationError(
            f"{str(path)!r} has the format {found!r}, expected {FORMAT!r}; export the policy again"
        )
    return dict(data)


@dataclass(frozen=True)
class _Input:
    name: str
    shape: tuple[int, ...]
    discrete: bool


@dataclass(frozen=True)
class _Network:
    """One ONNX session with what feeding it and reading its heads needs."""

    session: Any
    inputs: tuple[_Input, ...]
    heads: tuple[str, ...]
    samplers: tuple[HeadSampler, ...]


class OnnxPolicy(Policy):
    """A structured policy whose networks run in onnxruntime (``maze-deploy[onnx]``; torch is not needed).

    Implements the policy interface of the torch policy: ``compute_action`` (sampled from
    each head's distribution with a seeded numpy generator, or the most likely action when
    ``deterministic``) and ``compute_top_action_candidates`` (categorical heads), for single
    (``[*shape]``) and batched (``[B, *shape]``) observations, so AgentDeployment, rollout
    runners and viewers use it as they use the torch policy.

    Args:
        model_dir: The exported directory (``<run dir>/onnx``).
        observation_spaces_dict: The env's observation spaces (rollout runners pass them); with
            ``action_spaces_dict`` compared against the exported spaces.
        action_spaces_dict: The env's action spaces.
        intra_op_threads: onnxruntime's threads per network call; 1 suits small policies.

    Raises:
        ConfigurationError: onnxruntime missing, a malformed or inconsistent export, or
            spaces that differ from the env's (naming the sub-step and key).
    """

    def __init__(
        self,
        model_dir: Union[str, os.PathLike],
        observation_spaces_dict: Optional[Mapping[StepKeyType, spaces.Dict]] = None,
        action_spaces_dict: Optional[Mapping[StepKeyType, spaces.Dict]] = None,
        intra_op_threads: int = 1,
    ) -> None:
        self.model_dir = Path(model_dir).expanduser()
        self.intra_op_threads = intra_op_threads
        self.metadata = read_metadata(self.model_dir)
        try:
            self.spaces_config = SpacesConfig.from_data(self.metadata["spaces"])
        except (KeyError, ConfigurationError) as error:
            raise ConfigurationError(f"{str(self.model_dir / METADATA_FILE)!r}: bad spaces ({error})") from None
        if observation_spaces_dict is not None and action_spaces_dict is not None:
            self.spaces_config.check_compatible(
                SpacesConfig(
                    dict(action_spaces_dict), dict(observation_spaces_dict), self.spaces_config.agent_counts_dict
                ),
                this=f"ONNX policy {str(self.model_dir)!r}",
                that="env",
            )
        onnxruntime = _onnxruntime()
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = intra_op_threads
        options.inter_op_num_threads = 1
        self.networks: dict[Any, _Network] = {}
        for entry in self.metadata["networks"]:
            key = entry["step_key"] if entry.get("agent_id") is None else (entry["step_key"], entry["agent_id"])
            self.networks[key] = self._load(entry, onnxruntime, options)
        self.separate_agent_steps = {key[0] for key in self.networks if isinstance(key, tuple)}
        self._rng = np.random.default_rng()

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickles as the export directory (onnxruntime sessions do not pickle): workers reopen the same files."""
        return type(self), (self.model_dir, None, None, self.intra_op_threads), {"_rng": self._rng}

    # --- the policy interface ------------------------------------------------------------

    def seed(self, seed: int) -> None:
        """Seeds the generator that sampling draws from."""
        self._rng = np.random.default_rng(seed)

    def compute_action(
        self,
        observation: Mapping[str, Any],
        maze_state: Optional[Any] = None,
        env: Optional[Any] = None,
        actor_id: Optional[ActorID] = None,
        deterministic: bool = False,
    ) -> dict[str, Any]:
        """Samples (or, if ``deterministic``, takes the most likely) action of ``actor_id``.

        Args:
            observation: Observation dict, single (``[*shape]``) or batched (``[B, *shape]``).
            maze_state: Unused.
            env: Unused.
            actor_id: The acting actor; may be None when the policy has a single network.
            deterministic: Take each head's most likely action instead of sampling.

        Returns:
            Action head -> numpy action (``[*action_shape]`` or ``[B, *action_shape]``).
        """
        network, logits, batched = self._logits(observation, actor_id)
        actions = {}
        for head, sampler, head_logits in zip(network.heads, network.samplers, logits, strict=True):
            action = sampler.act(head_logits, deterministic, self._rng)
            actions[head] = action if batched else action[0]
        return actions

    def compute_top_action_candidates(
        self,
        observation: Mapping[str, Any],
        num_candidates: Optional[int],
        maze_state: Optional[Any] = None,
        env: Optional[Any] = None,
        actor_id: Optional[ActorID] = None,
    ) -> tuple[list[dict[str, Any]], list[float]]:
        """The ``num_candidates`` most likely joint actions of a single observation (categorical heads only).

        Returns:
            The actions and their joint probabilities, most likely first (all combinations for None).

        Raises:
            NotImplementedError: For batched observations or heads that are not categorical.
        """
        network, logits, batched = self._logits(observation, actor_id)
        candidates: list[tuple[dict[str, Any], float]] = [({}, 1.0)]
        for head, sampler, head_logits in zip(network.heads, network.samplers, logits, strict=True):
            if batched or not isinstance(sampler, CategoricalSampler):
                raise NotImplementedError(
                    f"action candidates need categorical heads of a single observation; head {head!r} has a "
                    f"{type(sampler).__name__} with logits {head_logits.shape}"
                )
            probs = sampler.parameters(head_logits)["probs"][0]
            count = probs.size if num_candidates is None else min(num_candidates, probs.size)
            order = np.argsort(-probs, kind="stable")[:count]
            options = [(np.int64(index + sampler.start), float(probs[index])) for index in order]
            candidates = sorted(
                (
                    ({**action, head: option}, prob * option_prob)
                    for action, prob in candidates
                    for option, option_prob in options
                ),
                key=lambda item: -item[1],
            )[:num_candidates]
        return [action for action, _ in candidates], [prob for _, prob in candidates]

    def compute_head_parameters(
        self, observation: Mapping[str, Any], actor_id: Optional[ActorID] = None
    ) -> dict[str, dict[str, np.ndarray]]:
        """Each head's distribution parameters (``probs``, or ``mean``/``std``, ...), ``[B, ...]`` (B=1 if single)."""
        network, logits, _ = self._logits(observation, actor_id)
        return {
            head: sampler.parameters(head_logits)
            for head, sampler, head_logits in zip(network.heads, network.samplers, logits, strict=True)
        }

    # --- helpers -------------------------------------------------------------------------

    def network_key(self, actor_id: Optional[ActorID]) -> Any:
        """The key of the network that serves ``actor_id`` (see ``TorchPolicy.network_key``).

        Raises:
            ValueError: ``actor_id`` is None but the policy has several networks.
            KeyError: No network serves the actor.
        """
        if actor_id is None:
            if len(self.networks) != 1:
                raise ValueError(f"OnnxPolicy has networks {list(self.networks)}; pass actor_id to pick one")
            return next(iter(self.networks))
        key = tuple(actor_id) if actor_id[0] in self.separate_agent_steps else actor_id[0]
        if key not in self.networks:
            raise KeyError(f"OnnxPolicy has no network for actor {tuple(actor_id)}; networks: {list(self.networks)}")
        return key

    def _logits(self, observation: Mapping[str, Any], actor_id: Optional[ActorID]) -> tuple[_Network, list, bool]:
        """Runs the actor's network; returns it, the head logits ``[B, *logits_shape]`` and whether the input was batched."""
        network = self.networks[self.network_key(actor_id)]
        feed, batched = {}, None
        for item in network.inputs:
            value = np.asarray(observation[item.name], dtype=np.float32)
            if item.discrete:
                value = value[..., None]
            if batched is None:
                batched = value.ndim == len(item.shape) + 1
            feed[item.name] = value if batched else value[None]
        return network, network.session.run(network.heads, feed), bool(batched)

    def _load(self, entry: Mapping[str, Any], onnxruntime: Any, options: Any) -> _Network:
        """Opens one network's ONNX file and checks it against the metadata."""
        path = self.model_dir / entry["file"]
        if Path(entry["file"]).name != entry["file"] or not path.is_file():
            raise ConfigurationError(
                f"the exported policy {str(self.model_dir)!r} lacks its network file {entry['file']!r}"
            )
        try:
            session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        except Exception as error:  # onnxruntime raises its own exception types for unreadable models
            raise ConfigurationError(f"onnxruntime cannot load {str(path)!r}: {error}") from None
        declared = {
            item["name"]: _Input(item["name"], tuple(item["shape"]), bool(item["discrete"])) for item in entry["inputs"]
        }
        for node in session.get_inputs():
            expected = declared.get(node.name)
            if expected is None or tuple(node.shape[1:]) != expected.shape:
                raise ConfigurationError(
                    f"{str(path)!r} takes the input {node.name!r} {node.shape}, but its metadata declares "
                    f"{[(item.name, list(item.shape)) for item in declared.values()]}; export the policy again"
                )
        step_key = entry["step_key"]
        action_space = self.spaces_config.action_spaces_dict[step_key]
        heads = tuple(head["name"] for head in entry["heads"])
        outputs = {node.name for node in session.get_outputs()}
        if not set(heads) <= outputs or set(heads) != set(action_space.spaces):
            raise ConfigurationError(
                f"{str(path)!r} returns {sorted(outputs)}, its metadata names the heads {list(heads)} and sub-step "
                f"{step_key!r} has the action heads {list(action_space.spaces)}; export the policy again"
            )
        used = {node.name for node in session.get_inputs()}
        return _Network(
            session=session,
            inputs=tuple(item for item in declared.values() if item.name in used),
            heads=heads,
            samplers=tuple(
                head_sampler(head["name"], action_space[head["name"]], head["distribution"]) for head in entry["heads"]
            ),
        )


def _onnxruntime() -> Any:
    try:
        import onnxruntime
    except ImportError:
        raise ConfigurationError(
            "the ONNX policy needs onnxruntime: install maze-deploy with its onnx extra "
            f"({pip_install_command('maze-deploy[onnx]')})"
        ) from None
    return onnxruntime
