import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.utils.env_checker import check_env
from maze.env.errors import ConfigurationError
from maze.env.gym_adapter.gym_maze_env import GymMazeEnv
from maze.env.testing.fake_envs import build_multi_step_env
from maze.env.wrappers.preprocessing import PreProcessingWrapper, PreProcessor
from maze.env.wrappers.preprocessing.preprocessors import Rgb2GrayPreProcessor
from omegaconf import OmegaConf


class _FakeImageEnv(gym.Env):
    """A seeded gymnasium env with a dict observation (or a single image)."""

    def __init__(self, dict_observation: bool = True, image_shape: tuple[int, ...] = (64, 64, 3)) -> None:
        self._image_shape = image_shape
        self._dict_observation = dict_observation
        image = spaces.Box(0, 255, shape=image_shape, dtype=np.uint8)
        self.observation_space = (
            spaces.Dict({"rgb_image": image, "categorical_feature": spaces.Box(0, 11, shape=(1,), dtype=np.int64)})
            if dict_observation
            else image
        )
        self.action_space = spaces.Discrete(2)
        self._steps = 0

    def _observation(self):
        image = self.np_random.integers(0, 256, size=self._image_shape, dtype=np.uint8)
        if self._dict_observation:
            return {"rgb_image": image, "categorical_feature": self.np_random.integers(0, 12, size=(1,))}
        return image

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self._steps = 0
        return self._observation(), {}

    def step(self, action):
        self._steps += 1
        return self._observation(), float(action), False, self._steps >= 5, {}


def _check(env):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(env, skip_render_check=True)


EXAMPLE_1 = [
    {
        "observation": "rgb_image",
        "_target_": "maze.env.wrappers.preprocessing.preprocessors.Rgb2GrayPreProcessor",
        "keep_original": True,
        "config": {"rgb_dim": -1},
    },
    {"observation": "categorical_feature", "_target_": "OneHotPreProcessor", "keep_original": False, "config": {}},
]

CASCADE = [
    {"observation": "rgb_image", "_target_": "Rgb2GrayPreProcessor", "keep_original": False, "config": {"rgb_dim": -1}},
    {
        "observation": "rgb_image-rgb2gray",
        "_target_": "ResizeImgPreProcessor",
        "keep_original": False,
        "config": {"target_size": [96, 96], "transpose": False},
    },
    {
        "observation": "rgb_image-rgb2gray-resize_img",
        "_target_": "UnSqueezePreProcessor",
        "keep_original": False,
        "config": {"dim": -3},
    },
]


def test_preprocessing_example_1_keeps_and_replaces_keys():
    env = PreProcessingWrapper.wrap(GymMazeEnv(_FakeImageEnv()), pre_processor_mapping=EXAMPLE_1)
    expected = {"rgb_image", "rgb_image-rgb2gray", "categorical_feature-one_hot"}
    assert set(env.observation_space.spaces) == expected
    observation, _ = env.reset(seed=3)
    assert set(observation) == expected
    assert observation["rgb_image"].shape == (64, 64, 3)
    assert observation["rgb_image-rgb2gray"].shape == (64, 64)
    one_hot = observation["categorical_feature-one_hot"]
    assert one_hot.shape == (12,) and one_hot.sum() == 1.0
    assert env.observation_space.contains(observation)
    assert isinstance(env, GymMazeEnv)
    _check(env)


def test_preprocessing_cascade_yields_only_the_last_key():
    env = PreProcessingWrapper.wrap(
        GymMazeEnv(_FakeImageEnv()), pre_processor_mapping=OmegaConf.create({"m": CASCADE}).m
    )
    # Every step appends its tag, so the un_squeeze step adds "-un_squeeze" (the docs' prose omits it).
    final = "rgb_image-rgb2gray-resize_img-un_squeeze"
    observation, _ = env.reset(seed=0)
    assert set(observation) == {"categorical_feature", final}
    assert observation[final].shape == (1, 96, 96) and observation[final].dtype == np.float32
    assert env.observation_space[final].shape == (1, 96, 96)
    for _ in range(3):
        observation, *_ = env.step(env.action_space.sample())
        assert env.observation_space.contains(observation)
    _check(env)


def test_preprocessing_single_image_env_rgb2gray():
    mapping = [{"observation": "observation", "_target_": Rgb2GrayPreProcessor, "config": {"rgb_dim": -1}}]
    env = PreProcessingWrapper.wrap(GymMazeEnv(_FakeImageEnv(False, (96, 96, 3))), pre_processor_mapping=mapping)
    observation, _ = env.reset()
    assert list(observation) == ["observation-rgb2gray"]
    assert observation["observation-rgb2gray"].shape == (96, 96)
    _check(env)


def test_preprocessing_bad_configs_name_the_culprit():
    env = GymMazeEnv(_FakeImageEnv())
    with pytest.raises(ConfigurationError, match=r"'rgb_imag'.*rgb_image"):
        PreProcessingWrapper(env, [{"observation": "rgb_imag", "_target_": "Rgb2GrayPreProcessor"}])
    with pytest.raises(ConfigurationError, match=r"Rgb2GreyPreProcessor.*Did you mean 'Rgb2GrayPreProcessor'"):
        PreProcessingWrapper(env, [{"observation": "rgb_image", "_target_": "Rgb2GreyPreProcessor"}])
    with pytest.raises(ConfigurationError, match=r"pre_processor_mapping\[0\].*num_flatten_dims"):
        PreProcessingWrapper(
            env, [{"observation": "rgb_image", "_target_": "Rgb2GrayPreProcessor", "config": {"num_flatten_dims": 2}}]
        )
    with pytest.raises(ConfigurationError, match=r"unknown keys \['keep'\]"):
        PreProcessingWrapper(env, [{"observation": "rgb_image", "_target_": "Rgb2GrayPreProcessor", "keep": True}])
    with pytest.raises(ConfigurationError, match="at that point of the cascade"):
        PreProcessingWrapper(env, [CASCADE[0], {**CASCADE[0], "_target_": "FlattenPreProcessor"}])


class _Double(PreProcessor):
    def __init__(self, observation_space):
        super().__init__(observation_space)
        self._space = spaces.Box(observation_space.low * 2, observation_space.high * 2, dtype=np.float32)

    def processed_space(self):
        return self._space

    def process(self, observation):
        return (observation * 2).astype(np.float32)


def test_preprocessing_structured_env_processes_each_sub_step():
    env = PreProcessingWrapper.wrap(
        build_multi_step_env(),
        pre_processor_mapping=[
            {"observation": "step", "_target_": "UnSqueezePreProcessor", "config": {"dim": 0}},
            {"observation": "items", "_target_": _Double, "keep_original": True},
        ],
    )
    custom_key = f"items-{__name__.rsplit('.', 1)[-1]}"
    assert set(env.observation_spaces_dict[0].spaces) == {"items", custom_key}
    assert set(env.observation_spaces_dict[1].spaces) == {"items", custom_key, "step-un_squeeze"}
    assert env.observation_spaces_dict[1]["step-un_squeeze"].shape == (1, 1)
    observation, _ = env.reset(seed=1)
    for _ in range(6):
        assert env.observation_space.contains(observation)
        np.testing.assert_allclose(observation[custom_key], observation["items"] * 2)
        observation, *_ = env.step(env.action_space.sample())
    observations, _ = env.get_observation_and_action_dicts(env.get_maze_state(), None, False)
    ((step_key, recorded),) = observations.items()
    assert env.observation_spaces_dict[step_key].contains(recorded)
    _check(env)
