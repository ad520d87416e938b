"""Lazy re-exports of a package: each name is imported from its module on first use."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any

__all__ = ["lazy_getattr"]


def lazy_getattr(package: str, exports: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package`` that imports each name of ``exports`` (name -> module) on first use.

    The imported object is kept in the package's namespace, so later look-ups are plain attribute reads.

    Example:
        ``__getattr__ = lazy_getattr(__name__, {"Model": "my_package.models"})`` in ``my_package/__init__.py``
        imports ``my_package.models`` (and what it needs) only when ``my_package.Model`` is first used.
    """

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
