"""RLlibRunner: the ``runner`` of ``conf_rllib``: Maze env, Maze model and Maze run directory, RLlib's algorithm.

``maze-run -cn conf_rllib env.name=CartPole-v1 rllib/algorithm=ppo model=vector_obs`` builds,
like the native training runners (it is a :class:`TrainingRunner`): the env from ``env`` and
``wrappers`` (observation normalization statistics estimated and stored), the model composer
from ``model`` (a critic picked when none is configured) and the run directory
(``spaces_config.yaml``, ``model_config.yaml``, TensorBoard events, console statistics). RLlib
then trains a :class:`~maze.rllib.rl_module.MazeRLModule` on
:class:`~maze.rllib.env.MazeRLlibEnv` s (a structured env: one module per sub-step on a
:class:`~maze.rllib.multi_agent_env.MazeMultiAgentEnv`); after each evaluation the best weights go to
``state_dict.pt``, which ``policy=torch_policy input_dir=<run>`` and
``AgentDeployment.from_run_dir`` load like those of native runs.
"""

from __future__ import annotations

import contextlib
import os
from typing import Annotated, Any, Optional

from maze.env.errors import ConfigurationError
from maze.env.utils.factory import resolve_target, to_plain_config
from maze.env.utils.loggable_config import loggable_config
from maze.perception.agent.torch_actor_critic import TorchActorCritic
from maze.perception.checkpoint import MODEL_CONFIG_FILE
from maze.perception.models.spaces_config import SpacesConfig
from maze.perception.serialization import save_model_config
from maze.rllib.algorithm_config import RLlibAlgorithmConfig, rllib_config
from maze.rllib.default_model import (
    RLLIB_MODULE_DIR,
    RLlibDefaultModel,
    RLlibModuleEvaluation,
    flatten_observations_connector,
)
from maze.rllib.env import FACTORY_KEY, PLAIN_ACTION_KEY, MazeRLlibEnv, single_action_head
from maze.rllib.trainer import MazeModelEvaluation, RLlibTrainer
from maze.rollout.ray_cluster import RayCluster
from maze.train.bounds import Bounds
from maze.train.core.model_selection import BestModelSelection
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
        step_keys = list(self.spaces_config.action_spaces_dict)
        rllib = rllib_config(config.name, config.config).env_runners(
            num_env_runners=self.num_env_runners, num_envs_per_env_runner=self.num_envs_per_env_runner
        )
        if isinstance(self.composer, RLlibDefaultModel):
            if len(step_keys) != 1:
                raise ConfigurationError(
                    f"model=rllib trains envs with a single sub-step; the env has the sub-steps {step_keys}: use its "
                    "Maze model (one RLlib module per sub-step)"
                )
            evaluation = self._rllib_model(rllib, step_keys[0])
        else:
            _check_maze_module_apis(rllib, config.name)
            evaluation = self._maze_model(rllib, step_keys)
        self.rllib_config = rllib.debugging(seed=self.seeding.generate_agent_instance_seed())
        n_envs = self.eval_concurrency or min(config.eval_episodes, MAX_AUTO_EVAL_ENVS)
        evaluator = RolloutEvaluator(
            build_vector_env(self.env_factory, n_envs, subprocesses=False),
            n_episodes=config.eval_episodes,
            model_selection=self.model_selection,
            deterministic=True,
            seeds=[self.seeding.generate_env_instance_seed() for _ in range(n_envs)],
        )
        self.trainer = RLlibTrainer(None, config, evaluation, evaluator, verbose=self.verbose)

    def _maze_model(self, rllib: Any, step_keys: list[Any]) -> MazeModelEvaluation:
        """Trains the Maze model as :class:`MazeRLModule` s (one per sub-step); the best goes to ``state_dict.pt``.

        A single sub-step is a single-agent env with RLlib's default module id; several sub-steps
        are a turn-based multi-agent env (:class:`MazeMultiAgentEnv`), each sub-step's agent mapped
        to its own module.
        """
        from maze.rllib.rl_module import MazeRLModule, maze_module_config
        from ray.rllib.core import DEFAULT_MODULE_ID
        from ray.rllib.core.rl_module.rl_module import RLModuleSpec

        specs = {
            key: RLModuleSpec(
                module_class=MazeRLModule, model_config=maze_module_config(self.model_config, self.spaces_config, key)
            )
            for key in step_keys
        }
        env_config = {FACTORY_KEY: self.env_factory}
        separate = set(self.composer.policy.substeps_with_separate_agent_nets)
        if len(step_keys) > 1 and separate:
            raise ConfigurationError(
                f"the model has separate agent networks for the sub-steps {sorted(separate)}; maze-rllib maps one "
                "module per sub-step: set model.policy.substeps_with_separate_agent_nets=[]"
            )
        if len(step_keys) == 1:
            rllib.environment(env=MazeRLlibEnv, env_config=env_config).rl_module(rl_module_spec=specs[step_keys[0]])
            modules = {step_keys[0]: DEFAULT_MODULE_ID}
        else:
            modules = self._multi_agent(rllib, env_config, specs)
        model: TorchActorCritic = self.composer.torch_actor_critic()
        self.model_selection = self.best_model_selection(model)
        return MazeModelEvaluation(model, modules)

    @staticmethod
    def _multi_agent(rllib: Any, env_config: dict[str, Any], specs: dict[Any, Any]) -> dict[Any, str]:
        """Configures the multi-agent mapping (agent = module = sub-step); returns sub-step key -> module id."""
        from maze.rllib.multi_agent_env import MazeMultiAgentEnv, agent_id
        from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec

        modules = {key: agent_id(key) for key in specs}
        rllib.environment(env=MazeMultiAgentEnv, env_config=env_config)
        rllib.multi_agent(policies=set(modules.values()), policy_mapping_fn=_module_of_agent)
        rllib.rl_module(
            rl_module_spec=MultiRLModuleSpec(rl_module_specs={modules[key]: spec for key, spec in specs.items()})
        )
        return modules

    def _rllib_model(self, rllib: Any, step_key: Any) -> RLlibModuleEvaluation:
        """Trains RLlib's default module of the algorithm (``model=rllib``); the best goes to ``rllib_module/``."""
        import gymnasium as gym

        action_space = self.spaces_config.action_spaces_dict[step_key]
        head = single_action_head(action_space)
        plain = action_space[head] if head is not None else action_space
        rllib.environment(env=MazeRLlibEnv, env_config={FACTORY_KEY: self.env_factory, PLAIN_ACTION_KEY: True})
        rllib.env_runners(env_to_module_connector=flatten_observations_connector)
        rllib.rl_module(model_config=self.composer.model_config)
        self.model_selection = BestModelSelection(None, None)
        normalized = plain if isinstance(plain, gym.spaces.Box) and rllib.normalize_actions else None
        return RLlibModuleEvaluation(
            self.run_dir / RLLIB_MODULE_DIR, self.spaces_config.observation_spaces_dict[step_key], head, normalized
        )

    def _model_composer(self, env: Any) -> Any:
        """The Maze model composer, or for ``model=rllib`` the :class:`RLlibDefaultModel` (spaces and config saved)."""
        model_config = dict(to_plain_config(self.cfg.get("model")) or {})
        target = model_config.get("_target_")
        if not (isinstance(target, str) and resolve_target(target) is RLlibDefaultModel):
            return super()._model_composer(env)
        self.spaces_config = SpacesConfig.from_env(env)
        self.spaces_config.save(self.run_dir / self.spaces_config_dump_file)
        save_model_config(loggable_config(model_config), self.run_dir / MODEL_CONFIG_FILE)
        self.model_config = model_config
        return RLlibDefaultModel(**{key: value for key, value in model_config.items() if key != "_target_"})

    def run(self) -> float:
        """Connects to Ray, builds the RLlib algorithm, trains and reports; returns the best evaluation score."""
        try:
            with self.cluster.connected():
                self.trainer.algorithm = self.rllib_config.build_algo()
                try:
                    return self.train_and_report(self.trainer.train)
                finally:
                    self.trainer.algorithm.stop()
                    with contextlib.suppress(OSError):  # RLlib's log dir (~/ray_results/<time>) stays empty
                        os.rmdir(self.trainer.algorithm.logdir)
        finally:
            self.trainer.evaluator.eval_env.close()
            self.graph_drawing.join()
            self.close()


def _module_of_agent(agent: str, *args: Any, **kwargs: Any) -> str:
    """RLlib's ``policy_mapping_fn`` of structured envs: each sub-step's agent has the module of the same id."""
    return agent


def _check_maze_module_apis(rllib: Any, name: str) -> None:
    """Checks that a Maze model offers the module APIs the algorithm's learner needs (SAC's Q networks do not exist).

    Raises:
        ConfigurationError: Naming the missing APIs and ``model=rllib``.
    """
    from maze.rllib.rl_module import MazeRLModule

    required = rllib.get_default_learner_class().rl_module_required_apis()
    missing = [api.__name__ for api in required if not issubclass(MazeRLModule, api)]
    if missing:
        raise ConfigurationError(
            f"RLlib's {name} needs an RLModule with {', '.join(missing)}, which Maze models do not offer; train with "
            "RLlib's own default model: model=rllib"
        )
