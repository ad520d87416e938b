import functools
import pickle
import warnings

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from maze.env.agent.random_policy import RandomPolicy
from maze.env.errors import ConfigurationError, MazeError
from maze.env.gym_adapter.gym_maze_env import GymMazeEnv
from maze.env.testing.fake_envs import build_dummy_maze_env, build_multi_step_env
from maze.env.wrappers.normalization import (
    MeanZeroStdOneObservationNormalizationStrategy,
    ObservationNormalizationWrapper,
    RangeZeroOneObservationNormalizationStrategy,
    estimate_observation_normalization_statistics,
    find_normalization_wrapper,
    make_normalized_env_factory,
    obtain_normalization_statistics,
)
from omegaconf import OmegaConf

STRATEGIES = "maze.env.wrappers.normalization.strategies"


def _check(env):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(env, skip_render_check=True)


def _cartpole_config(env):
    return {
        "default_strategy": f"{STRATEGIES}.MeanZeroStdOneObservationNormalizationStrategy",
        "default_strategy_config": {"clip_range": (None, None), "axis": 0},
        "default_statistics": None,
        "statistics_dump": "statistics.npz",
        "sampling_policy": RandomPolicy(env.action_spaces_dict),
        "exclude": None,
        "manual_config": None,
    }


def _cartpole_env():
    env = GymMazeEnv("CartPole-v1")
    return ObservationNormalizationWrapper.wrap(env, **_cartpole_config(env))


def test_normalization_cartpole_mean_zero_std_one():
    # Seeded end to end. CartPole states are strongly autocorrelated within an episode, so
    # 1000 samples hold only ~45 episodes: across seeds the cart position's std ratio
    # varies widely; the other dimensions stay well within the tolerance.
    env = _cartpole_env()
    statistics = obtain_normalization_statistics(env, n_samples=1000, seed=7)
    assert statistics["observation"]["mean"].shape == (4,)

    training_env = _cartpole_env()
    training_env.set_normalization_statistics(statistics)
    training_env.action_space.seed(107)
    observation, _ = training_env.reset(seed=107)
    observations = []
    for _ in range(5000):
        observations.append(observation["observation"])
        observation, _, terminated, truncated, _ = training_env.step(training_env.action_space.sample())
        if terminated or truncated:
            observation, _ = training_env.reset()
    observations = np.stack(observations)
    np.testing.assert_allclose(observations.mean(axis=0), 0.0, atol=0.2)
    np.testing.assert_allclose(observations.std(axis=0), 1.0, atol=0.2)
    assert observations.dtype == np.float32
    _check(training_env)


def test_normalization_missing_statistics_error_says_what_to_do():
    env = _cartpole_env()
    assert env.missing_statistics_keys() == ["observation"]
    with pytest.raises(RuntimeError, match=r"\['observation'\].*obtain_normalization_statistics\(env"):
        env.reset()
    with pytest.raises(RuntimeError, match="dump"):
        env.dump_statistics()


def test_normalization_range_zero_one_with_manual_statistics():
    env = ObservationNormalizationWrapper.wrap(
        build_dummy_maze_env(),
        default_strategy="RangeZeroOneObservationNormalizationStrategy",
        default_strategy_config={"clip_range": [0, 1], "axis": None},
        default_statistics={"min": 0, "max": 255},
        exclude=["action_mask"],
    )
    normalized = env.observation({"observation": np.array([255, 510, -5, 0], np.float32), "action_mask": None})
    np.testing.assert_allclose(normalized["observation"], [1.0, 1.0, 0.0, 0.0])
    space = env.observation_space["observation"]
    assert space.dtype == np.float32 and np.all(space.low == 0.0) and np.all(space.high == 1.0)
    _check(env)


def test_normalization_exclude_passes_keys_through():
    inner = build_dummy_maze_env()
    env = ObservationNormalizationWrapper.wrap(inner, exclude=["action_mask"])
    obtain_normalization_statistics(env, n_samples=200, seed=0)
    assert list(env.strategies) == ["observation"]
    assert env.observation_space["action_mask"] is inner.observation_space["action_mask"]
    observation, _ = env.reset(seed=5)
    raw, _ = inner.reset(seed=5)
    np.testing.assert_array_equal(observation["action_mask"], raw["action_mask"])
    assert not np.allclose(observation["observation"], raw["observation"])
    _check(env)


def test_normalization_manual_config_from_yaml():
    config = OmegaConf.create(
        f"""
        default_strategy: {STRATEGIES}.MeanZeroStdOneObservationNormalizationStrategy
        default_strategy_config: {{clip_range: [~, ~], axis: ~}}
        default_statistics: ~
        statistics_dump: statistics.npz
        sampling_policy: {{_target_: RandomPolicy}}
        exclude: ~
        manual_config:
          action_mask:
            strategy: {STRATEGIES}.RangeZeroOneObservationNormalizationStrategy
            strategy_config: {{clip_range: [0, 1], axis: ~}}
            statistics: {{min: 0, max: 1}}
          observation:
            strategy_config: {{clip_range: [-3, 3], axis: [0]}}
        """
    )
    env = ObservationNormalizationWrapper.wrap(build_dummy_maze_env(), **config)
    assert isinstance(env.sampling_policy, RandomPolicy)
    assert isinstance(env.strategies["action_mask"], RangeZeroOneObservationNormalizationStrategy)
    assert isinstance(env.strategies["observation"], MeanZeroStdOneObservationNormalizationStrategy)
    assert env.missing_statistics_keys() == ["observation"]
    estimated = estimate_observation_normalization_statistics(env, n_samples=100, seed=1)
    assert list(estimated) == ["observation"] and estimated["observation"]["std"].shape == (4,)
    assert estimated["observation"]["mean"] == pytest.approx(
        estimate_observation_normalization_statistics(env, n_samples=100, seed=1)["observation"]["mean"]
    )
    obtain_normalization_statistics(env, n_samples=100, seed=1)
    assert np.all(env.observation_space["observation"].high == 3.0)
    _check(env)


