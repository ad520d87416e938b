"""Build objects from ``_target_`` configs, with clear errors for bad configs.

A config is a mapping (dict or OmegaConf ``DictConfig``) whose ``_target_`` names a class
or function by dotted path (``maze.env.GymMazeEnv``); its other keys are keyword
arguments. :class:`Factory` instantiates such configs, passes already built objects
through unchanged and checks that the result has the expected type.
"""

from __future__ import annotations

import importlib
import inspect
import os
import pkgutil
import re
import sys
from collections.abc import Mapping, Sequence
from typing import Any, Generic, Optional, TypeVar, Union

from maze.env.errors import ConfigurationError
from maze.env.utils.compat_aliases import translate_documented_path
from maze.env.utils.suggestions import close_matches
from maze.env.utils.trust import (
    check_trusted_class_builds,
    check_trusted_path,
    check_trusted_step,
    check_trusted_target,
)

__all__ = ["ConfigType", "CollectionOfConfigType", "Factory", "resolve_target", "to_plain_config"]

T = TypeVar("T")

ConfigType = Union[Mapping[str, Any], Any]
"""A ``_target_`` mapping or an already built object."""

CollectionOfConfigType = Union[Sequence[ConfigType], Mapping[str, ConfigType]]
"""A list of configs, or a mapping from names to configs."""


def to_plain_config(config: Any) -> Any:
    """Turns an OmegaConf container into plain dicts and lists (other values pass through)."""
    if type(config).__module__.startswith("omegaconf"):
        from omegaconf import OmegaConf

        return OmegaConf.to_container(config, resolve=True)
    return config


def resolve_target(path: str, search_modules: Sequence[str] = ()) -> Any:
    """Imports the object a dotted path names.

    Args:
        path: ``package.module.Name``; a bare ``Name`` is looked up in ``search_modules``; a path of
            the original framework's documentation is translated (see :mod:`maze.env.utils.compat_aliases`).
        search_modules: Modules that provide short names (e.g. the built-in wrappers).

    Raises:
        ConfigurationError: Naming the path, the part that failed and close matches.
    """
    if not isinstance(path, str) or not path:
        raise ConfigurationError(f"_target_ must be a dotted path string, got {path!r}")
    path = translate_documented_path(path) or path
    if "." not in path:
        for module_name in search_modules:
            check_trusted_path(module_name)
            module = importlib.import_module(module_name)
            if hasattr(module, path):
                target = getattr(module, path)
                check_trusted_target(f"{module_name}.{path}", target)
                return target
        known = sorted({name for module in search_modules for name in _short_names(importlib.import_module(module))})
        hint = _suggest(path, known)
        raise ConfigurationError(
            f"unknown _target_ {path!r}: it is not a dotted path and not one of the short names {known}.{hint}"
        )
    check_trusted_path(path)
    parts = path.split(".")
    module, index = None, len(parts)
    while index > 0:
        check_trusted_path(".".join(parts[:index]))  # inside a trusted scope: import nothing that is not allowed
        try:
            module = importlib.import_module(".".join(parts[:index]))
            break
        except ModuleNotFoundError as error:
            missing = error.name or ""
            if not ".".join(parts[:index]).startswith(missing):
                raise ConfigurationError(
                    f"_target_ {path!r}: importing {'.'.join(parts[:index])!r} failed because its dependency "
                    f"{missing!r} is not installed. Install it, or pick another _target_"
                ) from error
            index -= 1
    if module is None:
        raise ConfigurationError(
            f"unknown _target_ {path!r}: no module {parts[0]!r} is installed or on the import path "
            f"(looked in {_import_path_summary()}). Check the spelling; for your own code, start in the directory "
            "that holds it (maze-run puts it on the import path), install it, or add it to PYTHONPATH"
        )
    target: Any = module
    for position in range(index, len(parts)):
        name = parts[position]
        if position > index:  # inside a trusted scope: only through allowed classes, never another module
            check_trusted_step(path, ".".join(parts[:position]), target)
        if not hasattr(target, name):
            where = ".".join(parts[:position])
            hint = _suggest(name, _public_names(target))
            raise ConfigurationError(f"unknown _target_ {path!r}: {where!r} has no attribute {name!r}.{hint}")
        target = getattr(target, name)
    check_trusted_target(path, target)
    return target


def _import_path_summary(limit: int = 4) -> str:
    """The first entries of ``sys.path`` for messages (an empty entry, the current directory, spelled out)."""
    entries = [entry or os.getcwd() for entry in sys.path]
    shown = ", ".join(repr(entry) for entry in entries[:limit])
    return shown + (f" and {len(entries) - limit} more" if len(entries) > limit else "")


def _short_names(module: Any) -> list[str]:
    """The names a module offers as short ``_target_`` s: its ``__all__``, else its public names."""
    return list(getattr(module, "__all__", None) or _public_names(module))


def _public_names(container: Any) -> list[str]:
    names = [name for name in dir(container) if not name.startswith("_")]
    if inspect.ismodule(container) and hasattr(container, "__path__"):
        names += [info.name for info in pkgutil.iter_modules(container.__path__)]
    return list(dict.fromkeys(names))


def _suggest(name: str, candidates: Sequence[str]) -> str:
    close = close_matches(name, candidates, limit=3)
    return f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""


_UNEXPECTED_KEYWORD = re.compile(r"(\S+\(\))? ?got an unexpected keyword argument '([^']+)'")


