"""BCRunner: behavioural cloning on any backend (``algorithm=bc``)."""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Optional

from maze.env.errors import ConfigurationError
from maze.env.trajectory_recording.spaces_records import SpacesRecord
from maze.env.trajectory_recording.trajectory_files import TrajectoryLoadError
from maze.env.utils.factory import Factory, to_plain_config
from maze.rollout.datasets import (
    InMemoryDataset,
    TrajectoryConversionError,
    TrajectoryProcessor,
    find_trajectory_files,
    random_split,
    resolve_data_paths,
)
from maze.rollout.runner import outputs_note
from maze.train.evaluators.rollout_evaluator import RolloutEvaluator
from maze.train.runners.training_runner import TrainingRunner
from maze.train.trainers.bc.config import BCAlgorithmConfig
from maze.train.trainers.bc.data import ImitationData
from maze.train.trainers.bc.loss import BCLoss
from maze.train.trainers.bc.trainer import SPLIT_SEED_STATE
from maze.train.trainers.bc.validation import BCValidationEvaluator

logger = logging.getLogger(__name__)

__all__ = ["BCRunner"]

DATASET_SEARCH_MODULES = ("maze.rollout.datasets",)
"""Short ``_target_`` names of datasets and trajectory processors (e.g. ``InMemoryDataset``)."""


