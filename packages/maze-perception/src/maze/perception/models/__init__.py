"""Model composers (template and custom), policy/critic composers, spaces config and built-in networks."""

from maze.perception.models.base_model_composer import BaseModelComposer, build_model_composer
from maze.perception.models.custom_model_composer import CustomModelComposer
from maze.perception.models.default_model_composer import DefaultModelComposer
from maze.perception.models.spaces_config import SpacesConfig
from maze.perception.models.template_model_composer import TemplateModelComposer

__all__ = [
    "BaseModelComposer",
    "CustomModelComposer",
    "DefaultModelComposer",
    "SpacesConfig",
    "TemplateModelComposer",
    "build_model_composer",
]
