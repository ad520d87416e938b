"""Perception blocks, inference graphs, model composers, TorchPolicy, critics and checkpoints.

* ``maze.perception.blocks``: torch modules with tensor-dict inputs/outputs, shape
  inference and normalization, the :class:`InferenceBlock` graph and its plain-data description.
* ``maze.perception.models`` / ``builders``: template and custom model composers, policy and
  critic composers, the ConcatModelBuilder, built-in flatten-concat networks, SpacesConfig.
* ``maze.perception.agent``: TorchPolicy, state and state-action critics, TorchActorCritic.
* ``maze.perception.checkpoint`` / ``serialization``: tensors-only checkpoints with plain-data
  spaces and configs, SerializedTorchPolicy.
* Packaged model configs (YAML) under ``maze/perception/conf/{model,critic}``.

The names below are imported from their modules on first use, so ``import maze.perception``
does not import torch.
"""

from __future__ import annotations

from importlib.metadata import version as _version

from maze.env.utils.lazy_exports import lazy_getattr

__version__ = _version("maze-perception")

_EXPORTS = {
    "PolicyOutput": "maze.perception.agent",
    "PolicySubStepOutput": "maze.perception.agent",
    "StateCriticInput": "maze.perception.agent",
    "StateCriticOutput": "maze.perception.agent",
    "StateCriticStepInput": "maze.perception.agent",
    "StateCriticStepOutput": "maze.perception.agent",
    "TorchActorCritic": "maze.perception.agent",
    "TorchCriticModel": "maze.perception.agent",
    "TorchDeltaStateCritic": "maze.perception.agent",
    "TorchModel": "maze.perception.agent",
    "TorchNetworksModel": "maze.perception.agent",
    "TorchPolicy": "maze.perception.agent",
    "TorchSharedStateActionCritic": "maze.perception.agent",
    "TorchSharedStateCritic": "maze.perception.agent",
    "TorchStateActionCritic": "maze.perception.agent",
    "TorchStateCritic": "maze.perception.agent",
    "TorchStepStateActionCritic": "maze.perception.agent",
    "TorchStepStateCritic": "maze.perception.agent",
    "ActionMaskingBlock": "maze.perception.blocks",
    "ChainedBlock": "maze.perception.blocks",
    "ConcatenationBlock": "maze.perception.blocks",
    "CorrelationBlock": "maze.perception.blocks",
    "DenseBlock": "maze.perception.blocks",
    "FlattenBlock": "maze.perception.blocks",
    "FlattenDenseBlock": "maze.perception.blocks",
    "FunctionalBlock": "maze.perception.blocks",
    "GlobalAveragePoolingBlock": "maze.perception.blocks",
    "GraphAttentionBlock": "maze.perception.blocks",
    "GraphConvBlock": "maze.perception.blocks",
    "GraphEdge": "maze.perception.blocks",
    "GraphNode": "maze.perception.blocks",
    "InferenceBlock": "maze.perception.blocks",
    "InferenceGraphStructure": "maze.perception.blocks",
    "LinearOutputBlock": "maze.perception.blocks",
    "LSTMBlock": "maze.perception.blocks",
    "LSTMLastStepBlock": "maze.perception.blocks",
    "MaskedGlobalPoolingBlock": "maze.perception.blocks",
    "MultiHeadAttentionBlock": "maze.perception.blocks",
    "MultiIndexSlicingBlock": "maze.perception.blocks",
    "PerceptionBlock": "maze.perception.blocks",
    "PointNetFeatureBlock": "maze.perception.blocks",
    "RepeatToMatchBlock": "maze.perception.blocks",
    "SelfAttentionConvBlock": "maze.perception.blocks",
    "SelfAttentionSeqBlock": "maze.perception.blocks",
    "ShapeNormalizationBlock": "maze.perception.blocks",
    "SliceBlock": "maze.perception.blocks",
    "StridedConvolutionBlock": "maze.perception.blocks",
    "StridedConvolutionDenseBlock": "maze.perception.blocks",
    "TorchModelBlock": "maze.perception.blocks",
    "VGGConvolutionBlock": "maze.perception.blocks",
    "VGGConvolutionDenseBlock": "maze.perception.blocks",
    "VGGConvolutionGAPBlock": "maze.perception.blocks",
    "inference_graph_structure": "maze.perception.blocks",
    "resolve_non_lin": "maze.perception.blocks",
    "BaseModelBuilder": "maze.perception.builders",
    "ConcatModelBuilder": "maze.perception.builders",
    "SerializedTorchPolicy": "maze.perception.checkpoint",
    "load_checkpoint": "maze.perception.checkpoint",
    "save_checkpoint": "maze.perception.checkpoint",
    "BaseModelComposer": "maze.perception.models",
    "CustomModelComposer": "maze.perception.models",
    "DefaultModelComposer": "maze.perception.models",
    "SpacesConfig": "maze.perception.models",
    "TemplateModelComposer": "maze.perception.models",
    "build_model_composer": "maze.perception.models",
    "convert_to_numpy": "maze.perception.perception_utils",
    "convert_to_torch": "maze.perception.perception_utils",
    "flatten_spaces": "maze.perception.perception_utils",
    "observation_spaces_to_in_shapes": "maze.perception.perception_utils",
    "resolve_device": "maze.perception.perception_utils",
    "stack_and_flatten_spaces": "maze.perception.perception_utils",
    "compute_sigmoid_bias": "maze.perception.weight_init",
    "make_module_init": "maze.perception.weight_init",
    "make_module_init_normc": "maze.perception.weight_init",
    "make_module_init_orthogonal": "maze.perception.weight_init",
}

__all__ = ["__version__", *_EXPORTS]

__getattr__ = lazy_getattr("maze.perception", _EXPORTS)