class BCRunner(TrainingRunner):
    """Behavioural cloning from a trajectory dataset (``runner.dataset``).

    The dataset is built with the training env (env + wrappers, e.g. observation
    normalization) as its conversion env, so recorded MazeStates become the observations the
    policy will see; it is split into training and validation items
    (``algorithm.validation_percentage``). The run directory gets the same files as an RL
    run (``state_dict.pt`` of the best model, spaces and model config, normalization
    statistics, TensorBoard events), so ``policy=torch_policy input_dir=<run dir>`` rolls
    the cloned policy out and ``algorithm=ppo input_dir=<run dir>`` fine-tunes it. The backend
    places the envs of the rollout evaluation (``eval_concurrency``, 0: one per episode, at most
    32, placed by the backend); data loading uses ``dataset.n_workers`` processes.

    Args:
        dataset: Config of the dataset: ``_target_`` (a sequence of SpacesRecords taking
            ``conversion_env_factory``, e.g. ``maze.rollout.datasets.InMemoryDataset``) and its
            arguments; ``dir_or_file`` is accepted as an alias of ``input_data``; a
            ``trajectory_processor`` config is instantiated.
        launch_dir: Relative dataset paths are taken from here (``maze-run`` passes the
            directory it was started in); None: the working directory.
        *args: The positional arguments of :class:`TrainingRunner` (``trainer_class``).
        **kwargs: The other :class:`TrainingRunner` arguments (``trainer_class``, ``backend``,
            ``eval_concurrency``: envs of the rollout evaluation, 0 chooses automatically;
            ``non_finite``, ``cpu_threads``, ...).
    """

    default_trainer = "maze.train.trainers.bc.BCTrainer"

    def __init__(self, *args: Any, dataset: Any, launch_dir: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.dataset_config = dict(to_plain_config(dataset) or {})
        self.launch_dir = Path(launch_dir) if launch_dir else None

    def setup(self, cfg: Any) -> None:
        """Checks that the dataset path holds trajectory files, then sets up as :meth:`TrainingRunner.setup`.

        Raises:
            TrajectoryLoadError: For a missing path or a directory without trajectory files
                (before any env or model is built).
        """
        self.dataset_config = self._dataset_config()
        with _naming_the_data_key():
            find_trajectory_files(self.dataset_config["input_data"])
        super().setup(cfg)

    def _model_composer(self, env: Any) -> Any:
        """Rejects action spaces BC cannot train before the model is built."""
        BCLoss.check_action_spaces(env.action_spaces_dict)
        return super()._model_composer(env)

    def setup_trainer(self, config: BCAlgorithmConfig) -> None:
        """Builds ``self.trainer``: dataset, training/validation data, policy, evaluators and model selection.

        Raises:
            ConfigurationError: For a dataset without items or of another env.
        """
        validation_share = config.validation_percentage / 100
        policy = self.composer.torch_policy(self.device)
        if self.input_run is not None:
            self.load_input_model(policy)
        dataset = self.build_dataset()
        loss = BCLoss(self.spaces_config.action_spaces_dict, config.entropy_coef, policy_distribution_classes(policy))
        # A resumed run validates on the items its first part validated on: a new split would validate on items
        # the first part trained on, and its scores would not compare with the restored best score.
        split = self.input_run.saved_state_for(self.trainer_class, SPLIT_SEED_STATE) if self.input_run else None
        seed = int(split["seed"]) if split else self.seeding.generate_agent_instance_seed()
        train_items, validation_items = split_items(dataset, validation_share, seed)
        files = getattr(dataset, "files", None)
        source = f" of {len(files)} trajectory files in {self.dataset_config['input_data']}" if files else ""
        logger.info(
            f"Behavioural cloning on {len(dataset)} recorded sub-steps{source}: {len(train_items)} for training, "
            f"{len(validation_items)} for validation"
        )
        train_data = self._imitation_data(train_items, policy, loss)
        self.model_selection = self.best_model_selection(policy)
        validation = (
            BCValidationEvaluator(self._imitation_data(validation_items, policy, loss), loss)
            if len(validation_items)
            else None
        )
        self.trainer = self.trainer_class(
            config,
            train_data,
            policy,
            loss,
            validation,
            self._rollout_evaluator(config.n_eval_episodes),
            self.model_selection,
            seed,
        )

    def build_dataset(self) -> Sequence[SpacesRecord]:
        """The dataset of ``runner.dataset``, converting recorded MazeStates with the training env.

        Raises:
            ConfigurationError: For a config without data path, or a dataset without items.
            TrajectoryLoadError: For a missing path, a directory without trajectory files or
                a corrupt file (naming ``runner.dataset.input_data``).
        """
        config = dict(self.dataset_config)
        processor = config.get("trajectory_processor")
        if processor is not None:
            config["trajectory_processor"] = Factory(TrajectoryProcessor, DATASET_SEARCH_MODULES).instantiate(processor)
        try:
            with _naming_the_data_key():
                dataset = Factory(Sequence, DATASET_SEARCH_MODULES).instantiate(
                    config, conversion_env_factory=self.env_factory
                )
        except TrajectoryConversionError as error:
            env = to_plain_config(self.cfg.get("env"))
            raise TrajectoryConversionError(
                f"the dataset does not fit the configured env {env} with its wrappers (recorded on another env?): "
                f"{error}"
            ) from error
        if not len(dataset):
            raise ConfigurationError(
                f"the dataset {config['input_data']} holds no recorded steps (empty episodes, or a trajectory "
                "processor dropped them all); record some episodes first"
            )
        return dataset

    def _dataset_config(self) -> dict[str, Any]:
        """``runner.dataset`` with the ``dir_or_file`` alias applied and data paths made absolute.

        Raises:
            ConfigurationError: If no data path is given.
        """
        config = dict(self.dataset_config)
        alias = config.pop("dir_or_file", None)
        if alias is not None:
            config["input_data"] = alias
        if not config.get("input_data"):
            raise ConfigurationError(
                "runner.dataset.input_data is empty; pass the trajectory directory of a rollout, e.g. "
                "runner.dataset.input_data=<absolute path>/trajectory_data"
            )
        config.setdefault("_target_", "maze.rollout.datasets.InMemoryDataset")
        config["input_data"] = resolve_data_paths(config["input_data"], self.launch_dir)
        return config

    def _imitation_data(self, items: Sequence[SpacesRecord], policy: Any, loss: BCLoss) -> ImitationData:
        """Stacks items into tensors per network and checks their actions against the env's action spaces."""
        data = ImitationData(items, policy.network_key, self.device)
        for key, block in data.blocks.items():
            loss.check_actions(data.actor_ids[key][0], block.actions)
        return data

    def _rollout_evaluator(self, n_episodes: int) -> Optional[RolloutEvaluator]:
        if not n_episodes:
            return None
        placed, seeds = self.evaluation_envs(n_episodes)
        return RolloutEvaluator(placed.env, n_episodes, deterministic=True, seeds=seeds)

    def run(self, n_epochs: Optional[int] = None) -> float:
        """Trains and writes ``training_summary.json``.

        Returns:
            The best score (the negative validation loss, or the rollout return without validation data).
        """
        try:
            result, summary = self.train_with_summary(lambda: self.trainer.train(n_epochs))
            samples = self.trainer.samples_trained
            logger.info(
                f"Training stopped: {result.stop_reason}. {samples} samples in {result.train_seconds:.1f}s of training "
                f"({samples / max(result.train_seconds, 1e-9):,.0f} samples/s); best score {result.best_reward:.5f}. "
                f"{outputs_note(self.run_dir, [summary.name])}"
            )
            return result.best_reward
        finally:
            self.graph_drawing.join()
            if self.trainer.rollout_evaluator is not None:
                self.trainer.rollout_evaluator.eval_env.close()
            self.close()


def policy_distribution_classes(policy: Any) -> dict[Any, dict[str, type]]:
    """Sub-step key -> action head -> the distribution class the policy's DistributionMapper(s) chose."""
    mappers = policy.distribution_mapper
    if not isinstance(mappers, Mapping):
        mappers = {key[0] if isinstance(key, tuple) else key: mappers for key in policy.networks}
    return {
        key: {head: mapper.distribution_class(head) for head in mapper.action_space.spaces}
        for key, mapper in mappers.items()
    }


def split_items(
    dataset: Sequence[SpacesRecord], validation_share: float, seed: int
) -> tuple[Sequence[SpacesRecord], Sequence[SpacesRecord]]:
    """Random training and validation subsets (``validation_share`` of the items, rounded)."""
    if isinstance(dataset, InMemoryDataset):
        return dataset.train_validation_split(validation_share, seed=seed)
    n_validation = int(round(validation_share * len(dataset)))
    train, validation = random_split(dataset, [len(dataset) - n_validation, n_validation], seed)
    return train, validation


@contextmanager
def _naming_the_data_key() -> Iterator[None]:
    """Re-raises a :class:`TrajectoryLoadError` (missing path, no or corrupt files) naming ``runner.dataset.input_data``."""
    try:
        yield
    except TrajectoryLoadError as error:
        raise TrajectoryLoadError(
            f"runner.dataset.input_data: {error}. Set it to the trajectory_data directory of a rollout, e.g. "
            "runner.dataset.input_data=<rollout run directory>/trajectory_data"
        ) from error