def test_normalization_bad_configs_name_the_culprit():
    env = build_dummy_maze_env()
    with pytest.warns(UserWarning, match=r"exclude: the observation key 'mask' exists in no sub-step.*'action_mask'"):
        ObservationNormalizationWrapper(env, exclude=["mask"])  # ignored: one config serves envs with and without
    with pytest.raises(ConfigurationError, match=r"manual_config\['observation'\] has unknown keys \['stats'\]"):
        ObservationNormalizationWrapper(env, manual_config={"observation": {"stats": {}}})
    with pytest.raises(ConfigurationError, match="Did you mean 'RangeZeroOneObservationNormalizationStrategy'"):
        ObservationNormalizationWrapper(env, default_strategy="RangeZeroOneObservationNormalisationStrategy")
    with pytest.raises(ConfigurationError, match=r"observation 'action_mask'.*needs the statistics \['min', 'max'\]"):
        ObservationNormalizationWrapper(
            env, default_strategy=RangeZeroOneObservationNormalizationStrategy, default_statistics={"mean": 0}
        )
    with pytest.raises(ConfigurationError, match="never as pickles"):
        ObservationNormalizationWrapper(env, statistics_dump="statistics.pkl")
    wrapper = ObservationNormalizationWrapper(env)
    with pytest.raises(ConfigurationError, match=r"set_normalization_statistics: the normalized observation key 'obs'"):
        wrapper.set_normalization_statistics({"obs": {"mean": 0, "std": 1}})
    with pytest.raises(ConfigurationError, match=r"manual_config: the observation key 'obs'.*'observation'"):
        ObservationNormalizationWrapper(env, manual_config={"obs": {}})


def test_normalization_statistics_save_load_round_trip(tmp_path):
    env = _cartpole_env()
    statistics = obtain_normalization_statistics(env, n_samples=300, seed=0)
    path = env.dump_statistics(tmp_path / "run" / "statistics.npz")
    assert path.is_file() and not list(path.parent.glob("*.tmp"))

    restored = _cartpole_env()
    loaded = restored.load_statistics(path)
    np.testing.assert_array_equal(loaded["observation"]["std"], statistics["observation"]["std"])
    first, _ = env.reset(seed=7)
    second, _ = restored.reset(seed=7)
    np.testing.assert_array_equal(first["observation"], second["observation"])


def test_normalization_corrupt_or_missing_statistics_files(tmp_path):
    env = _cartpole_env()
    with pytest.raises(FileNotFoundError, match="nothing.npz"):
        env.load_statistics(tmp_path / "nothing.npz")
    corrupt = tmp_path / "corrupt.npz"
    corrupt.write_bytes(b"not a zip file")
    with pytest.raises(MazeError, match="corrupt.npz"):
        env.load_statistics(corrupt)
    pickled = tmp_path / "pickled.npz"
    np.savez(pickled, **{"observation/mean": np.array([{"evil": 1}], dtype=object)})
    with pytest.raises(MazeError, match="pickled.npz"):
        env.load_statistics(pickled)


def test_normalization_structured_env_keys_per_sub_step():
    env = ObservationNormalizationWrapper.wrap(build_multi_step_env(), default_strategy_config={"axis": 0})
    statistics = obtain_normalization_statistics(env, n_samples=200, seed=0)
    assert set(statistics) == {"items", "step"}
    assert set(env.observation_spaces_dict[0].spaces) == {"items"}
    assert set(env.observation_spaces_dict[1].spaces) == {"items", "step"}
    observation, _ = env.reset(seed=2)
    for _ in range(6):
        assert env.observation_space.contains(observation)
        observation, *_ = env.step(env.action_space.sample())
    _check(env)


def _make_cartpole_env():
    return _cartpole_env()


def test_normalization_normalized_env_factory_and_stack_lookup():
    statistics = obtain_normalization_statistics(_cartpole_env(), n_samples=100, seed=0)
    factory = make_normalized_env_factory(functools.partial(_make_cartpole_env), statistics)
    env = pickle.loads(pickle.dumps(factory))()
    assert env.missing_statistics_keys() == []
    assert find_normalization_wrapper(env) is env
    assert make_normalized_env_factory(_make_cartpole_env, None) is _make_cartpole_env
    with pytest.raises(ConfigurationError, match="no ObservationNormalizationWrapper"):
        find_normalization_wrapper(GymMazeEnv("CartPole-v1"))


def test_normalization_invalid_statistics_name_the_observation_and_the_statistic():
    env = build_dummy_maze_env()
    with pytest.raises(ConfigurationError, match=r"statistics of observation 'observation':.*'std' must be >= 0"):
        ObservationNormalizationWrapper(env, manual_config={"observation": {"statistics": {"mean": 0, "std": -1}}})
    wrapper = ObservationNormalizationWrapper(env)
    with pytest.raises(ConfigurationError, match=r"statistics of observation 'action_mask':.*'mean' must hold finite"):
        wrapper.set_normalization_statistics({"action_mask": {"mean": float("nan"), "std": 1.0}})
    assert set(wrapper.missing_statistics_keys()) == {"observation", "action_mask"}
