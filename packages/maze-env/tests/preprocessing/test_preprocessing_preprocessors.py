import numpy as np
import pytest
from gymnasium import spaces
from maze.env.errors import ConfigurationError
from maze.env.wrappers.preprocessing.preprocessors import (
    FlattenPreProcessor,
    OneHotPreProcessor,
    ResizeImgPreProcessor,
    Rgb2GrayPreProcessor,
    TransposePreProcessor,
    UnSqueezePreProcessor,
)

IMAGE_SPACE = spaces.Box(0, 255, shape=(64, 64, 3), dtype=np.uint8)


def test_preprocessing_tags_are_module_names():
    tags = [
        cls.tag()
        for cls in (
            FlattenPreProcessor,
            OneHotPreProcessor,
            ResizeImgPreProcessor,
            Rgb2GrayPreProcessor,
            TransposePreProcessor,
            UnSqueezePreProcessor,
        )
    ]
    assert tags == ["flatten", "one_hot", "resize_img", "rgb2gray", "transpose", "un_squeeze"]


def test_preprocessing_flatten_last_dims():
    space = spaces.Box(0.0, 1.0, shape=(5, 200, 2), dtype=np.float32)
    two = FlattenPreProcessor(space, num_flatten_dims=2)
    assert two.processed_shape() == (5, 400)
    assert FlattenPreProcessor(spaces.Box(0, 1, (200, 2)), num_flatten_dims=2).processed_shape() == (400,)
    observation = space.sample()
    processed = two.process(observation)
    np.testing.assert_array_equal(processed, observation.reshape(5, 400))
    assert two.processed_space().contains(processed)
    with pytest.raises(ConfigurationError, match="num_flatten_dims"):
        FlattenPreProcessor(space, num_flatten_dims=4)


def test_preprocessing_one_hot_discrete_and_box():
    discrete = OneHotPreProcessor(spaces.Discrete(12))
    np.testing.assert_array_equal(discrete.process(np.int64(3)), np.eye(12, dtype=np.float32)[3])
    assert discrete.processed_space() == spaces.Box(0.0, 1.0, (12,), np.float32)

    shifted = OneHotPreProcessor(spaces.Discrete(3, start=1))
    np.testing.assert_array_equal(shifted.process(1), [1.0, 0.0, 0.0])

    month = OneHotPreProcessor(spaces.Box(0, 11, shape=(1,), dtype=np.float32))
    assert month.processed_shape() == (12,)
    np.testing.assert_array_equal(month.process(np.array([11.0], dtype=np.float32)), np.eye(12)[11])

    vector = OneHotPreProcessor(spaces.Box(0, 2, shape=(4,), dtype=np.int64))
    processed = vector.process(np.array([0, 2, 1, 2]))
    assert processed.shape == (4, 3) and processed.dtype == np.float32
    np.testing.assert_array_equal(processed.argmax(axis=-1), [0, 2, 1, 2])
    assert vector.processed_space().contains(processed)


def test_preprocessing_one_hot_rejects_continuous_features():
    with pytest.raises(ConfigurationError, match="whole-number bounds"):
        OneHotPreProcessor(spaces.Box(0.0, 1.5, shape=(1,), dtype=np.float32))
    with pytest.raises(ConfigurationError, match="whole-number bounds"):
        OneHotPreProcessor(spaces.Box(-np.inf, np.inf, shape=(1,), dtype=np.float32))


def test_preprocessing_rgb2gray_uses_luminance_weights():
    gray = Rgb2GrayPreProcessor(IMAGE_SPACE, rgb_dim=-1)
    image = IMAGE_SPACE.sample()
    processed = gray.process(image)
    expected = image[..., 0] * 0.299 + image[..., 1] * 0.587 + image[..., 2] * 0.114
    assert processed.shape == (64, 64) and processed.dtype == np.float32
    np.testing.assert_allclose(processed, expected, rtol=1e-5)
    assert gray.processed_space().contains(processed)
    assert gray.process(np.full((64, 64, 3), 255, np.uint8)).max() <= gray.processed_space().high.min()

    channels_first = Rgb2GrayPreProcessor(spaces.Box(0, 255, (3, 8, 8), np.uint8), rgb_dim=0)
    np.testing.assert_allclose(channels_first.process(image[:8, :8].transpose(2, 0, 1)), expected[:8, :8], rtol=1e-5)
    with pytest.raises(ConfigurationError, match="size 3"):
        Rgb2GrayPreProcessor(IMAGE_SPACE, rgb_dim=0)


def test_preprocessing_resize_bilinear():
    ramp_space = spaces.Box(0.0, 100.0, shape=(4, 4), dtype=np.float32)
    ramp = np.arange(16, dtype=np.float32).reshape(4, 4)
    np.testing.assert_allclose(ResizeImgPreProcessor(ramp_space, target_size=[4, 4]).process(ramp), ramp)
    # Downscaling by two averages 2x2 blocks; upscaling a linear ramp keeps it linear inside.
    np.testing.assert_allclose(
        ResizeImgPreProcessor(ramp_space, target_size=[2, 2]).process(ramp), [[2.5, 4.5], [10.5, 12.5]]
    )
    upscaled = ResizeImgPreProcessor(ramp_space, target_size=[8, 8]).process(ramp)
    np.testing.assert_allclose(upscaled[0], [0.0, 0.25, 0.75, 1.25, 1.75, 2.25, 2.75, 3.0])
    np.testing.assert_allclose(upscaled[:, 0], 4 * upscaled[0])


def test_preprocessing_resize_keeps_dtype_and_layout():
    resize = ResizeImgPreProcessor(IMAGE_SPACE, target_size=[96, 80], transpose=False)
    image = IMAGE_SPACE.sample()
    processed = resize.process(image)
    assert processed.shape == (96, 80, 3) and processed.dtype == np.uint8
    assert resize.processed_space().contains(processed)

    channels_first = ResizeImgPreProcessor(
        spaces.Box(0, 255, (3, 64, 64), np.uint8), target_size=[96, 80], transpose=True
    )
    np.testing.assert_array_equal(channels_first.process(image.transpose(2, 0, 1)), processed.transpose(2, 0, 1))
    with pytest.raises(ConfigurationError, match="target_size"):
        ResizeImgPreProcessor(IMAGE_SPACE, target_size=[96])


def test_preprocessing_transpose_and_un_squeeze():
    transpose = TransposePreProcessor(IMAGE_SPACE, axes=[2, 0, 1])
    image = IMAGE_SPACE.sample()
    np.testing.assert_array_equal(transpose.process(image), image.transpose(2, 0, 1))
    assert transpose.processed_space() == spaces.Box(0, 255, (3, 64, 64), np.uint8)
    with pytest.raises(ConfigurationError, match="permutation"):
        TransposePreProcessor(IMAGE_SPACE, axes=[0, 1])

    un_squeeze = UnSqueezePreProcessor(spaces.Box(0.0, 1.0, (96, 96), np.float32), dim=-3)
    assert un_squeeze.processed_shape() == (1, 96, 96)
    assert un_squeeze.process(np.zeros((96, 96), np.float32)).shape == (1, 96, 96)
    with pytest.raises(ConfigurationError, match="dim"):
        UnSqueezePreProcessor(spaces.Box(0.0, 1.0, (96, 96), np.float32), dim=3)


def test_preprocessing_rejects_non_box_spaces():
    with pytest.raises(ConfigurationError, match="FlattenPreProcessor needs a Box"):
        FlattenPreProcessor(spaces.Discrete(3), num_flatten_dims=1)
