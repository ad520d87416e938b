"""RLlibRunner: the ``runner`` of ``conf_rllib``: Maze env, Maze model and Maze run directory, RLlib's algorithm.

``maze-run -cn conf_rllib env.name=CartPole-v1 rllib/algorithm=ppo model=vector_obs`` builds,
like the native training runners (it is a :class:`TrainingRunner`): the env from ``env`` and
``wrappers`` (observation normalization statistics estimated and stored), the model composer
from ``model`` (a critic picked when none is configured) and the run directory
(``spaces_config.yaml``, ``model_config.yaml``, TensorBoard events, console statistics). RLlib
then trains a :class:`~maze.rllib.rl_module.MazeRLModule` on
:class:`~maze.rllib.env.MazeRLlibEnv` s; after each evaluation the best weights go to
``state_dict.pt``, which ``policy=torch_policy input_dir=<run>`` and
``AgentDeployment.from_run_dir`` load like those of native runs.
"""

from __future__ import annotations

import os
from typing import Annotated, Any, Optional

from maze.env.errors import ConfigurationError
from maze.perception.agent.torch_actor_critic import TorchActorCritic
from maze.rllib.algorithm_config import RLlibAlgorithmConfig, rllib_config
from maze.rllib.env import FACTORY_KEY, MazeRLlibEnv
from maze.rllib.trainer import RLlibTrainer
from maze.rollout.ray_cluster import RayCluster
from maze.train.bounds import Bounds
from maze.train.evaluators.rollout_evaluator import RolloutEvaluator
from maze.train.runners.env_factory import MAX_AUTO_EVAL_ENVS, build_vector_env
from maze.train.runners.training_runner import TrainingRunner

__all__ = ["RLLIB_EXTRA", "RLlibRunner"]

RLLIB_EXTRA = "maze-rllib"
"""What to install for RLlib runs (it brings ``ray[rllib]``)."""


class RLlibRunner(TrainingRunner):
    """Trains a Maze model with an RLlib algorithm (see the module docs).

    Args:
        num_env_runners: RLlib env runner actors; 0 samples in this process, None one per CPU but one.
        num_envs_per_env_runner: Envs each env runner steps.
        verbose: Print one line per RLlib iteration.
        ray_address: Cluster address (None: ``RAY_ADDRESS``, else a local Ray; see :class:`RayCluster`).
        ray_init: Further ``ray.init`` arguments.
        normalization_samples: Observations sampled to estimate observation normalization statistics.
        eval_concurrency: Envs of the deterministic evaluation (0: one per episode, at most 32).
        cpu_threads: Intra-op torch threads of this process.

    Raises:
        RayNotInstalledError: One line naming ``maze-rllib`` when Ray is not installed.
    """

    def __init__(
        self,
        num_env_runners: Annotated[Optional[int], Bounds(ge=0)] = 0,
        num_envs_per_env_runner: Annotated[int, Bounds(ge=1)] = 1,
        verbose: bool = True,
        ray_address: Optional[str] = None,
        ray_init: Optional[dict[str, Any]] = None,
        normalization_samples: Annotated[int, Bounds(ge=1)] = 1000,
        eval_concurrency: Annotated[int, Bounds(ge=0)] = 0,
        cpu_threads: Annotated[Optional[int], Bounds(ge=1)] = 1,
    ) -> None:
        self.cluster = RayCluster(address=ray_address, init=ray_init or {}, component="conf_rllib", extra=RLLIB_EXTRA)
        self.cluster.require_ray()
        super().__init__(
            RLlibTrainer,
            eval_concurrency=eval_concurrency,
            normalization_samples=normalization_samples,
            cpu_threads=cpu_threads,
        )
        self.num_env_runners = max(1, (os.cpu_count() or 2) - 1) if num_env_runners is None else num_env_runners
        self.num_envs_per_env_runner = num_envs_per_env_runner
        self.verbose = verbose

    def setup_trainer(self, config: RLlibAlgorithmConfig) -> None:
        """Checks the RLlib config, builds the evaluation and the trainer (the algorithm is built by :meth:`run`).

        Raises:
            ConfigurationError: For unknown or renamed RLlib keys and envs with several sub-steps.
        """
        from maze.rllib.rl_module import MazeRLModule, maze_module_config
        from ray.rllib.core.rl_module.rl_module import RLModuleSpec

        step_keys = list(self.spaces_config.action_spaces_dict)
        if len(step_keys) != 1:
            raise ConfigurationError(
                f"the env has the sub-steps {step_keys}; maze-rllib trains envs with a single sub-step"
            )
        self.rllib_config = (
            rllib_config(config.name, config.config)
            .environment(env=MazeRLlibEnv, env_config={FACTORY_KEY: self.env_factory})
            .env_runners(num_env_runners=self.num_env_runners, num_envs_per_env_runner=self.num_envs_per_env_runner)
            .rl_module(
                rl_module_spec=RLModuleSpec(
                    module_class=MazeRLModule,
                    model_config=maze_module_config(self.model_config, self.spaces_config, step_keys[0]),
                )
            )
            .debugging(seed=self.seeding.generate_agent_instance_seed())
        )
        model: TorchActorCritic = self.composer.torch_actor_critic()
        self.model_selection = self.best_model_selection(model)
        n_envs = self.eval_concurrency or min(config.eval_episodes, MAX_AUTO_EVAL_ENVS)
        evaluator = RolloutEvaluator(
            build_vector_env(self.env_factory, n_envs, subprocesses=False),
            n_episodes=config.eval_episodes,
            model_selection=self.model_selection,
            deterministic=True,
            seeds=[self.seeding.generate_env_instance_seed() for _ in range(n_envs)],
        )
        self.trainer = RLlibTrainer(None, config, model, evaluator, verbose=self.verbose)

    def run(self) -> float:
        """Connects to Ray, builds the RLlib algorithm, trains and reports; returns the best evaluation score."""
        try:
            with self.cluster.connected():
                self.trainer.algorithm = self.rllib_config.build_algo()
                try:
                    return self.train_and_report(self.trainer.train)
                finally:
                    self.trainer.algorithm.stop()
        finally:
            self.trainer.evaluator.eval_env.close()
            self.close()
