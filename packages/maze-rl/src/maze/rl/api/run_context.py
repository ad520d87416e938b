"""RunContext: train, evaluate and roll out agents from Python with the whole ``maze-run`` configuration.

A RunContext composes the same Hydra config tree as ``maze-run`` (names resolve like
command-line group options), builds the same runner (``cfg.runner``, see
:func:`maze.rl.run.build_runner`) and runs it in a run directory laid out like the command
line's: ``.hydra/config.yaml`` and ``overrides.yaml``, ``maze_cli.log`` and whatever the
runner writes (``state_dict.pt``, TensorBoard events, ``training_summary.json``, ...).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Union

import yaml
from maze.rl.api.configuration import ConfigurationAuditor, ConfigurationLoader, RunSpecification
from maze.rl.api.rollout_stats import RolloutStats
from maze.rl.api.utils import RunContextError, RunMode

if TYPE_CHECKING:
    from maze.deploy.stack_policy import StackPolicy

__all__ = ["RunContext"]

HYDRA_DIR = ".hydra"
"""Directory of the composed config in a run directory (as Hydra writes it for maze-run)."""


class RunContext:
    """A training or rollout job configured like ``maze-run``, driven from Python.

    Every argument takes what the command line takes (a config group option name such as
    ``algorithm="ppo"``), a dict (replaces the config node), or an already built object:
    an env factory (``env=lambda: GymMazeEnv("CartPole-v1")``; not an env instance), a
    model / policy / critic composer, or an algorithm config dataclass
    (``PPOAlgorithmConfig(...)``, which also selects its algorithm). Any trainer with an
    ``algorithm`` and ``algorithm_runner`` config works, including ones added later.

    Args:
        env: ``env`` group option, dict or env factory.
        wrappers: ``wrappers`` group option or dict ``{wrapper class: arguments}``.
        model: ``model`` group option, dict or model composer.
        policy: Training: the policy composer (``model.policy``) as dict or instance.
            Rollout: ``policy`` group option (``random_policy``, ``torch_policy``), dict or policy.
        critic: ``critic`` group option, dict or critic composer (training only).
        algorithm: ``algorithm`` group option, dict of algorithm keys or AlgorithmConfig (training only).
        runner: ``runner`` group option. Default: ``dev`` for training (envs in this process),
            ``sequential`` for rollouts.
        overrides: Config key -> value, e.g. ``{"env.name": "CartPole-v1", "algorithm.n_epochs": 1}``;
            plain values are command-line overrides (``{"+experiment": "cartpole_ppo_fast"}``
            works), dicts and objects replace the node.
        silent: Print nothing (everything still goes to ``maze_cli.log``).
        run_dir: The run directory; default the root config's pattern
            (``outputs/<env>-<model>-<algorithm>-<runner>/<time>``, relative to the current directory).
        configuration: ``"train"`` or ``"rollout"`` (a :class:`RunMode`).

    Raises:
        InvalidSpecificationError: For invalid arguments, unknown options or keys.
    """

    def __init__(
        self,
        env: Any = None,
        wrappers: Any = None,
        model: Any = None,
        policy: Any = None,
        critic: Any = None,
        algorithm: Any = None,
        runner: Optional[str] = None,
        overrides: Optional[Mapping[str, Any]] = None,
        silent: bool = False,
        run_dir: Optional[Union[str, os.PathLike]] = None,
        configuration: Union[str, RunMode] = RunMode.TRAINING,
    ) -> None:
        spec = RunSpecification(
            env=env,
            wrappers=wrappers,
            model=model,
            policy=policy,
            critic=critic,
            algorithm=algorithm,
            runner=runner,
            overrides=dict(overrides or {}) if isinstance(overrides, Mapping) or overrides is None else overrides,
            configuration=configuration,
        )
        ConfigurationAuditor().audit(spec)
        if spec.runner is None:
            spec.runner = "dev" if spec.mode is RunMode.TRAINING else "sequential"
        self.mode = spec.mode
        self.silent = silent
        self._loaded = ConfigurationLoader(spec).load()
        self._run_dir = Path(os.path.abspath(run_dir if run_dir is not None else self._loaded.run_dir))
        self._runner: Any = None
        self._policy: Any = None
        self._inference: Optional[StackPolicy] = None

    # --- properties --------------------------------------------------------------------------

    @property
    def run_dir(self) -> Path:
        """The run directory (absolute; created by the first job)."""
        return self._run_dir

    @property
    def config(self) -> dict[str, Any]:
        """The resolved job config; built objects are named by type (as in ``.hydra/config.yaml``)."""
        return self._loaded.loggable

    @property
    def runner(self) -> Any:
        """The runner of the last job (None before the first); e.g. ``rc.runner.trainer`` after training."""
        return self._runner

    @property
    def policy(self) -> Any:
        """The trained policy with the best model's weights (a TorchPolicy in eval mode).

        Usable by :class:`~maze.train.evaluators.RolloutEvaluator` and by rollouts
        (``RunContext(configuration="rollout", policy=rc.policy, ...)``). It takes the observations
        the run's wrappers made (normalized, ...); for observations of the bare env use
        :meth:`compute_action` or :meth:`compute_maze_action`.

        Raises:
            RunContextError: Before :meth:`train`.
        """
        if self._policy is None:
            runner = self._trained_runner("policy")
            from maze.perception.serialization import load_state_dict_file

            policy = runner.composer.torch_policy("cpu")
            policy.load_state_dict(load_state_dict_file(Path(runner.run_dir) / runner.state_dict_dump_file))
            policy.eval()
            self._policy = policy
        return self._policy

    # --- jobs --------------------------------------------------------------------------------

    def train(self, n_epochs: Optional[int] = None, **algorithm_overrides: Any) -> Optional[float]:
        """Runs the training job once (a second call raises: start a new RunContext to train again).

        Args:
            n_epochs: Epochs to train (sets ``algorithm.n_epochs``; None: the config's value).
            **algorithm_overrides: Other algorithm keys, e.g. ``lr=0.001`` (validated like the config).

        Returns:
            The runner's objective: the best evaluation reward.

        Raises:
            RunContextError: Outside training mode or when training ran already.
            ConfigurationError: For invalid algorithm keys or values (as ``maze-run`` reports them).
        """
        if self.mode is not RunMode.TRAINING:
            raise RunContextError("train() needs configuration='train'; this RunContext is for rollouts")
        if self._runner is not None:
            raise RunContextError(
                f"train() ran already in {self.run_dir}; to continue from its best model, create a new RunContext "
                f"with overrides={{'input_dir': {str(self.run_dir)!r}}}"
            )
        updates = dict(algorithm_overrides) | ({} if n_epochs is None else {"n_epochs": n_epochs})
        config = self._job_config({"algorithm": updates})
        return self._run_job(config)

    def evaluate(self, n_episodes: Optional[int] = None, deterministic: Optional[bool] = None) -> float:
        """Evaluates the trained policy (the best model) with a RolloutEvaluator on fresh envs.

        Args:
            n_episodes: Episodes (default: ``algorithm.rollout_evaluator.n_episodes``, else 8).
            deterministic: Act greedily (default: the evaluator config's ``deterministic``, else True).

        Returns:
            The mean episode return; the ``eval`` statistics are printed unless silent.

        Raises:
            RunContextError: Before :meth:`train`.
        """
        from maze.env.log_stats.global_state import register_log_stats_writer, unregister_log_stats_writer
        from maze.env.log_stats.writers import LogStatsWriterConsole
        from maze.train.evaluators import RolloutEvaluator
        from maze.train.runners.env_factory import build_vector_env

        runner = self._trained_runner("evaluate()")
        evaluator_config = (self._loaded.config.get("algorithm") or {}).get("rollout_evaluator")
        settings = evaluator_config if isinstance(evaluator_config, Mapping) else {}
        n_episodes = n_episodes or int(settings.get("n_episodes", 8))
        deterministic = bool(settings.get("deterministic", True)) if deterministic is None else deterministic
        policy = self.policy
        with self._job_scope():
            eval_env = build_vector_env(runner.env_factory, min(n_episodes, 8), subprocesses=False)
            writer = LogStatsWriterConsole()
            register_log_stats_writer(writer)
            try:
                seeds = [runner.seeding.generate_env_instance_seed() for _ in range(eval_env.n_envs)]
                evaluator = RolloutEvaluator(eval_env, n_episodes, deterministic=deterministic, seeds=seeds)
                return evaluator.evaluate(policy)
            finally:
                unregister_log_stats_writer(writer)
                eval_env.close()

    def compute_action(
        self,
        observation: Any,
        actor_id: Any = None,
        deterministic: bool = False,
        preprocessed: bool = False,
    ) -> Any:
        """The trained policy's action for an observation of the env without the run's wrappers.

        The observation goes through the run's wrapper stack first, as in training: every
        observation wrapper's ``observation()``, normalization with the run's statistics
        (``statistics.npz``). The action comes back for that env (every action wrapper's
        ``action()`` applied). For an env the policy trained on::

            env = GymMazeEnv("CartPole-v1")
            observation, _ = env.reset()
            env.step(rc.compute_action(observation))  # {'action': 1}

        Stacks that keep state between steps (frame stacking) need the episode: use
        ``AgentDeployment.from_run_dir(rc.run_dir)`` there.

        Args:
            observation: What the env's ``reset()``/``step()`` return (``{'observation': array}``
                for GymMazeEnv); with ``preprocessed`` the policy's own input (the observation after
                the wrappers, e.g. normalized; also a batch ``[B, *shape]`` per key).
            actor_id: The acting actor of structured envs (None: the first sub-step's agent 0).
            deterministic: Take the most likely action instead of sampling.
            preprocessed: The observation went through the run's wrappers already: passed to the
                policy unchanged, and the policy's action is returned.

        Raises:
            RunContextError: Before :meth:`train`.
            ObservationOutsideSpaceError: ``observation`` is no observation of the env (the message
                points to :meth:`compute_maze_action` and ``preprocessed``).
            WrapperStackError: The wrappers keep state between steps, or one failed.
        """
        return self._stack_policy("compute_action()").compute_action(observation, actor_id, deterministic, preprocessed)

    def compute_maze_action(self, maze_state: Any, actor_id: Any = None, deterministic: bool = False) -> Any:
        """The trained policy's MazeAction for a MazeState, e.g. a plain gymnasium env's observation.

        For ``gymnasium.make("CartPole-v1")``: its observation in, its action (``1``) out. The
        state goes through the env's observation conversion and the run's wrappers, as in
        :meth:`compute_action`; the result equals the first action of
        ``AgentDeployment.from_run_dir(rc.run_dir)`` in that state.

        Args:
            maze_state: A gymnasium env's observation, or ``env.get_maze_state()`` of a Maze env.
            actor_id: The acting actor of structured envs (None: the first sub-step's agent 0).
            deterministic: Take the most likely action instead of sampling.

        Raises:
            RunContextError: Before :meth:`train`.
            ObservationOutsideSpaceError: ``maze_state`` is no MazeState of the env.
            WrapperStackError: The wrappers keep state between steps, or one failed.
        """
        return self._stack_policy("compute_maze_action()").compute_maze_action(maze_state, actor_id, deterministic)

    def rollout(self, n_episodes: Optional[int] = None, **runner_overrides: Any) -> RolloutStats:
        """Runs the rollout job (configuration='rollout'); may be called repeatedly.

        Args:
            n_episodes: Episodes (sets ``runner.n_episodes``; None: the config's value).
            **runner_overrides: Other rollout runner keys, e.g. ``max_episode_steps=100``.

        Returns:
            The episode statistics by name, e.g. ``stats["BaseEnvEvents/reward/mean"]``,
            ``stats["BaseEnvEvents/reward/episode_count"]`` (see :class:`RolloutStats`; ``print(stats)``
            lists all names).
        """
        if self.mode is not RunMode.ROLLOUT:
            raise RunContextError("rollout() needs configuration='rollout'; this RunContext trains (use train())")
        updates = dict(runner_overrides) | ({} if n_episodes is None else {"n_episodes": n_episodes})
        self._run_job(self._job_config({"runner": updates}))
        return RolloutStats(self._runner.last_stats)

    # --- pieces ------------------------------------------------------------------------------

    def _stack_policy(self, what: str) -> StackPolicy:
        """The trained policy behind the run's wrapper stack (built on first use by ``what``)."""
        if self._inference is None:
            from maze.deploy.stack_policy import StackPolicy

            runner = self._trained_runner(what)
            self._inference = StackPolicy(self.policy, runner.env_factory())
        return self._inference

    def _trained_runner(self, what: str) -> Any:
        if self._runner is None or self.mode is not RunMode.TRAINING:
            raise RunContextError(f"{what} needs a trained model: call train() first")
        return self._runner

    def _job_config(self, updates: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
        """The job config with ``updates`` (group -> keys) applied to a copy of the group nodes."""
        config = dict(self._loaded.config)
        for group, values in updates.items():
            if values:
                config[group] = dict(config.get(group) or {}) | dict(values)
        return config

    def _run_job(self, config: dict[str, Any]) -> Optional[float]:
        """Builds the runner of ``config``, sets it up and runs it in the run directory (log steps from 0)."""
        from maze.env.log_stats.global_state import set_log_step
        from maze.rl.run import build_runner

        set_log_step(0)  # a job's statistics start at its own step 1, not after an earlier job of this process
        with self._job_scope():
            self._write_hydra_dir(config)
            runner = build_runner(config)
            runner.setup(config)
            self._runner, self._policy, self._inference = runner, None, None
            return runner.run()

    def _write_hydra_dir(self, config: dict[str, Any]) -> None:
        from maze.env.utils.loggable_config import loggable_config

        hydra_dir = self.run_dir / HYDRA_DIR
        hydra_dir.mkdir(parents=True, exist_ok=True)
        (hydra_dir / "config.yaml").write_text(yaml.safe_dump(loggable_config(config), sort_keys=False))
        (hydra_dir / "overrides.yaml").write_text(yaml.safe_dump(self._loaded.overrides))

    @contextlib.contextmanager
    def _job_scope(self) -> Iterator[None]:
        """In the run directory, with the output copied to ``maze_cli.log`` (and hidden when silent).

        maze's library lines show on stdout as with ``maze-run``, unless the application configured logging
        (see :func:`~maze.env.utils.library_output.show_library_output`).
        """
        from maze.env.utils.library_output import show_library_output
        from maze.rl.job_output import tee_output_to_job_log

        show_library_output()
        self.run_dir.mkdir(parents=True, exist_ok=True)
        previous = os.getcwd()
        with contextlib.ExitStack() as stack:
            if self.silent:
                devnull = stack.enter_context(open(os.devnull, "w", encoding="utf-8"))
                stack.enter_context(contextlib.redirect_stdout(devnull))
                stack.enter_context(contextlib.redirect_stderr(devnull))
            stack.enter_context(tee_output_to_job_log(str(self.run_dir)))
            os.chdir(self.run_dir)
            try:
                yield
            finally:
                os.chdir(previous)
