"""Dict-valued overrides of existing keys replace the value: ``runner.ray_init={num_cpus: 2}``.

Hydra 1.3 merges a dict-valued override ``key={...}`` into the node already at ``key``; under
the struct flag of a composed config every key of the dict that the node lacks is refused
("Could not override"), so ``runner.ray_init={num_cpus: 2}`` (the config file's own example)
and ``model.model_builder.observation_modality_mapping={warehouse: feature}`` fail. In
``maze-run`` (and :func:`maze.rl.hydra_config.read_hydra_config`) such an override replaces
the node with the given dict, as a scalar or list override replaces its value. ``+key={...}``
keeps Hydra's meaning (merge, adding keys); an override of a key that does not exist stays an
error ("Unknown config key").

Hydra has no public hook for how overrides are applied: :func:`dict_overrides_replace` wraps
its config loader's override step for the duration of a composition.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

from omegaconf import DictConfig, OmegaConf

__all__ = ["dict_overrides_replace", "replaces_dict"]


def replaces_dict(override: Any, cfg: DictConfig) -> bool:
    """True for a plain ``key={...}`` override whose key already holds a dict in ``cfg``.

    Args:
        override: A parsed Hydra override (``hydra.core.override_parser.types.Override``).
        cfg: The config the overrides are applied to.
    """
    from hydra.core.override_parser.types import ValueType

    if override.package is not None or override.is_delete() or override.is_add() or override.is_force_add():
        return False
    if override.value_type != ValueType.ELEMENT:
        return False
    if not isinstance(override.value(), dict):
        return False
    return isinstance(OmegaConf.select(cfg, override.key_or_group, throw_on_missing=False), DictConfig)


@contextlib.contextmanager
def dict_overrides_replace() -> Iterator[None]:
    """While active, Hydra compositions let ``key={...}`` replace the dict at an existing ``key``.

    The overrides are applied in their order: Hydra applies the others, this replaces the dicts.
    Nested use is fine; outside the context Hydra's own behaviour is back.
    """
    from hydra._internal.config_loader_impl import ConfigLoaderImpl

    hydra_apply = ConfigLoaderImpl.__dict__["_apply_overrides_to_config"]
    if getattr(hydra_apply.__func__, "_maze_replaces_dicts", False):
        yield
        return

    def apply_overrides(overrides: Sequence[Any], cfg: DictConfig) -> None:
        pending: list[Any] = []
        for override in overrides:
            if not replaces_dict(override, cfg):
                pending.append(override)
                continue
            hydra_apply.__func__(pending, cfg)
            pending = []
            OmegaConf.update(cfg, override.key_or_group, override.value(), merge=False)
        hydra_apply.__func__(pending, cfg)

    apply_overrides._maze_replaces_dicts = True  # type: ignore[attr-defined]
    ConfigLoaderImpl._apply_overrides_to_config = staticmethod(apply_overrides)  # type: ignore[method-assign]
    try:
        yield
    finally:
        ConfigLoaderImpl._apply_overrides_to_config = hydra_apply  # type: ignore[method-assign]
