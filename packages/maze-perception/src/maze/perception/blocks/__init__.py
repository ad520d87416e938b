"""Perception blocks: ``nn.Module`` building blocks with tensor-dict inputs/outputs and shape inference.

Config strings such as ``maze.perception.blocks.DenseBlock`` name the classes exported here.
"""

from maze.perception.blocks.base import PerceptionBlock, resolve_non_lin
from maze.perception.blocks.feed_forward import (
    DenseBlock,
    GraphAttentionBlock,
    GraphConvBlock,
    MultiHeadAttentionBlock,
    PointNetFeatureBlock,
    StridedConvolutionBlock,
    VGGConvolutionBlock,
)
from maze.perception.blocks.general import (
    ActionMaskingBlock,
    ConcatenationBlock,
    CorrelationBlock,
    FlattenBlock,
    FunctionalBlock,
    GlobalAveragePoolingBlock,
    MaskedGlobalPoolingBlock,
    MultiIndexSlicingBlock,
    RepeatToMatchBlock,
    SelfAttentionConvBlock,
    SelfAttentionSeqBlock,
    SliceBlock,
    TorchModelBlock,
)
from maze.perception.blocks.inference import InferenceBlock
from maze.perception.blocks.inference_graph import (
    GraphEdge,
    GraphNode,
    InferenceGraphStructure,
    inference_graph_structure,
)
from maze.perception.blocks.joint_blocks import (
    ChainedBlock,
    FlattenDenseBlock,
    LSTMLastStepBlock,
    StridedConvolutionDenseBlock,
    VGGConvolutionDenseBlock,
    VGGConvolutionGAPBlock,
)
from maze.perception.blocks.output import LinearOutputBlock
from maze.perception.blocks.recurrent import LSTMBlock
from maze.perception.blocks.shape_normalization import ShapeNormalizationBlock

__all__ = [
    "ActionMaskingBlock",
    "ChainedBlock",
    "ConcatenationBlock",
    "CorrelationBlock",
    "DenseBlock",
    "FlattenBlock",
    "FlattenDenseBlock",
    "FunctionalBlock",
    "GlobalAveragePoolingBlock",
    "GraphAttentionBlock",
    "GraphConvBlock",
    "GraphEdge",
    "GraphNode",
    "InferenceBlock",
    "InferenceGraphStructure",
    "LSTMBlock",
    "LSTMLastStepBlock",
    "LinearOutputBlock",
    "MaskedGlobalPoolingBlock",
    "MultiHeadAttentionBlock",
    "MultiIndexSlicingBlock",
    "PerceptionBlock",
    "PointNetFeatureBlock",
    "RepeatToMatchBlock",
    "SelfAttentionConvBlock",
    "SelfAttentionSeqBlock",
    "ShapeNormalizationBlock",
    "SliceBlock",
    "StridedConvolutionBlock",
    "StridedConvolutionDenseBlock",
    "TorchModelBlock",
    "VGGConvolutionBlock",
    "VGGConvolutionDenseBlock",
    "VGGConvolutionGAPBlock",
    "inference_graph_structure",
    "resolve_non_lin",
]
