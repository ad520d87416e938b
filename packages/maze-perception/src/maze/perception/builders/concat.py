"""ConcatModelBuilder: per-observation modality blocks -> concatenation -> hidden -> recurrence -> heads."""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence

from maze.env.errors import ConfigurationError
from maze.perception.agent.torch_state_critic import PREV_VALUE_KEY
from maze.perception.blocks.base import PerceptionBlock
from maze.perception.blocks.general.action_masking import ActionMaskingBlock
from maze.perception.blocks.general.concat import ConcatenationBlock
from maze.perception.blocks.inference import InferenceBlock
from maze.perception.blocks.output.linear import LinearOutputBlock
from maze.perception.builders.base import RESERVED_MODALITIES, BaseModelBuilder

__all__ = ["ConcatModelBuilder", "MASK_SUFFIX"]

LATE_INPUTS = "latent_and_inputs"
"""Critic tensor: ``latent`` plus the raw inputs (``prev_value``, Q action inputs) a shared embedding cuts off."""

MASK_SUFFIX = "_mask"
"""An unmapped observation ``<head>_mask`` masks the logits of action head ``<head>`` (0 = invalid)."""

Shapes = Mapping[str, Sequence[int]]


class ConcatModelBuilder(BaseModelBuilder):
    """Template: each observation through its modality block, concatenated, then ``hidden`` and ``recurrence``.

    Tensor names in the graph: ``<obs>_<BlockType>`` for each modality output, then the
    fixed concatenation and the enabled presets, whose last output is ``latent`` (the
    others are ``concat``, ``hidden``, ``recurrence``). Output heads are named after their
    action heads (``value`` for critics). An observation ``<head>_mask`` that is not in the
    modality mapping masks head ``<head>`` (via ``<head>_logits`` and an ActionMaskingBlock).

    Shared embeddings: the policy exposes ``shared_embedding_keys`` as extra outputs; the
    critic takes them as inputs and keeps only the blocks after them. Raw critic inputs that
    do not reach the shared embedding (the delta critic's ``prev_value``, the Q critic's
    action inputs) are then concatenated to ``latent`` right before the output heads
    (tensor ``latent_and_inputs``), so the critic still depends on them.

    Args: see :class:`BaseModelBuilder`.
    """

    def policy_net(self, obs_shapes: Shapes, action_logits_shapes: Shapes) -> InferenceBlock:
        """Observations -> logits per action head (masked where a ``<head>_mask`` is observed) + shared keys."""
        masks = {key: key[: -len(MASK_SUFFIX)] for key in self._unmapped(obs_shapes) if key.endswith(MASK_SUFFIX)}
        self._check_unmapped(obs_shapes, allowed=masks, what="policy")
        for mask, head in masks.items():
            if head not in action_logits_shapes:
                raise ConfigurationError(
                    f"observation {mask!r} looks like an action mask, but there is no action head {head!r} (heads: "
                    f"{list(action_logits_shapes)}); map it in observation_modality_mapping or rename it"
                )
        blocks = self._latent_blocks(obs_shapes, raw_keys=())
        heads = {}
        for head, shape in action_logits_shapes.items():
            masked = f"{head}{MASK_SUFFIX}" in masks
            heads[head] = self._head(blocks, f"{head}_logits" if masked else head, shape)
            if masked:
                blocks[head] = ActionMaskingBlock(
                    in_keys=[f"{head}_logits", f"{head}{MASK_SUFFIX}"],
                    out_keys=head,
                    in_shapes=[tuple(shape), tuple(obs_shapes[f"{head}{MASK_SUFFIX}"])],
                )
        net = self._inference_block(blocks, obs_shapes, [*action_logits_shapes, *self.shared_embedding_keys], ())
        self.initialize(net, list(heads.values()), head_gain=0.01)
        return net

    def critic_net(self, obs_shapes: Shapes) -> InferenceBlock:
        """Observations (or the shared embeddings) -> ``value`` ``[B, 1]``."""
        raw = [PREV_VALUE_KEY] if PREV_VALUE_KEY in obs_shapes else []
        return self._value_net(obs_shapes, {"value": (1,)}, raw)

    def state_action_critic_net(self, obs_shapes: Shapes, output_shapes: Shapes) -> InferenceBlock:
        """Observations plus action inputs (unmapped keys, concatenated raw) -> Q outputs."""
        raw = [key for key in self._unmapped(obs_shapes) if not key.endswith(MASK_SUFFIX)]
        return self._value_net(obs_shapes, output_shapes, raw)

    def _value_net(self, obs_shapes: Shapes, output_shapes: Shapes, raw_keys: Collection[str]) -> InferenceBlock:
        self._check_unmapped(obs_shapes, allowed=raw_keys, what="critic", ignore_masks=True)
        blocks = self._latent_blocks(obs_shapes, raw_keys)
        _, used = self._trace(blocks, obs_shapes, ["latent"], self.shared_embedding_keys)
        late = [key for key in raw_keys if key not in used]
        head_input = "latent"
        if late:
            head_input = LATE_INPUTS
            blocks[head_input] = ConcatenationBlock(
                in_keys=["latent", *late],
                out_keys=head_input,
                in_shapes=[blocks["latent"].out_shapes()[0], *(tuple(obs_shapes[key]) for key in late)],
            )
        heads = [self._head(blocks, name, shape, head_input) for name, shape in output_shapes.items()]
        net = self._inference_block(blocks, obs_shapes, list(output_shapes), self.shared_embedding_keys)
        self.initialize(net, heads, head_gain=self.value_head_gain)
        return net

    def _unmapped(self, obs_shapes: Shapes) -> list[str]:
        return [
            key
            for key in obs_shapes
            if key not in self.observation_modality_mapping and key not in self.shared_embedding_keys
        ]

    def _check_unmapped(
        self, obs_shapes: Shapes, allowed: Collection[str], what: str, ignore_masks: bool = False
    ) -> None:
        bad = [
            key
            for key in self._unmapped(obs_shapes)
            if key not in allowed and not (ignore_masks and key.endswith(MASK_SUFFIX))
        ]
        if bad:
            raise ConfigurationError(
                f"ConcatModelBuilder ({what}): observations {bad} have no entry in observation_modality_mapping "
                f"(mapped: {sorted(self.observation_modality_mapping)}); map each to a modality of modality_config"
            )

    def _latent_blocks(self, obs_shapes: Shapes, raw_keys: Collection[str]) -> dict[str, PerceptionBlock]:
        """Modality blocks, concatenation and presets up to the ``latent`` tensor."""
        blocks: dict[str, PerceptionBlock] = {}
        concat_keys: list[str] = []
        for key, shape in obs_shapes.items():
            if key in raw_keys:
                name = key
            elif key in self.observation_modality_mapping and key not in self.shared_embedding_keys:
                modality = self.modalities[self.observation_modality_mapping[key]]
                name = f"{key}_{modality.block_type.__name__}"
                blocks[name] = modality.block_type(
                    in_keys=key, out_keys=name, in_shapes=tuple(shape), **modality.block_params
                )
            else:
                continue
            concat_keys.append(name)
        if not concat_keys:
            raise ConfigurationError(
                f"ConcatModelBuilder: none of the observations {list(obs_shapes)} is mapped in "
                f"observation_modality_mapping ({self.observation_modality_mapping})"
            )
        stages = ["concat", *(name for name in RESERVED_MODALITIES if self.modalities[name] is not None)]
        names = [*stages[:-1], "latent"]
        shapes = [blocks[key].out_shapes()[0] if key in blocks else tuple(obs_shapes[key]) for key in concat_keys]
        blocks[names[0]] = ConcatenationBlock(in_keys=concat_keys, out_keys=names[0], in_shapes=shapes)
        for stage, previous, name in zip(stages[1:], names[:-1], names[1:], strict=True):
            modality = self.modalities[stage]
            blocks[name] = modality.block_type(
                in_keys=previous, out_keys=name, in_shapes=blocks[previous].out_shapes(), **modality.block_params
            )
        return blocks

    @staticmethod
    def _head(
        blocks: dict[str, PerceptionBlock], name: str, shape: Sequence[int], source: str = "latent"
    ) -> LinearOutputBlock:
        if len(shape) != 1:
            raise ConfigurationError(f"ConcatModelBuilder: output {name!r} needs 1-D logits, got shape {tuple(shape)}")
        blocks[name] = LinearOutputBlock(
            in_keys=source, out_keys=name, in_shapes=blocks[source].out_shapes(), output_units=math.prod(shape)
        )
        return blocks[name]

    @classmethod
    def _inference_block(
        cls, blocks: dict[str, PerceptionBlock], obs_shapes: Shapes, out_keys: list[str], input_tensors: Collection[str]
    ) -> InferenceBlock:
        """The graph from the observations (or the given ``input_tensors``) to ``out_keys``, unused blocks pruned."""
        needed, used_inputs = cls._trace(blocks, obs_shapes, out_keys, input_tensors)
        in_keys = [key for key in obs_shapes if key in used_inputs]
        return InferenceBlock(
            in_keys=in_keys,
            out_keys=out_keys,
            in_shapes=[tuple(obs_shapes[key]) for key in in_keys],
            perception_blocks={name: block for name, block in blocks.items() if name in needed},
        )

    @staticmethod
    def _trace(
        blocks: dict[str, PerceptionBlock], obs_shapes: Shapes, out_keys: list[str], input_tensors: Collection[str]
    ) -> tuple[set[str], set[str]]:
        """The blocks and inputs ``out_keys`` depend on, when ``input_tensors`` are fed instead of computed.

        Returns:
            ``(names of the needed blocks, names of the used inputs)``.
        """
        producers = {key: name for name, block in blocks.items() for key in block.out_keys}
        available = {key for key in obs_shapes if key in input_tensors or key not in producers}
        needed: set[str] = set()
        used_inputs: set[str] = set()
        pending = list(out_keys)
        while pending:
            tensor = pending.pop()
            if tensor in available:
                used_inputs.add(tensor)
            elif tensor in producers and producers[tensor] not in needed:
                needed.add(producers[tensor])
                pending.extend(blocks[producers[tensor]].in_keys)
            elif tensor not in producers:
                raise ConfigurationError(
                    f"ConcatModelBuilder: tensor {tensor!r} (an output or shared embedding key) is not part of the "
                    f"template graph; known tensors: {sorted(producers)}"
                )
        return needed, used_inputs
