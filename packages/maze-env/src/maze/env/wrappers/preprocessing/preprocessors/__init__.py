"""Built-in observation pre-processors; their class names are valid short ``_target_`` s."""

from maze.env.wrappers.preprocessing.preprocessors.base import PreProcessor
from maze.env.wrappers.preprocessing.preprocessors.flatten import FlattenPreProcessor
from maze.env.wrappers.preprocessing.preprocessors.one_hot import OneHotPreProcessor
from maze.env.wrappers.preprocessing.preprocessors.resize_img import ResizeImgPreProcessor
from maze.env.wrappers.preprocessing.preprocessors.rgb2gray import Rgb2GrayPreProcessor
from maze.env.wrappers.preprocessing.preprocessors.transpose import TransposePreProcessor
from maze.env.wrappers.preprocessing.preprocessors.un_squeeze import UnSqueezePreProcessor

__all__ = [
    "PreProcessor",
    "FlattenPreProcessor",
    "OneHotPreProcessor",
    "ResizeImgPreProcessor",
    "Rgb2GrayPreProcessor",
    "TransposePreProcessor",
    "UnSqueezePreProcessor",
]
