"""Joint blocks: fixed chains of other blocks (e.g. convolutions followed by dense layers)."""

from maze.perception.blocks.joint_blocks.chain import ChainedBlock
from maze.perception.blocks.joint_blocks.flatten_dense import FlattenDenseBlock
from maze.perception.blocks.joint_blocks.lstm_last_step import LSTMLastStepBlock
from maze.perception.blocks.joint_blocks.strided_conv_dense import StridedConvolutionDenseBlock
from maze.perception.blocks.joint_blocks.vgg_conv_dense import VGGConvolutionDenseBlock
from maze.perception.blocks.joint_blocks.vgg_conv_gap import VGGConvolutionGAPBlock

__all__ = [
    "ChainedBlock",
    "FlattenDenseBlock",
    "LSTMLastStepBlock",
    "StridedConvolutionDenseBlock",
    "VGGConvolutionDenseBlock",
    "VGGConvolutionGAPBlock",
]
