"""SACRunner: SAC and SACfD on any backend (``algorithm=sac``, ``algorithm=sacfd``)."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from importlib import resources
from typing import Any, Optional

import yaml
from gymnasium import spaces
from maze.env.agent.policy import Policy
from maze.env.errors import ConfigurationError
from maze.env.utils.factory import Factory, resolve_target, to_plain_config
from maze.perception.agent.torch_state_action_critic import TorchStateActionCritic
from maze.perception.models.base_model_composer import build_distribution_mapper, build_model_composer
from maze.perception.models.template_model_composer import TemplateModelComposer
from maze.train.backends.base import ReplayWorkersRequest
from maze.train.distributed.policy_factory import TorchPolicyFactory
from maze.train.replay.replay_buffer import BaseReplayBuffer, UniformReplayBuffer
from maze.train.replay.rollout_buffer import RolloutReplayBuffer
from maze.train.replay.workers import BaseDistributedWorkersWithBuffer, BatchedPolicy
from maze.train.runners.actor_critic_runner import ActorCriticRunner
from maze.train.trainers.sac.config import SACAlgorithmConfig
from maze.train.trainers.sac.demonstrations import (
    demonstration_rollouts,
    load_demonstrations,
    records_to_transitions,
)

logger = logging.getLogger(__name__)

__all__ = ["SACRunner"]

SQUASHED_BOX_RULE = {
    "action_space": "gymnasium.spaces.Box",
    "distribution": "maze.distributions.squashed_gaussian.SquashedGaussianProbabilityDistribution",
}
"""The distribution rule SAC puts first for bounded Box actions (the model's own rules still win).

Unsquashed, a Gaussian's entropy grows without bound as its standard deviation does, and SAC
maximizes entropy: on LunarLanderContinuous-v3 the default model's log-std ran to its clamp (an
entropy of 12 for two action dimensions, the env clipping almost every action to a bound) and the
run early-stopped at 75,000 env steps with -43, where stable-baselines3's SAC (always squashed)
reached 254 within 200,000; squashed, maze's reached 267 (``tools/bench/results/defaults.md``)."""


def _all_box_actions_bounded(action_spaces: Iterable[spaces.Dict]) -> bool:
    """Whether the sub-steps' action spaces have Box heads and every one of them has finite bounds."""
    boxes = [space for action_space in action_spaces for space in action_space.spaces.values()]
    boxes = [space for space in boxes if isinstance(space, spaces.Box)]
    return bool(boxes) and all(space.is_bounded() for space in boxes)


def _head_distributions(action_spaces_dict: Mapping[Any, spaces.Dict], rules: list[Any]) -> list[type]:
    """The distribution class the mapper gives every head under ``rules`` (sub-steps in order)."""
    mapper = build_distribution_mapper(action_spaces_dict, rules)
    mappers = mapper.values() if isinstance(mapper, dict) else [mapper]
    return [each.distribution_class(head) for each in mappers for head in each.action_space.spaces]


