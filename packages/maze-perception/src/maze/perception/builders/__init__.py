"""Template model builders (architecture templates for the TemplateModelComposer)."""

from maze.perception.builders.base import RESERVED_MODALITIES, BaseModelBuilder, ModalityBlock
from maze.perception.builders.concat import MASK_SUFFIX, ConcatModelBuilder

__all__ = ["MASK_SUFFIX", "RESERVED_MODALITIES", "BaseModelBuilder", "ConcatModelBuilder", "ModalityBlock"]
