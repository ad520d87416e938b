"""Resolving the ``${...}`` interpolations of a run directory's Hydra config under a budget.

OmegaConf resolves an interpolation each time it is read, without remembering the result, so
a chain of doubling strings (``a: x``, ``b: ${a}${a}``, ``c: ${b}${b}`` ...) of 3 KB takes
time and memory exponential in its length. :func:`resolve_selected` resolves instead, with
OmegaConf's own grammar (``omegaconf.grammar_parser`` and its visitor, so escapes and quoting
mean what they mean to OmegaConf), each value **once** and keeps the result; work is then
linear in the file. Before a string is joined, the sizes of its parts are added up, so nothing
larger than the budget is ever built. The budget (fields of
:class:`~maze.env.utils.untrusted_files.FileLimits`):

* ``max_resolved_size`` (default 4 Mi): the selected keys, fully expanded (every reference
  copied in, as a reader walking the result sees them), count at most this many units (one per
  value plus the characters of strings and keys). A doubling chain from a 30-character value
  is refused at its 18th level, after about 20 ms.
* ``max_interpolations`` (default 10,000): ``${`` occurrences parsed in all resolved strings.
* ``max_interpolation_depth`` (default 32): interpolations that refer to interpolations.
* ``max_depth`` (default 64): nesting of the resolved values and of the resolution itself.

Semantics follow OmegaConf: ``${a.b}`` / ``${a[0]}`` are absolute, ``${.x}`` is a sibling,
each further leading dot goes up one level; a lone interpolation keeps its target's type,
one inside a longer string is joined as ``str``. Two things are refused in files from a run
directory: **resolvers** (``${oc.env:HOME}``, ``${now:...}``, ``${hydra:...}``: they read the
environment, the clock or a running app, and are not evaluated) and a key path that passes
through another interpolation (``${a.x}`` where ``a: ${b}``; write ``${b.x}``). maze's own
configs put neither into ``env`` or ``wrappers``. Only the selected keys and what they refer
to are resolved; the rest of the file (e.g. ``launch_dir: ${hydra:runtime.cwd}``) is not.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Optional

from maze.env.errors import ConfigurationError
from maze.env.utils.untrusted_files import FileLimits, refusal

__all__ = ["resolve_selected"]

Path = tuple[Any, ...]

_SEGMENT = re.compile(r"\[([^\]]*)\]|([^.\[\]]+)")


def resolve_selected(data: dict[Any, Any], keys: Sequence[str], source: str, limits: FileLimits) -> dict[str, Any]:
    """The top-level ``keys`` of ``data`` with their interpolations resolved under ``limits``.

    Args:
        data: A config as plain data (as :func:`~maze.env.utils.untrusted_files.load_untrusted_yaml`
            returns it).
        keys: The top-level keys to resolve; those ``data`` lacks are left out.
        source: The file, for messages.
        limits: The budget (see the module docs).

    Returns:
        ``{key: resolved plain data}``, independent copies (no value shared between two places).

    Raises:
        UntrustedFileError: The budget is exceeded, or a resolver or a key path through an
            interpolation is used.
        ConfigurationError: An interpolation names a missing key, refers to itself or does not parse.
    """
    resolver = _BoundedResolver(data, source, limits)
    selected = {key: resolver.resolve((key,)) for key in keys if key in data}
    total = sum(resolver.size_of((key,)) for key in selected)
    if total > limits.max_resolved_size:
        raise resolver.too_large(", ".join(selected))
    return {key: _copied(value) for key, value in selected.items()}


def _copied(value: Any) -> Any:
    """A tree copy of resolved data (depth and size are already bounded)."""
    if isinstance(value, dict):
        return {key: _copied(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copied(item) for item in value]
    return value


def _dotted(path: Path) -> str:
    return ".".join(map(str, path))


@dataclass
class _Frame:
    """The string being resolved: the size of its parts so far and of its last referenced value."""

    size: int
    last_size: int = 0
    last_depth: int = 0


class _BoundedResolver:
    """Resolves the values of one config, each once, under the limits (see the module docs)."""

    def __init__(self, root: dict[Any, Any], source: str, limits: FileLimits) -> None:
        self.root = root
        self.source = source
        self.limits = limits
        self._values: dict[Path, Any] = {}
        self._sizes: dict[Path, int] = {}
        self._depths: dict[Path, int] = {}
        self._active: list[Path] = []
        self._links = 0
        self._frames: list[_Frame] = []
        self._parsed = 0

    def size_of(self, path: Path) -> int:
        """The expanded size of the resolved value at ``path``."""
        return self._sizes[path]

    def resolve(self, path: Path) -> Any:
        """The resolved value at ``path`` (kept, so each value is resolved once)."""
        if path in self._values:
            return self._values[path]
        if path in self._active:
            chain = " -> ".join(_dotted(item) for item in self._active[self._active.index(path) :])
            raise ConfigurationError(
                f"{self.source}: the interpolation of {_dotted(path)} refers to itself ({chain} -> {_dotted(path)}); "
                "replace one of them with a value"
            )
        if len(self._active) >= self.limits.max_depth:
            raise refusal(
                self.source,
                f"needs more than {self.limits.max_depth} nested levels to resolve {_dotted(path)}",
                "Write the values out in full, or use the file the training run wrote",
            )
        value = self._raw(path)
        self._active.append(path)
        try:
            if isinstance(value, dict):
                items = {key: self.resolve((*path, key)) for key in value}
                size = 1 + sum(self._sizes[(*path, key)] + len(str(key)) for key in value)
                depth = 1 + max((self._depths[(*path, key)] for key in value), default=0)
                value = items
            elif isinstance(value, list):
                items = [self.resolve((*path, index)) for index in range(len(value))]
                size = 1 + sum(self._sizes[(*path, index)] for index in range(len(value)))
                depth = 1 + max((self._depths[(*path, index)] for index in range(len(value))), default=0)
                value = items
            elif isinstance(value, str) and "${" in value:
                value, size, depth = self._interpolate(value, path)
            else:
                size, depth = 1 + len(str(value)), 0
        finally:
            self._active.pop()
        if size > self.limits.max_resolved_size:
            raise self.too_large(_dotted(path))
        if depth > self.limits.max_depth:
            raise refusal(
                self.source,
                f"resolves {_dotted(path)} to lists and mappings nested more than {self.limits.max_depth} levels deep",
                "Write the values out in full, or use the file the training run wrote",
            )
        self._values[path], self._sizes[path], self._depths[path] = value, size, depth
        return value

    def too_large(self, what: str) -> Exception:
        """The refusal of a resolved value larger than the budget."""
        return refusal(
            self.source,
            f"expands {what} through its interpolations beyond {self.limits.max_resolved_size} characters and values",
            "Interpolations in files read from a run directory are resolved under a budget, as a chain of a few "
            "doubling ${...} grows exponentially: write the values out, or use the file the training run wrote",
        )

    def _interpolate(self, text: str, path: Path) -> tuple[Any, int, int]:
        """Resolves one string with interpolations; returns its value, size and depth."""
        from omegaconf import grammar_parser
        from omegaconf.errors import GrammarParseError
        from omegaconf.grammar_visitor import GrammarVisitor

        self._parsed += text.count("${")
        if self._parsed > self.limits.max_interpolations:
            raise refusal(
                self.source,
                f"needs more than {self.limits.max_interpolations} interpolations to resolve (at {_dotted(path)})",
                "Write the values out, or use the file the training run wrote",
            )
        self._links += 1
        if self._links > self.limits.max_interpolation_depth:
            raise refusal(
                self.source,
                f"chains more than {self.limits.max_interpolation_depth} interpolations that refer to interpolations "
                f"(at {_dotted(path)})",
                "Write the values out, or use the file the training run wrote",
            )
        frame = _Frame(size=len(text))
        self._frames.append(frame)
        visitor = GrammarVisitor(
            # omegaconf 2.3 passes the key as text, 2.4 as a NodeInterpolationKey holding it in .raw
            node_interpolation_callback=lambda key, memo: self._referenced(getattr(key, "raw", key), path),
            resolver_interpolation_callback=lambda name, args, args_str: self._refuse_resolver(name, path),
            memo=None,
        )
        try:
            result = visitor.visit(grammar_parser.parse(text))
        except GrammarParseError as error:
            raise ConfigurationError(
                f"{self.source}: the value of {_dotted(path)} is no valid interpolation ({error}); fix or quote it"
            ) from None
        except RecursionError:
            raise refusal(
                self.source,
                f"nests interpolations too deeply in the value of {_dotted(path)}",
                "Write the values out, or use the file the training run wrote",
            ) from None
        finally:
            self._frames.pop()
            self._links -= 1
        if isinstance(result, str):
            return result, 1 + len(result), 0
        if isinstance(result, (dict, list)):
            return result, frame.last_size, frame.last_depth
        return result, 1 + len(str(result)), 0

    def _referenced(self, key: str, path: Path) -> Any:
        """The resolved value ``${key}`` in the value at ``path`` names, added to the string's size."""
        target = self._target(key, path)
        value = self.resolve(target)
        frame = self._frames[-1]
        frame.last_size, frame.last_depth = self._sizes[target], self._depths[target]
        frame.size += frame.last_size
        if frame.size > self.limits.max_resolved_size:
            raise self.too_large(_dotted(path))
        if value == "???":
            raise ConfigurationError(
                f"{self.source}: {_dotted(path)} refers to {_dotted(target)}, which has no value (???); give it one"
            )
        return value

    def _refuse_resolver(self, name: str, path: Path) -> Any:
        raise refusal(
            self.source,
            f"uses the resolver ${{{name}:...}} in {_dotted(path)}; resolvers are not evaluated in files read from "
            "a run directory (they read the environment, the clock or a running app)",
            "Replace it with its value",
        )

    def _target(self, key: str, path: Path) -> Path:
        """The path ``${key}`` names from the value at ``path`` (OmegaConf's absolute and relative keys)."""
        dots = len(key) - len(key.lstrip("."))
        if dots > len(path):
            raise ConfigurationError(
                f"{self.source}: the interpolation ${{{key}}} in {_dotted(path)} goes above the top of the config"
            )
        base = path[: len(path) - dots] if dots else ()
        segments = [bracketed or plain for bracketed, plain in _SEGMENT.findall(key[dots:])]
        target: list[Any] = list(base)
        node: Any = self._raw(tuple(base))
        for segment in segments:
            if isinstance(node, str) and "${" in node:
                raise refusal(
                    self.source,
                    f"interpolates ${{{key}}} in {_dotted(path)} through {_dotted(tuple(target))}, itself an "
                    "interpolation; such key paths are not followed in files read from a run directory",
                    "Name the key the inner interpolation points to",
                )
            step = _child_key(node, segment)
            if step is None:
                raise ConfigurationError(
                    f"{self.source}: the interpolation ${{{key}}} in {_dotted(path)} names a key that does not exist "
                    f"({_dotted((*target, segment))}); fix the key"
                )
            target.append(step)
            node = node[step]
        return tuple(target)

    def _raw(self, path: Path) -> Any:
        node: Any = self.root
        for step in path:
            node = node[step]
        return node


def _child_key(node: Any, segment: str) -> Optional[Any]:
    """The key (or list index) of ``node`` that ``segment`` of an interpolation names, None if none."""
    if isinstance(node, dict):
        if segment in node:
            return segment
        if segment.lstrip("-").isdigit() and int(segment) in node:
            return int(segment)
        return None
    if isinstance(node, list) and segment.isdigit() and int(segment) < len(node):
        return int(segment)
    return None