def _rejected_keyword(error: TypeError, arguments: Mapping[str, Any]) -> Optional[tuple[str, str]]:
    """``(callee, key)`` when ``error`` rejects one of the config's ``arguments`` by name, else None."""
    match = _UNEXPECTED_KEYWORD.search(str(error))
    if match is None or match.group(2) not in arguments:
        return None
    return match.group(1) or "the callee", match.group(2)


class Factory(Generic[T]):
    """Instantiates configs into objects of a given base type.

    ``Factory(MazeEnv).instantiate({"_target_": "maze.env.GymMazeEnv"}, env="CartPole-v1")``
    returns a GymMazeEnv; passing an object that already is a ``MazeEnv`` returns it
    unchanged; anything that does not produce a ``MazeEnv`` raises.

    A keyword argument that the target passes on (``**kwargs``) and that a callee further down
    rejects (gymnasium's ``TypeError: __init__() got an unexpected keyword argument 'x'``)
    becomes a ``ConfigurationError`` naming the config key (``env.x``), not the whole value.

    Args:
        base_type: The type every instantiated object must have.
        search_modules: Modules whose public names may be used as short ``_target_`` s.
        config_key: The config node the configs come from (e.g. ``'env'``), for messages.
    """

    def __init__(
        self, base_type: type[T], search_modules: Sequence[str] = (), config_key: Optional[str] = None
    ) -> None:
        self.base_type = base_type
        self.search_modules = tuple(search_modules)
        self.config_key = config_key

    def instantiate(self, config: ConfigType, **kwargs: Any) -> T:
        """Builds the object a config describes (or checks and returns an existing one).

        Args:
            config: A ``_target_`` mapping, a class or factory function, or an instance.
            **kwargs: Extra keyword arguments; they override keys of the config.

        Raises:
            ConfigurationError: For an unknown target, unexpected or missing arguments, or
                a result that is not a ``base_type``.
        """
        config = to_plain_config(config)
        if isinstance(config, Mapping):
            if "_target_" not in config:
                raise ConfigurationError(
                    f"config for a {self.base_type.__name__} has no _target_ key: {dict(config)!r}. Add "
                    "_target_: <dotted.path.of.Class>"
                )
            target = resolve_target(config["_target_"], self.search_modules)
            check_trusted_class_builds(config["_target_"], target, self.base_type)
            arguments = {key: value for key, value in config.items() if key != "_target_"}
            arguments.update(kwargs)
            return self._call(target, arguments, config["_target_"])
        if isinstance(config, type) or (callable(config) and not isinstance(config, self.base_type)):
            name = getattr(config, "__qualname__", repr(config))
            check_trusted_class_builds(name, config, self.base_type)
            return self._call(config, kwargs, name)
        if isinstance(config, self.base_type):
            return config
        raise ConfigurationError(
            f"expected a {self.base_type.__name__} or a config with _target_, got {type(config).__name__}: {config!r}"
        )

    def instantiate_collection(self, configs: CollectionOfConfigType, **kwargs: Any) -> Any:
        """Instantiates each config of a list (returns a list) or a mapping (returns a dict)."""
        configs = to_plain_config(configs)
        if isinstance(configs, Mapping) and "_target_" not in configs:
            return {name: self.instantiate(config, **kwargs) for name, config in configs.items()}
        if isinstance(configs, Sequence) and not isinstance(configs, str):
            return [self.instantiate(config, **kwargs) for config in configs]
        raise ConfigurationError(f"expected a list or a mapping of configs, got {type(configs).__name__}: {configs!r}")

    def _call(self, target: Any, arguments: dict[str, Any], name: str) -> T:
        if not callable(target):
            raise ConfigurationError(f"_target_ {name!r} is not a class or function but a {type(target).__name__}")
        self._check_arguments(target, arguments, name)
        try:
            result = target(**arguments)
        except TypeError as error:
            rejected = _rejected_keyword(error, arguments)
            if rejected is None:
                raise
            callee, key = rejected
            where = f"{self.config_key}.{key}" if self.config_key else key
            raise ConfigurationError(
                f"cannot build _target_ {name!r}: it passes the argument {key!r} on, and {callee} does not take it. "
                f"Remove {where} from the config or check its spelling"
            ) from None
        if not isinstance(result, self.base_type):
            raise ConfigurationError(
                f"_target_ {name!r} produced a {type(result).__name__}, but a {self.base_type.__name__} is needed here"
            )
        return result

    @staticmethod
    def _check_arguments(target: Any, arguments: dict[str, Any], name: str) -> None:
        try:
            signature = inspect.signature(target)
        except (TypeError, ValueError):  # builtins without a signature: let the call decide
            return
        try:
            signature.bind(**arguments)
        except TypeError as error:
            accepted = [
                parameter.name
                for parameter in signature.parameters.values()
                if parameter.kind not in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD)
            ]
            unexpected = [key for key in arguments if key not in signature.parameters]
            detail = ""
            if unexpected and not any(p.kind == p.VAR_KEYWORD for p in signature.parameters.values()):
                hints = "".join(_suggest(key, accepted) for key in unexpected)
                detail = f" Unexpected: {unexpected}.{hints}"
            raise ConfigurationError(
                f"cannot build _target_ {name!r}: {error}.{detail} It accepts: {accepted}"
            ) from None
