"""Feed-forward perception blocks: dense, convolution, graph, attention and point-set blocks."""

from maze.perception.blocks.feed_forward.dense import DenseBlock
from maze.perception.blocks.feed_forward.graph_attention import GraphAttentionBlock
from maze.perception.blocks.feed_forward.graph_conv import GraphConvBlock
from maze.perception.blocks.feed_forward.multi_head_attention import MultiHeadAttentionBlock
from maze.perception.blocks.feed_forward.point_net import PointNetFeatureBlock
from maze.perception.blocks.feed_forward.strided_conv import StridedConvolutionBlock
from maze.perception.blocks.feed_forward.vgg_conv import VGGConvolutionBlock

__all__ = [
    "DenseBlock",
    "GraphAttentionBlock",
    "GraphConvBlock",
    "MultiHeadAttentionBlock",
    "PointNetFeatureBlock",
    "StridedConvolutionBlock",
    "VGGConvolutionBlock",
]
