"""TrainingRunner: turns a ``conf_train`` config into envs, model, trainer and a run directory."""

from __future__ import annotations

import logging
import multiprocessing
import shlex
import sys
from abc import abstractmethod
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Callable, ClassVar, Optional

import torch
import yaml
from maze.env.errors import ConfigurationError
from maze.env.log_stats.global_state import register_log_stats_writer, set_log_step, unregister_log_stats_writer
from maze.env.log_stats.writers import LogStatsWriter, LogStatsWriterConsole
from maze.env.utils.factory import resolve_target, to_plain_config
from maze.env.utils.loggable_config import loggable_config
from maze.env.utils.seeding import MazeSeeding
from maze.env.utils.untrusted_files import load_untrusted_yaml
from maze.env.wrappers.normalization.normalization_utils import (
    find_normalization_wrapper,
    make_normalized_env_factory,
    obtain_normalization_statistics,
)
from maze.perception.checkpoint import MODEL_CONFIG_FILE, SPACES_CONFIG_FILE, STATE_DICT_FILE
from maze.perception.models.base_model_composer import BaseModelComposer, build_model_composer
from maze.perception.models.policies import ProbabilisticPolicyComposer
from maze.perception.models.spaces_config import SpacesConfig
from maze.perception.models.template_model_composer import TemplateModelComposer
from maze.perception.serialization import load_state_dict_file, save_model_config, save_state_dict
from maze.rollout.runner import Runner, outputs_note
from maze.train.backends import build_backend
from maze.train.backends.base import PlacedEnvs
from maze.train.bounds import Bounds
from maze.train.core.checkpoints import DEFAULT_KEEP_CHECKPOINTS, LAST_STATE_DICT_FILE, write_origin
from maze.train.core.config import AlgorithmConfig, validate_target_config
from maze.train.core.epoch_loop import EpochLoopTrainer
from maze.train.core.model_selection import BestModelSelection
from maze.train.core.training_state import ResumableTrainer, TrainingResult
from maze.train.distributed.subproc_actors import start_fork_server
from maze.train.evaluators.background import BackgroundEvaluation
from maze.train.evaluators.rollout_evaluator import RolloutEvaluator
from maze.train.guards import NonFiniteGuard
from maze.train.progress import TrainingProgress
from maze.train.runners.cpu_threads import apply_cpu_threads
from maze.train.runners.env_factory import MAX_AUTO_EVAL_ENVS, EnvFactory
from maze.train.runners.graphs import GraphDrawing
from maze.train.runners.run_dir import SUMMARY_FILE, InputRun, write_training_summary
from maze.train.tensorboard import LogStatsWriterTensorboard
from maze.train.tracking.setup import start_tracking

logger = logging.getLogger(__name__)

__all__ = ["TrainingRunner"]


