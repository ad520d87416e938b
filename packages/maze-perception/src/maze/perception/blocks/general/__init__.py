"""General-purpose perception blocks: reshaping, pooling, slicing, attention, masking, wrapping."""

from maze.perception.blocks.general.action_masking import ActionMaskingBlock
from maze.perception.blocks.general.concat import ConcatenationBlock
from maze.perception.blocks.general.correlation import CorrelationBlock
from maze.perception.blocks.general.flatten import FlattenBlock
from maze.perception.blocks.general.functional import FunctionalBlock
from maze.perception.blocks.general.gap import GlobalAveragePoolingBlock
from maze.perception.blocks.general.masked_global_pooling import MaskedGlobalPoolingBlock
from maze.perception.blocks.general.multi_index_slicing import MultiIndexSlicingBlock
from maze.perception.blocks.general.repeat_to_match import RepeatToMatchBlock
from maze.perception.blocks.general.self_attention_conv import SelfAttentionConvBlock
from maze.perception.blocks.general.self_attention_seq import SelfAttentionSeqBlock
from maze.perception.blocks.general.slice import SliceBlock
from maze.perception.blocks.general.torch_model_block import TorchModelBlock

__all__ = [
    "ActionMaskingBlock",
    "ConcatenationBlock",
    "CorrelationBlock",
    "FlattenBlock",
    "FunctionalBlock",
    "GlobalAveragePoolingBlock",
    "MaskedGlobalPoolingBlock",
    "MultiIndexSlicingBlock",
    "RepeatToMatchBlock",
    "SelfAttentionConvBlock",
    "SelfAttentionSeqBlock",
    "SliceBlock",
    "TorchModelBlock",
]
