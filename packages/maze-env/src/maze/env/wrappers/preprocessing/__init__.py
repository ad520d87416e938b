"""Observation pre-processing: :class:`PreProcessingWrapper` and the built-in pre-processors."""

from maze.env.wrappers.preprocessing.preprocessing_wrapper import PreProcessingWrapper
from maze.env.wrappers.preprocessing.preprocessors import (
    FlattenPreProcessor,
    OneHotPreProcessor,
    PreProcessor,
    ResizeImgPreProcessor,
    Rgb2GrayPreProcessor,
    TransposePreProcessor,
    UnSqueezePreProcessor,
)

__all__ = [
    "PreProcessingWrapper",
    "PreProcessor",
    "FlattenPreProcessor",
    "OneHotPreProcessor",
    "ResizeImgPreProcessor",
    "Rgb2GrayPreProcessor",
    "TransposePreProcessor",
    "UnSqueezePreProcessor",
]