class TrainingRunner(Runner):
    """Base of the training runners: builds everything a trainer needs from the job config.

    :meth:`setup` reads ``env``, ``wrappers``, ``model`` (with its ``critic``), ``algorithm``,
    ``seeding`` and ``input_dir``, and writes into the current directory (the run
    directory): ``spaces_config.yaml``, ``model_config.yaml``, normalization statistics,
    graph PDFs of the networks and TensorBoard events. Subclasses (one per algorithm) build
    the trainer; where its envs step and its policies act is the :attr:`backend`'s business
    (see :mod:`maze.train.backends`), so every algorithm runs on every backend.

    Args:
        trainer_class: Dotted path (or class) of the trainer (None: the runner's :attr:`default_trainer`).
        backend: The execution backend: ``dev``, ``local``, ``ray`` (the ``runner`` option sets
            it), a dotted path of an :class:`~maze.train.backends.base.ExecutionBackend`
            subclass, or a built backend.
        eval_concurrency: Evaluation envs; 0 chooses automatically.
        state_dict_dump_file: File of the best model.
        spaces_config_dump_file: File of the env spaces.
        normalization_samples: Observations sampled to estimate normalization statistics.
        dump_interval: Deprecated and ignored (a value gets a note): the latest weights are written to
            a checkpoint, ``checkpoint-<epoch>/``, after every epoch.
        non_finite: On a non-finite reward, loss or gradient: ``stop`` the run (default) or
            ``skip`` the update and count it in the statistics (see :mod:`maze.train.guards`).
        cpu_threads: Intra-op torch threads of this process and of every env worker started
            by it (see :mod:`maze.train.runners.cpu_threads`; None: torch's default).
        progress: ``auto``, ``bar``, ``epoch`` or ``off`` (see :mod:`maze.train.progress`).
        background_evaluation: Evaluate each epoch in a forked child process while the next
            epoch trains (uses a spare core; needs in-process evaluation envs and
            ``cpu_threads=1``, see :mod:`maze.train.evaluators.background`).
        keep_checkpoints: Checkpoints (``checkpoint-<epoch>/``, one per epoch end, see
            :mod:`maze.train.core.checkpoints`) kept in the run directory.
        **backend_options: The backend's keys (e.g. ``start_method``, ``ray_address``).

    Raises:
        ConfigurationError: For ``background_evaluation`` with ``cpu_threads`` other than 1, or
            a key that neither the runner nor its backend takes.
    """

    default_trainer: ClassVar[Optional[str]] = None
    """Dotted path of the algorithm's trainer, for a ``trainer_class`` left out."""

    acts_in_worker_processes: ClassVar[bool] = False
    """Whether the runner's workers act with torch policies (IMPALA, SAC, ES): a fork server then starts early."""

    def __init__(
        self,
        trainer_class: Any = None,
        backend: Any = "dev",
        eval_concurrency: Annotated[int, Bounds(ge=0)] = 0,
        state_dict_dump_file: str = STATE_DICT_FILE,
        spaces_config_dump_file: str = SPACES_CONFIG_FILE,
        normalization_samples: Annotated[int, Bounds(ge=1)] = 1000,
        dump_interval: Annotated[Optional[int], Bounds(ge=1)] = None,
        non_finite: str = "stop",
        cpu_threads: Annotated[Optional[int], Bounds(ge=1)] = 1,
        progress: str = "auto",
        background_evaluation: bool = False,
        keep_checkpoints: Annotated[int, Bounds(ge=1)] = DEFAULT_KEEP_CHECKPOINTS,
        **backend_options: Any,
    ) -> None:
        trainer_class = trainer_class or self.default_trainer
        if trainer_class is None:
            raise ConfigurationError(f"{type(self).__name__} needs a trainer_class (the dotted path of a trainer)")
        self.trainer_class = resolve_target(trainer_class) if isinstance(trainer_class, str) else trainer_class
        self.backend = build_backend(backend, backend_options, type(self).__name__)
        self.eval_concurrency = eval_concurrency
        self.state_dict_dump_file = state_dict_dump_file
        self.spaces_config_dump_file = spaces_config_dump_file
        self.normalization_samples = normalization_samples
        if dump_interval is not None:
            logger.info(
                f"Note: runner.dump_interval={dump_interval} is no longer needed and ignored: the latest weights are "
                f"written to a checkpoint (checkpoint-<epoch>/{LAST_STATE_DICT_FILE}) after every epoch"
            )
        self.guard = NonFiniteGuard(non_finite)
        self.cpu_threads = cpu_threads
        self.progress = TrainingProgress(progress)
        if background_evaluation and cpu_threads != 1:
            raise ConfigurationError(
                f"runner.background_evaluation=true evaluates on a spare core while training runs on one, but "
                f"runner.cpu_threads={cpu_threads} lets torch's threads fight the evaluation for the cores (3x "
                "slower training measured on 2 cores); set runner.cpu_threads=1 or runner.background_evaluation=false"
            )
        self.background_evaluation = background_evaluation
        self.keep_checkpoints = keep_checkpoints
        self.run_dir = Path.cwd()
        self.writers: list[LogStatsWriter] = []
        self.model_selection: Optional[BestModelSelection] = None
        """Keeps the best model (set by :meth:`setup_trainer`, see :meth:`best_model_selection`)."""

    def setup(self, cfg: Any) -> None:
        """Builds the envs, model, trainer and writers of the job (see the class docs).

        Raises:
            ConfigurationError: For invalid configs (the ``runner`` node's arguments included, see
                :func:`~maze.train.core.config.validate_target_config`), an unusable
                ``input_dir`` or an unavailable device.
        """
        self.cfg = to_plain_config(cfg)
        validate_target_config(self.cfg.get("runner"), "runner")
        self.run_dir = Path.cwd()
        apply_cpu_threads(self.cpu_threads)
        self.start_worker_processes_early()
        self.algorithm_config = self.trainer_class.config_class.from_config(dict(self.cfg.get("algorithm") or {}))
        self.device = _check_device(getattr(self.algorithm_config, "device", "cpu"))
        self.seeding = MazeSeeding.from_config(self.cfg.get("seeding"))
        if self.seeding.cudnn_determinism_flag:
            torch.backends.cudnn.deterministic = True
        torch.manual_seed(self.seeding.generate_agent_instance_seed())
        self.input_run = InputRun.open(self.cfg.get("input_dir"))
        if self.input_run is not None and self.input_run.directory.resolve() != self.run_dir.resolve():
            write_origin(
                self.run_dir, self.input_run.directory
            )  # a resume killed before its first save continues there
        self.env_factory = EnvFactory(self.cfg.get("env"), self.cfg.get("wrappers"))
        probe_env = self.env_factory()
        self.env_factory = self._with_normalization(probe_env)
        self.composer = self._model_composer(probe_env)
        probe_env.close()
        if self.input_run is not None:
            stored = SpacesConfig.load(self.input_run.directory / SPACES_CONFIG_FILE)
            stored.check_compatible(
                self.spaces_config, this=f"input_dir {str(self.input_run.directory)!r}", that="configured env"
            )
        self.graph_drawing = GraphDrawing(self.composer, self.run_dir)
        set_log_step(0)  # every run starts at step 0, also the next one in a notebook (a resumed run continues below)
        self._register_writers()
        try:
            self.setup_trainer(self.algorithm_config)
            self._attach_common_layer()
        except BaseException:
            self.graph_drawing.join()
            self.close()
            raise

    def start_worker_processes_early(self) -> None:
        """Called right after the CPU-thread settings, before envs and model are built.

        Starts the fork server of the runner's worker processes when they act with torch
        policies and the backend starts them with one, so its imports (torch, the worker code)
        overlap with the rest of the setup; the processes it forks inherit the thread settings.
        """
        if self.acts_in_worker_processes and self.backend.worker_start_method() == "forkserver":
            start_fork_server()

    @abstractmethod
    def setup_trainer(self, config: AlgorithmConfig) -> None:
        """Builds the trainer (``self.trainer``) from the validated algorithm config and the pieces of :meth:`setup`."""

    def evaluation_envs(self, n_episodes: int) -> tuple[PlacedEnvs, list[int]]:
        """The envs of a rollout evaluation of ``n_episodes`` episodes, placed by the backend, and their seeds.

        ``eval_concurrency`` envs, or one per episode (at most
        :data:`~maze.train.runners.env_factory.MAX_AUTO_EVAL_ENVS`) placed automatically.
        """
        n_envs = self.eval_concurrency or min(n_episodes, MAX_AUTO_EVAL_ENVS)
        placed = self.backend.vector_env(
            self.env_factory, n_envs, automatic=not self.eval_concurrency, role="evaluation"
        )
        return placed, [self.seeding.generate_env_instance_seed() for _ in range(n_envs)]

    def _attach_common_layer(self) -> None:
        """Gives the trainer the shared guards and resume state: every trainer gets them the same way.

        A trainer (and its evaluator) with a ``progress`` attribute gets the run's
        :class:`TrainingProgress`; with ``background_evaluation`` an epoch-loop trainer's rollout
        evaluator runs in the background; a trainer with a ``guard`` attribute gets the run's :class:`NonFiniteGuard`; a
        :class:`ResumableTrainer` writes its resumable state (with the latest weights of the model
        that model selection keeps) into the run directory at every epoch end and, with
        ``input_dir``, continues that run's counters, best score and optimizer state (the latest
        weights were loaded by :meth:`load_input_model`) and writes them here at once.
        """
        if hasattr(self.trainer, "progress"):
            self.trainer.progress = self.progress
        if hasattr(getattr(self.trainer, "evaluator", None), "progress"):
            self.trainer.evaluator.progress = self.progress
        if self.background_evaluation:
            self._attach_background_evaluation()
        if hasattr(self.trainer, "guard"):
            self.guard.source = _env_description(self.cfg.get("env"))
            self.trainer.guard = self.guard
        if isinstance(self.trainer, ResumableTrainer):
            self.trainer.state_dir = self.run_dir
            self.trainer.keep_checkpoints = self.keep_checkpoints
            self.trainer.state_model = None if self.model_selection is None else self.model_selection.model
            if self.input_run is not None:
                checkpoint = self.input_run.checkpoint
                restored = self.trainer.restore_training_state(
                    self.input_run.directory if checkpoint is None else checkpoint.directory
                )
                set_log_step(self.trainer.epochs_done)  # a resumed run's statistics continue its log steps
                logger.info(f"Resumed from input_dir {self.input_run.directory}: {', '.join(restored)}")
                self.trainer.save_training_state()  # resumable from here on, also if stopped in its first epoch

    def _attach_background_evaluation(self) -> None:
        """Hands the trainer's rollout evaluator to a :class:`BackgroundEvaluation` (see ``background_evaluation``).

        Raises:
            ConfigurationError: If the trainer has no epoch loop with a rollout evaluator.
        """
        evaluator = getattr(self.trainer, "evaluator", None)
        if not isinstance(self.trainer, EpochLoopTrainer) or not isinstance(evaluator, RolloutEvaluator):
            has = "no evaluator" if evaluator is None else f"a {type(evaluator).__name__}"
            raise ConfigurationError(
                "runner.background_evaluation=true needs a trainer that evaluates with env rollouts after every "
                f"epoch, but {type(self.trainer).__name__} has {has}; set runner.background_evaluation=false"
            )
        if "fork" not in multiprocessing.get_all_start_methods():
            logger.info(
                "Note: runner.background_evaluation needs fork (not available here); evaluating after each epoch"
            )
            return
        self.trainer.background_evaluation = BackgroundEvaluation(evaluator)

    # --- pieces ----------------------------------------------------------------------------

    def _with_normalization(self, probe_env: Any) -> Any:
        """Estimates (or loads from ``input_dir``) observation normalization statistics and stores them."""
        try:
            wrapper = find_normalization_wrapper(probe_env)
        except ConfigurationError:
            return self.env_factory
        stored = self.input_run.directory / wrapper.statistics_dump if self.input_run else None
        if stored is not None and stored.is_file():
            wrapper.set_normalization_statistics(wrapper.load_statistics(stored))
            logger.info(f"Loaded observation normalization statistics from {stored}")
        elif wrapper.missing_statistics_keys():
            logger.info(f"Estimating observation normalization statistics from {self.normalization_samples} samples")
        statistics = obtain_normalization_statistics(
            probe_env, n_samples=self.normalization_samples, seed=self.seeding.generate_env_instance_seed()
        )
        wrapper.dump_statistics(self.run_dir / wrapper.statistics_dump)
        return make_normalized_env_factory(self.env_factory, statistics)

    def _model_composer(self, env: Any) -> BaseModelComposer:
        """Builds the model composer for the env's spaces and stores the spaces and the model config."""
        model_config = dict(to_plain_config(self.cfg.get("model")) or {})
        if getattr(self.trainer_class, "needs_critic", False) and not model_config.get("critic"):
            model_config["critic"] = _default_critic(model_config, self.trainer_class.__name__)
        model_config["policy"] = self._with_log_std_choice(model_config.get("policy"))
        spaces_config = SpacesConfig.from_env(env)
        composer = build_model_composer(model_config, spaces_config)
        spaces_config.save(self.run_dir / self.spaces_config_dump_file)
        save_model_config(loggable_config(model_config), self.run_dir / MODEL_CONFIG_FILE)
        self.model_config = model_config
        self.spaces_config = spaces_config
        return composer

    def _with_log_std_choice(self, policy_config: Any) -> Any:
        """The policy config with ``state_independent_std`` decided where it is left out (or null).

        The trainer class says what its Gaussian heads learn best with
        (``state_independent_std``: on-policy actor-critics a learned log-std parameter, SAC a
        log-std computed per state); a warm start keeps the choice of the ``input_dir`` run, so its
        weights fit. Policy composers other than :class:`ProbabilisticPolicyComposer` are left as they are.
        """
        if not isinstance(policy_config, dict) or policy_config.get("state_independent_std") is not None:
            return policy_config
        target = policy_config.get("_target_")
        resolved = resolve_target(target) if isinstance(target, str) else target
        if not (isinstance(resolved, type) and issubclass(resolved, ProbabilisticPolicyComposer)):
            return policy_config
        choice = bool(getattr(self.trainer_class, "state_independent_std", False))
        if self.input_run is not None:
            stored_policy = self.stored_model_config().get("policy")
            choice = bool((stored_policy or {}).get("state_independent_std", False))
        return {**policy_config, "state_independent_std": choice}

    def stored_model_config(self) -> dict[str, Any]:
        """The model config the ``input_dir`` run was trained with (``{}`` without one or its file)."""
        if self.input_run is None:
            return {}
        stored = self.input_run.directory / MODEL_CONFIG_FILE
        return dict(load_untrusted_yaml(stored) or {}) if stored.is_file() else {}

    def _register_writers(self) -> None:
        figures = bool(self.cfg.get("tensorboard_figures", True))
        tracking = self._tracking_writers()  # first: a missing tracking extra fails before any writer is open
        self.writers = [LogStatsWriterConsole(), LogStatsWriterTensorboard(self.run_dir, figures=figures), *tracking]
        for writer in self.writers:
            register_log_stats_writer(writer)
        config_text = yaml.safe_dump(loggable_config(self.recorded_config()), sort_keys=False)
        self.writers[1].write_config(config_text, shlex.join(["maze-run", *sys.argv[1:]]))

    def recorded_config(self) -> dict[str, Any]:
        """The job config as TensorBoard and the trackers record it: the base seeds as drawn (null: at random)."""
        seeding = dict(self.cfg.get("seeding") or {})
        seeding.update(env_base_seed=self.seeding.env_global_seed, agent_base_seed=self.seeding.agent_global_seed)
        return {**self.cfg, "seeding": seeding}

    def _tracking_writers(self) -> list[LogStatsWriter]:
        """The writers of the ``logger`` config's trackers (MLflow, W&B; none for TensorBoard only).

        Metrics are tracked at the env-step count of their epoch (the log step for trainers without
        env steps, e.g. BC); a resumed run (``input_dir`` of the same trainer) continues its tracked runs.
        """
        resumed = self.input_run is not None and self.input_run.is_resumed_by(self.trainer_class)
        return start_tracking(
            self.recorded_config(),
            self.run_dir,
            trainer=self.trainer_class.__name__,
            runner=type(self).__name__,
            step_of=lambda log_step: int(getattr(getattr(self, "trainer", None), "env_steps", 0) or 0) or log_step,
            artifacts=[
                self.state_dict_dump_file,
                self.spaces_config_dump_file,
                MODEL_CONFIG_FILE,
                "*.pdf",
                SUMMARY_FILE,
            ],
            summary_file=SUMMARY_FILE,
            resumed_from=self.input_run.directory if resumed else None,
        )

    def load_input_model(self, model: Any) -> None:
        """Loads the ``input_dir`` weights (spaces checked in :meth:`setup`) into ``model``; its best model is copied here.

        A resume (a run of the same trainer) continues from the latest weights of the newest
        checkpoint (:data:`LAST_STATE_DICT_FILE`), which match the restored optimizer state and
        counters; a run directory without them (written by an older maze) resumes from its best
        model with a note. A warm start (another trainer) starts from the best model (``state_dict.pt``); a
        checkpoint without critic (e.g. of a policy-only trainer) initializes the policy only.
        Either way the best model of ``input_dir`` becomes the best model of this run.

        Raises:
            ConfigurationError: If the parameters do not fit the model.
        """
        directory = self.input_run.directory
        best_file = directory / STATE_DICT_FILE
        latest = self.input_run.latest_weights_for(self.trainer_class)
        if latest is None and self.input_run.is_resumed_by(self.trainer_class):
            logger.info(
                f"Note: input_dir {directory} has no {LAST_STATE_DICT_FILE} (written by an older maze): resuming from "
                f"its best model {STATE_DICT_FILE}, whose weights may be older than its optimizer state and counters"
            )
        state_dict = load_state_dict_file(latest or best_file, map_location=model.device)
        if hasattr(model, "critic") and not any(name.startswith("critic") for name in state_dict):
            model.policy.load_state_dict(state_dict)
            logger.info(
                f"Initialized the policy from input_dir {directory} (it has no critic; the critic starts fresh)"
            )
        else:
            model.load_state_dict(state_dict)
            weights = (
                f" with its latest weights ({_relative(latest, directory)}; the best model stays {STATE_DICT_FILE})"
                if latest
                else ""
            )
            logger.info(f"Initialized the model from input_dir {directory}{weights}")
        best = load_state_dict_file(best_file) if latest else model.state_dict()
        save_state_dict(best, self.run_dir / self.state_dict_dump_file)

    def best_model_selection(self, model: Any) -> BestModelSelection:
        """Keeps the best ``model`` in the run directory; a resumed run starts from its best score.

        The best score of ``input_dir`` counts only for a run of the same trainer (see
        :meth:`InputRun.best_reward_for`).
        """
        return BestModelSelection(
            self.run_dir / self.state_dict_dump_file,
            model,
            best_reward=self.input_run.best_reward_for(self.trainer_class) if self.input_run else float("-inf"),
        )

    def train_and_report(self, train: Callable[[], TrainingResult]) -> float:
        """Evaluates a model of ``input_dir`` once, calls ``train``, writes ``training_summary.json`` and reports.

        Args:
            train: Runs the trainer's training loop.

        Returns:
            The best evaluation score.
        """

        def evaluate_then_train() -> TrainingResult:
            self._evaluate_input_model()
            return train()

        result, summary = self.train_with_summary(evaluate_then_train)
        sub_steps = f" ({result.sub_steps} sub-steps)" if result.sub_steps is not None else ""
        logger.info(
            f"Training stopped: {result.stop_reason}. {result.env_steps} env steps{sub_steps} "
            f"in {result.train_seconds:.1f}s "
            f"of training; best evaluation score {result.best_reward:.3f}. {outputs_note(self.run_dir, [summary.name])}"
        )
        return result.best_reward

    def _evaluate_input_model(self) -> None:
        """Evaluates the model of ``input_dir`` once before training (nothing without input_dir or evaluator)."""
        if self.input_run is not None and getattr(self.trainer, "evaluator", None) is not None:
            logger.info("Evaluating the model of input_dir before training")
            self.trainer.evaluate()

    def train_with_summary(self, train: Callable[[], TrainingResult]) -> tuple[TrainingResult, Path]:
        """Calls ``train`` and writes ``training_summary.json``, also when Ctrl-C or SIGTERM interrupts it.

        An interrupted run's summary holds what the trainer achieved so far (its
        :meth:`~maze.train.core.training_state.ResumableTrainer.result_so_far`) with the
        stop reason ``interrupted (<exception>)``; the interruption is raised on.

        Returns:
            What was achieved, and the summary file.
        """
        try:
            result = train()
        except KeyboardInterrupt as interruption:  # SIGTERM arrives as a KeyboardInterrupt subclass (maze-run)
            result = self.trainer.result_so_far(False, f"interrupted ({type(interruption).__name__})")
            write_training_summary(self.run_dir, result)
            raise
        return result, write_training_summary(self.run_dir, result)

    def close(self) -> None:
        """Unregisters and closes the stats writers."""
        for writer in self.writers:
            unregister_log_stats_writer(writer)
            writer.close()
        self.writers = []


