"""``DefaultModelComposer``: the older name of the TemplateModelComposer, kept for configs that use it."""

from maze.perception.models.template_model_composer import TemplateModelComposer

__all__ = ["DefaultModelComposer"]

DefaultModelComposer = TemplateModelComposer
"""Alias of :class:`TemplateModelComposer`."""
