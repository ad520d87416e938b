"""Configs written against the documented module paths keep working through the explicit alias table."""

from __future__ import annotations

import warnings

import pytest
from maze.env.utils.compat_aliases import all_aliases
from maze.env.utils.factory import resolve_target

DOCUMENTED_ALIASES = all_aliases()
"""maze-env's aliases and those the installed packages register."""

DOCUMENTED_TARGETS = [
    # every maze path of the `_target_` values and wrapper keys in the seed documents' config listings
    "maze.core.agent.random_policy.RandomPolicy",
    "maze.core.rollout.parallel_rollout_runner.ParallelRolloutRunner",
    "maze.core.trajectory_recording.datasets.in_memory_dataset.InMemoryDataset",
    "maze.core.trajectory_recording.datasets.trajectory_processor.IdentityTrajectoryProcessor",
    "maze.core.trajectory_recording.datasets.trajectory_processor.IdentityWithNextObservationTrajectoryProcessor",
    "maze.core.wrappers.maze_gym_env_wrapper.GymMazeEnv",
    "maze.core.wrappers.maze_gym_env_wrapper.make_gym_maze_env",
    "maze.core.wrappers.reward_scaling_wrapper.RewardScalingWrapper",
    "maze.core.wrappers.monitoring_wrapper.MazeEnvMonitoringWrapper",
    "maze.core.wrappers.observation_normalization.observation_normalization_wrapper.ObservationNormalizationWrapper",
    "maze.core.wrappers.observation_preprocessing.preprocessing_wrapper.PreProcessingWrapper",
    "maze.core.wrappers.time_limit_wrapper.TimeLimitWrapper",
    "maze.perception.builders.ConcatModelBuilder",
    "maze.perception.models.critics.StateCriticComposer",
    "maze.perception.models.custom_model_composer.CustomModelComposer",
    "maze.perception.models.policies.ProbabilisticPolicyComposer",
    "maze.perception.models.template_model_composer.TemplateModelComposer",
    "maze.preprocessors.FlattenPreProcessor",
    "maze.preprocessors.OneHotPreProcessor",
    "maze.preprocessors.ResizeImgPreProcessor",
    "maze.preprocessors.Rgb2GrayPreProcessor",
    "maze.preprocessors.UnSqueezePreProcessor",
    "maze.train.trainers.common.evaluators.rollout_evaluator.RolloutEvaluator",
    "maze.normalization_strategies.MeanZeroStdOneObservationNormalizationStrategy",
    "maze.normalization_strategies.RangeZeroOneObservationNormalizationStrategy",
]

DOCUMENTED_UTILITIES = [
    # the documented module paths of the utilities (the seeds' API reference and Python listings)
    "maze.utils.log_stats_utils.setup_logging",
    "maze.utils.log_stats_utils.SimpleStatsLoggingSetup",
    "maze.utils.log_stats_utils.clear_global_state",
    "maze.utils.timeout.Timeout",
    "maze.utils.process.Process",
    "maze.core.rollout.rollout_generator.RolloutGenerator",
    "maze.core.utils.config_utils.read_hydra_config",
    "maze.core.utils.config_utils.make_env_from_hydra",
]

SAME_CLASS_UNDER_ANOTHER_NAME = {"StateCriticComposer": "StepStateCriticComposer"}
"""Documented names that our packages export as another name of the same class."""


@pytest.mark.parametrize("path", DOCUMENTED_TARGETS + DOCUMENTED_UTILITIES)
def test_documented_target_resolves_to_the_class_of_that_name(path: str) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        target = resolve_target(path)
    name = path.rsplit(".", 1)[-1]
    assert target.__name__ == SAME_CLASS_UNDER_ANOTHER_NAME.get(name, name)
    if path in DOCUMENTED_ALIASES:  # a translated path says where the class lives now
        assert any(DOCUMENTED_ALIASES[path] in str(warning.message) for warning in caught)


def test_every_alias_points_at_an_existing_class_of_the_same_name() -> None:
    for old, new in DOCUMENTED_ALIASES.items():
        assert resolve_target(new).__name__ == old.rsplit(".", 1)[-1], old


EARLIER_RELEASE_RUNNERS = {
    # maze's own runner paths of earlier releases (saved in earlier runs' configs): the deprecated runner names
    "maze.train.runners.ACDevRunner": "maze.train.runners.legacy_names",
    "maze.train.runners.ACLocalRunner": "maze.train.runners.legacy_names",
    "maze.train.runners.ImpalaDevRunner": "maze.train.runners.legacy_names",
    "maze.train.runners.ImpalaLocalRunner": "maze.train.runners.legacy_names",
    "maze.train.trainers.actor_critic.actor_critic_runners.ACDevRunner": "maze.train.runners.legacy_names",
    "maze.train.trainers.es.ESLocalRunner": "maze.train.runners.legacy_names",
    "maze.train.trainers.es.es_ray_runner.ESRayRunner": "maze.train.runners.legacy_names",
    "maze.train.trainers.sac.sac_runners.SACDevRunner": "maze.train.runners.legacy_names",
    "maze.train.trainers.imitation.bc_runners.BCLocalRunner": "maze.train.runners.legacy_names",
}


def test_a_runner_config_of_an_earlier_release_builds_the_algorithm_runner_on_its_backend() -> None:
    from maze.rl.run import build_runner

    old = {"_target_": "maze.train.trainers.es.ESLocalRunner", "n_train_workers": 2, "start_method": "spawn"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        runner = build_runner({"runner": old})
    assert (type(runner).__name__, type(runner.backend).__name__) == ("ESRunner", "SubprocessBackend")
    assert (runner.n_train_workers, runner.backend.start_method) == (2, "spawn")


@pytest.mark.parametrize(("path", "module"), EARLIER_RELEASE_RUNNERS.items())
def test_earlier_runner_targets_resolve_to_the_deprecated_runner_names(path: str, module: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        runner = resolve_target(path)
    assert (runner.__module__, runner.__name__) == (module, path.rsplit(".", 1)[-1])