def _relative(path: Path, directory: Path) -> str:
    """``path`` relative to ``directory`` where it lies inside (e.g. ``checkpoint-3/last_state_dict.pt``), else whole."""
    try:
        return str(path.relative_to(directory))
    except ValueError:
        return str(path)


def _check_device(device: Any) -> torch.device:
    try:
        resolved = torch.device(str(device))
    except RuntimeError:
        raise ConfigurationError(f"algorithm.device={device!r} is not a torch device; use cpu or cuda") from None
    if resolved.type == "cuda" and not torch.cuda.is_available():
        raise ConfigurationError(
            f"algorithm.device={device} was requested, but CUDA is not available on this machine; "
            "use algorithm.device=cpu"
        )
    return resolved


def _default_critic(model_config: dict[str, Any], trainer_name: str) -> dict[str, Any]:
    """The documented default critic for a model without one (template critic for template models)."""
    target = model_config.get("_target_")
    resolved = resolve_target(target) if isinstance(target, str) else target
    template = isinstance(resolved, type) and issubclass(resolved, TemplateModelComposer)
    name = "template_state" if template else "flatten_concat_state"
    text = resources.files("maze.perception.conf.critic").joinpath(f"{name}.yaml").read_text()
    logger.info(f"{trainer_name} needs a critic and the model has none: using critic={name}")
    return yaml.safe_load(text)["critic"]


def _env_description(env_config: Any) -> str:
    """A short name of the configured env for messages, e.g. ``GymMazeEnv(name=CartPole-v1)``."""
    if not isinstance(env_config, dict):
        return type(env_config).__name__ if env_config is not None else "the env"
    target = str(env_config.get("_target_", "env")).rsplit(".", 1)[-1]
    name = env_config.get("name")
    return f"{target}(name={name})" if name else target