class SACRunner(ActorCriticRunner):
    """Builds a SAC trainer: twin Q critics, a replay buffer, its workers, an evaluator and model selection.

    The buffer is filled before training: from ``initial_demonstration_trajectories`` (SACfD)
    or with ``initial_buffer_size`` transitions of ``algorithm.initial_sampling_policy``. With
    ``algorithm.split_rollouts_into_transitions: false`` (flat envs) it stores every worker's
    rollout whole (:class:`RolloutReplayBuffer`). When resuming from ``input_dir`` the model,
    Q networks, optimizers and entropy coefficient are restored; the buffer's transitions are
    not saved and are collected anew.

    The backend places the ``algorithm.num_actors`` acting workers (``runner=dev``: envs and
    policy in this process, deterministic for fixed seeds; ``local``: worker processes, each
    stepping one env with its own copy of the policy, refreshed after every iteration, so a
    rollout may be a couple of iterations stale; ``ray``: Ray actors).

    Args:
        initial_demonstration_trajectories: Dataset config (``InMemoryDataset`` with the
            next-observation trajectory processor) whose transitions seed the buffer (SACfD).
        launch_dir: Relative demonstration paths are taken from here (``maze-run`` passes the
            directory it was started in; None: as given).
        **kwargs: The other :class:`TrainingRunner` arguments.
    """

    default_trainer = "maze.train.trainers.sac.SAC"
    acts_in_worker_processes = True

    def __init__(
        self,
        *args: Any,
        initial_demonstration_trajectories: Optional[Any] = None,
        launch_dir: Optional[str] = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.initial_demonstration_trajectories = initial_demonstration_trajectories
        self.launch_dir = launch_dir

    def _model_composer(self, env: Any) -> Any:
        """Adds the default state-action critic and drops shared policy embeddings (Q(s, a) reads the observation)."""
        model = dict(self.cfg.get("model") or {})
        target = model.get("_target_")
        template = isinstance(target, str) and issubclass(resolve_target(target), TemplateModelComposer)
        if not model.get("critic"):
            name = "template_state_action" if template else "flatten_concat_state_action"
            text = resources.files("maze.perception.conf.critic").joinpath(f"{name}.yaml").read_text()
            logger.info(f"SAC needs a state-action critic and the model has none: using critic={name}")
            model["critic"] = yaml.safe_load(text)["critic"]
        rules = list(to_plain_config(model.get("distribution_mapper_config")) or [])
        if self._squashes_box_actions(rules, env.action_spaces_dict):
            logger.info("SAC: Box actions use tanh-squashed Gaussians (the model maps no distribution for Box)")
            model["distribution_mapper_config"] = [dict(SQUASHED_BOX_RULE), *rules]
        builder = model.get("model_builder")
        if isinstance(builder, dict) and builder.get("shared_embedding_keys"):
            logger.info("SAC: the Q networks read the observations, not the policy's shared embeddings")
            model["model_builder"] = {**builder, "shared_embedding_keys": []}
        self.cfg = {**self.cfg, "model": model}
        return super()._model_composer(env)

    def _squashes_box_actions(self, rules: list[Any], action_spaces_dict: Mapping[Any, spaces.Dict]) -> bool:
        """Whether to put :data:`SQUASHED_BOX_RULE` first: all Box actions bounded, and the rule changes a head.

        The mapper itself decides: later rules and head rules beat the first one, so a model that maps
        Box (or a Box head) on its own keeps its choice. A warm start keeps the choice of the
        ``input_dir`` run, so its weights mean the same.
        """
        if self.input_run is not None:
            stored_rules = self.stored_model_config().get("distribution_mapper_config") or []
            if SQUASHED_BOX_RULE not in stored_rules:
                return False
        elif not _all_box_actions_bounded(action_spaces_dict.values()):
            return False
        squashed = [dict(SQUASHED_BOX_RULE), *rules]
        return _head_distributions(action_spaces_dict, squashed) != _head_distributions(action_spaces_dict, rules)

    def setup_trainer(self, config: SACAlgorithmConfig) -> None:
        """Builds ``self.trainer`` (see the class docs)."""
        model = self.composer.torch_actor_critic(self.device)
        if not isinstance(model.critic, TorchStateActionCritic):
            raise ConfigurationError(
                f"SAC needs a state-action critic (Q(s, a)), got {type(model.critic).__name__}; use "
                "critic=template_state_action (template models) or critic=flatten_concat_state_action"
            )
        step_keys = list(self.spaces_config.action_spaces_dict)
        if not config.split_rollouts_into_transitions and len(step_keys) > 1:
            raise ConfigurationError(
                "algorithm.split_rollouts_into_transitions=false stores whole rollouts of flat envs; this env has "
                f"the sub-steps {step_keys}. Set algorithm.split_rollouts_into_transitions=true"
            )
        second_critic = build_model_composer(self.model_config, self.spaces_config).critic.torch_critic(self.device)
        if self.input_run is not None:
            self.load_input_model(model)
        self.model_selection = self.best_model_selection(model)
        workers = self._workers(config, model.policy)
        evaluator = None
        try:
            evaluator = self._evaluator(config.rollout_evaluator)
            self.trainer = self.trainer_class(config, workers, evaluator, model, second_critic, self.model_selection)
            self._fill_buffer(config, workers)
        except BaseException:
            workers.close()
            if evaluator is not None:
                evaluator.eval_env.close()
            raise

    def _workers(self, config: SACAlgorithmConfig, policy: Any) -> BaseDistributedWorkersWithBuffer:
        """The workers and one replay buffer per sub-step key (each sub-step's actors store their own transitions).

        The buffers store transitions, or whole rollouts with ``split_rollouts_into_transitions: false``.
        """
        buffers = {key: self._replay_buffer(config) for key in self.spaces_config.action_spaces_dict}
        return self.backend.replay_workers(
            ReplayWorkersRequest(
                env_factory=self.env_factory,
                policy=policy,
                policy_factory=TorchPolicyFactory(self.model_config, self.spaces_config),
                replay_buffers=buffers,
                n_rollout_steps=config.n_rollout_steps,
                n_envs=config.num_actors,
                seeding=self.seeding,
            )
        )

    def _replay_buffer(self, config: SACAlgorithmConfig) -> BaseReplayBuffer:
        """A buffer of ``replay_buffer_size`` transitions, or of whole rollouts holding at most as many transitions."""
        seed = self.seeding.generate_agent_instance_seed()
        if config.split_rollouts_into_transitions:
            return UniformReplayBuffer(config.replay_buffer_size, seed=seed)
        return RolloutReplayBuffer(config.replay_buffer_size, config.n_rollout_steps, seed=seed)

    def _fill_buffer(self, config: SACAlgorithmConfig, workers: BaseDistributedWorkersWithBuffer) -> None:
        """Seeds the buffer with the demonstrations or with transitions of the initial sampling policy.

        The initial sampling policy acts until every sub-step's buffer holds ``initial_buffer_size``
        transitions (or is full). Buffers of whole rollouts take the demonstrations as rollouts
        of ``n_rollout_steps`` consecutive transitions (see :func:`demonstration_rollouts`).

        Raises:
            ConfigurationError: For demonstrations of a structured env (SACfD supports flat envs).
        """
        step_keys = list(self.spaces_config.action_spaces_dict)
        step_key = step_keys[0]
        if self.initial_demonstration_trajectories:
            if len(step_keys) > 1:
                raise ConfigurationError(
                    f"SACfD supports flat envs; this env has the sub-steps {step_keys}. Use algorithm=sac, or "
                    "runner.initial_demonstration_trajectories=null"
                )
            records = load_demonstrations(self.initial_demonstration_trajectories, self.env_factory, self.launch_dir)
            transitions = records_to_transitions(
                records,
                self.spaces_config.observation_spaces_dict[step_key],
                self.spaces_config.action_spaces_dict[step_key],
            )
            if not config.split_rollouts_into_transitions:
                transitions = demonstration_rollouts(transitions, config.n_rollout_steps)
            workers.add_transitions([transitions])
            logger.info(f"Initialized the replay buffer with {len(transitions)} demonstration transitions")
            return
        if config.initial_buffer_size == 0:
            return
        sampling_config = config.initial_sampling_policy or {"_target_": "maze.env.agent.random_policy.RandomPolicy"}
        policy = Factory(Policy).instantiate(sampling_config, action_spaces_dict=self.spaces_config.action_spaces_dict)
        if hasattr(policy, "seed"):
            policy.seed(self.seeding.generate_agent_instance_seed())
        batched = BatchedPolicy(policy, workers.n_envs)
        buffers = workers.replay_buffers.values()
        while any(len(buffer) < min(config.initial_buffer_size, buffer.buffer_size) for buffer in buffers):
            workers.collect_rollouts(batched)
        logger.info(
            f"Initialized the replay buffer with {workers.stored_transitions()} transitions of {type(policy).__name__}"
        )
