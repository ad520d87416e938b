"""Builds wrapper stacks from the ``wrappers`` config mapping.

The config maps wrapper classes to their keyword arguments, e.g. (YAML, ``# @package wrappers``)::

    RandomResetWrapper: {min_skip_steps: 0, max_skip_steps: 100}
    maze.env.wrappers.time_limit.TimeLimitWrapper: {max_episode_steps: 1000}

Keys are dotted class paths or short names of the built-in wrappers exported by
:mod:`maze.env.wrappers`. Wrappers apply top to bottom: the first key wraps the env directly
(innermost), the last key is the outermost wrapper.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any, Optional, Union

from maze.env.errors import ConfigurationError
from maze.env.utils.factory import resolve_target, to_plain_config
from maze.env.utils.suggestions import close_matches
from maze.env.wrappers.wrapper import Wrapper

__all__ = ["WrapperFactory"]

_BUILT_IN_WRAPPERS = ("maze.env.wrappers",)


class WrapperFactory:
    """Wraps envs with the wrappers a config mapping names, in order (first key innermost)."""

    @classmethod
    def wrap_from_config(
        cls, env: Any, wrapper_config: Optional[Mapping[Union[str, type], Optional[Mapping[str, Any]]]]
    ) -> Any:
        """Wraps ``env`` with every wrapper of ``wrapper_config``, each built by ``Cls.wrap(env, **kwargs)``.

        Args:
            env: The env to wrap.
            wrapper_config: ``{class path, short name or wrapper class: kwargs}`` (a dict or an
                OmegaConf DictConfig; kwargs may be None for none). None or an empty mapping
                wraps nothing.

        Returns:
            The outermost wrapper (``env`` itself when the config is empty).

        Raises:
            ConfigurationError: For an unknown wrapper class (with close matches), a class
                that is not a :class:`~maze.env.wrappers.wrapper.Wrapper`, or unexpected or
                missing keyword arguments (naming the wrapper and the arguments it accepts).
        """
        config = to_plain_config(wrapper_config)
        if not config:
            return env
        if not isinstance(config, Mapping):
            raise ConfigurationError(
                f"the wrappers config must map wrapper classes to their arguments, got {type(config).__name__}: "
                f"{config!r}. Write e.g. {{'maze.env.wrappers.SomeWrapper': {{'arg': 1}}}}"
            )
        for key, kwargs in config.items():
            wrapper_class = _wrapper_class(key)
            name = key.__qualname__ if isinstance(key, type) else key
            arguments = _wrapper_arguments(name, wrapper_class, kwargs)
            env = wrapper_class.wrap(env, **arguments)
        return env


def _wrapper_class(name: Union[str, type]) -> type[Wrapper]:
    """Resolves a config key (a class, its dotted path or a built-in short name) into a Wrapper subclass."""
    if isinstance(name, type):
        target: Any = name
    else:
        try:
            target = resolve_target(name, search_modules=_BUILT_IN_WRAPPERS)
        except ConfigurationError as error:
            raise ConfigurationError(f"wrappers config key {name!r}: {error}") from None
    if not (isinstance(target, type) and issubclass(target, Wrapper)):
        raise ConfigurationError(
            f"wrappers config key {name!r} names {target!r}, which is not a subclass of "
            "maze.env.wrappers.wrapper.Wrapper; list only wrapper classes under wrappers"
        )
    return target


def _wrapper_arguments(name: str, wrapper_class: type[Wrapper], kwargs: Any) -> dict[str, Any]:
    """Checks the keyword arguments of one wrapper against its constructor (past ``env``)."""
    if kwargs is None:
        return {}
    if not isinstance(kwargs, Mapping):
        raise ConfigurationError(
            f"the arguments of wrapper {name!r} must be a mapping of keyword arguments, got "
            f"{type(kwargs).__name__}: {kwargs!r}"
        )
    parameters = list(inspect.signature(wrapper_class).parameters.values())[1:]  # the first one is the env
    if any(parameter.kind == parameter.VAR_KEYWORD for parameter in parameters):
        return dict(kwargs)
    accepted = [p.name for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    required = [
        p.name for p in parameters if p.default is p.empty and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    ]
    unexpected = [key for key in kwargs if key not in accepted]
    missing = [key for key in required if key not in kwargs]
    if unexpected or missing:
        problems = []
        for key in unexpected:
            close = close_matches(str(key), accepted)
            problems.append(f"unexpected argument {key!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
        problems += [f"missing argument {key!r}" for key in missing]
        raise ConfigurationError(
            f"wrapper {name!r} ({wrapper_class.__name__}): {'; '.join(problems)}. It accepts: {accepted}"
        )
    return dict(kwargs)
