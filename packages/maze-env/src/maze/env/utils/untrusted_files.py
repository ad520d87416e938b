"""Bounded reading of the YAML and JSON files of a run directory, which may come from anyone.

A run directory (``outputs/.../<timestamp>/``, an ``input_dir``, an exported policy) can be a
colleague's or a download. Every reader of its plain-data files (``.hydra/config.yaml``,
``model_config.yaml``, ``spaces_config.yaml``, ``training_state.yaml``, an ONNX export's
``metadata.json``) goes through this module, which keeps a crafted file from hanging or
exhausting the machine. Files the user writes (the Hydra config tree) are not read here.

Rules (each limit is a field of :class:`FileLimits`):

* **Size**: a file larger than ``max_bytes`` (default 4 MiB, about 2 s of YAML parsing;
  ``MAZE_UNTRUSTED_FILE_MAX_BYTES`` raises it) is refused before it is parsed.
* **No YAML anchors or aliases**: ``&a`` / ``*a`` let 2.7 KB expand into billions of values
  ("billion laughs": 5 levels took 25.6 s, 9 levels did not finish). maze never writes them;
  a file that holds one is refused by a scan of the parser's events before any node is built.
* **Nesting depth** of at most ``max_depth`` (default 64) lists and mappings, checked in the
  same scan (YAML) or after decoding (JSON), before anything recursive walks the data.
* **Plain data only**: mappings, lists, strings, numbers, booleans and null (no ``!!binary``,
  ``!!set``, timestamps), so no reader meets a type it does not expect.
* **Interpolations** (``${a.b}``) of a Hydra config are resolved by
  :func:`maze.env.utils.untrusted_interpolation.resolve_selected` under a budget; see there.

A file over a limit raises :class:`UntrustedFileError` (a ``ConfigurationError``, shown by
``maze-run`` as one ``Error:`` line) naming the file, the problem and the fix. A file that is
no valid YAML/JSON raises the parser's own error (``yaml.YAMLError``,
``json.JSONDecodeError``, ``UnicodeDecodeError``) for the caller to say what to do about it.
"""

from __future__ import annotations

import importlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Optional, Union

import yaml
from maze.env.errors import ConfigurationError

__all__ = [
    "FileLimits",
    "MAX_BYTES_VARIABLE",
    "UntrustedFileError",
    "check_plain_data",
    "load_untrusted_config",
    "load_untrusted_json",
    "load_untrusted_yaml",
    "read_untrusted_bytes",
    "refusal",
]

PathType = Union[str, os.PathLike]

MAX_BYTES_VARIABLE = "MAZE_UNTRUSTED_FILE_MAX_BYTES"
"""Environment variable that raises (or lowers) :attr:`FileLimits.max_bytes` for every reader."""

_DEFAULT_MAX_BYTES = 4 * 2**20


def _max_bytes_from_environment() -> int:
    value = os.environ.get(MAX_BYTES_VARIABLE, "").strip()
    if not value:
        return _DEFAULT_MAX_BYTES
    try:
        limit = int(value)
    except ValueError:
        limit = 0
    if limit <= 0:
        raise ConfigurationError(
            f"{MAX_BYTES_VARIABLE}={value!r} is not a positive number of bytes; set it to e.g. {8 * 2**20} or unset it"
        )
    return limit


@dataclass(frozen=True)
class FileLimits:
    """What a file read from a run directory may hold (see the module docs).

    Args:
        max_bytes: Largest file size in bytes (default 4 MiB, or ``$MAZE_UNTRUSTED_FILE_MAX_BYTES``).
        max_depth: Deepest nesting of lists and mappings, also of a resolved config.
        max_interpolations: Most ``${...}`` interpolations resolved for one config.
        max_interpolation_depth: Longest chain of interpolations that refer to interpolations.
        max_resolved_size: Largest resolved selection of a config, counted as the characters of
            its strings and keys plus one per value, with every reference expanded.
    """

    max_bytes: int = field(default_factory=_max_bytes_from_environment)
    max_depth: int = 64
    max_interpolations: int = 10_000
    max_interpolation_depth: int = 32
    max_resolved_size: int = 4 * 2**20


class UntrustedFileError(ConfigurationError):
    """A file read from a run directory exceeds a limit of :class:`FileLimits`; nothing of it was used."""


def refusal(source: str, problem: str, fix: str) -> UntrustedFileError:
    """The one-line error for ``source`` (a file name): what is wrong, that nothing was used, what to do."""
    return UntrustedFileError(f"{source} {problem}; nothing of it was used. {fix}")


_TRUST_HINT = "Files read from a run directory are bounded because they may come from anyone"


def read_untrusted_bytes(path: PathType, limits: Optional[FileLimits] = None) -> bytes:
    """The bytes of ``path``, refused when larger than ``limits.max_bytes`` (never reads more).

    Raises:
        UntrustedFileError: The file is too large.
        OSError: The file cannot be read.
    """
    limits = limits or FileLimits()
    with open(path, "rb") as file:
        data = file.read(limits.max_bytes + 1)
    if len(data) > limits.max_bytes:
        size = os.path.getsize(path) if os.path.isfile(path) else len(data)
        raise refusal(
            repr(str(path)),
            f"has {size} bytes, more than the {limits.max_bytes} bytes allowed for a file read from a run directory",
            f"{_TRUST_HINT}; if you trust this one, raise the limit: export {MAX_BYTES_VARIABLE}=<bytes>",
        )
    return data


def _yaml_base() -> type:
    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml: about 5x faster on large files


class _PlainYamlLoader(_yaml_base()):  # type: ignore[misc]
    """Safe YAML as ``yaml.safe_load`` reads it (the files maze writes with ``yaml.safe_dump``)."""


class _OmegaConfYamlLoader(_yaml_base()):  # type: ignore[misc]
    """Safe YAML as ``OmegaConf.load`` reads it: ``1e-3`` is a float, no timestamps, no duplicate keys."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> Any:
        keys = [key.value for key, _ in node.value if isinstance(key, yaml.ScalarNode)]
        duplicates = sorted({key for key in keys if keys.count(key) > 1}) if len(set(keys)) < len(keys) else []
        if duplicates:
            raise yaml.constructor.ConstructorError(
                "while constructing a mapping", node.start_mark, f"found duplicate key {duplicates[0]}", None
            )
        return super().construct_mapping(node, deep=deep)


def _use_omegaconf_scalars() -> None:
    """Gives the loader the implicit scalar types OmegaConf.load uses (a data table, not code).

    OmegaConf keeps its loader in ``omegaconf._yaml`` (2.4) or ``omegaconf._utils`` (2.3); with
    neither, scalars are read by YAML 1.1's rules (``1e-3`` stays a string).
    """
    for module_name in ("omegaconf._yaml", "omegaconf._utils"):
        try:
            loader = importlib.import_module(module_name).get_yaml_loader()
        except (ImportError, AttributeError, TypeError):
            continue
        _OmegaConfYamlLoader.yaml_implicit_resolvers = dict(loader.yaml_implicit_resolvers)
        return


_use_omegaconf_scalars()


_OPENING = (yaml.MappingStartEvent, yaml.SequenceStartEvent)
_CLOSING = (yaml.MappingEndEvent, yaml.SequenceEndEvent)


def _where(event: yaml.Event) -> str:
    mark = event.start_mark
    return f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""


def _scan_yaml_events(text: str, source: str, limits: FileLimits) -> None:
    """Refuses anchors, aliases and deep nesting from the parser's events, before any node is built."""
    depth = 0
    for event in yaml.parse(text, Loader=_PlainYamlLoader):
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            sign = "*" if isinstance(event, yaml.AliasEvent) else "&"
            raise refusal(
                source,
                f"uses the YAML {'alias' if sign == '*' else 'anchor'} {sign}{event.anchor}{_where(event)}; anchors "
                "and aliases are refused in files read from a run directory, as a few of them expand a small file "
                "into billions of values",
                "maze never writes them: write the values out in full, or use the file the training run wrote",
            )
        if isinstance(event, _OPENING):
            depth += 1
            if depth > limits.max_depth:
                raise refusal(
                    source,
                    f"nests lists and mappings more than {limits.max_depth} levels deep{_where(event)}",
                    f"{_TRUST_HINT}: flatten it, or pass FileLimits(max_depth=...) if you trust it",
                )
        elif isinstance(event, _CLOSING):
            depth -= 1


def load_untrusted_yaml(
    path: PathType, limits: Optional[FileLimits] = None, omegaconf: bool = False, source: Optional[str] = None
) -> Any:
    """The plain data of a YAML file of a run directory, read under ``limits`` (see the module docs).

    Args:
        path: The file.
        limits: The limits (default :class:`FileLimits`).
        omegaconf: Read scalars as ``OmegaConf.load`` does (Hydra's ``.hydra/config.yaml``) rather
            than as ``yaml.safe_load`` does (the files maze writes with ``yaml.safe_dump``).
        source: How messages name the file (default its quoted path).

    Returns:
        Mappings, lists, strings, numbers, booleans and None.

    Raises:
        UntrustedFileError: The file is too large or deep, uses anchors or aliases, or holds
            something other than plain data.
        yaml.YAMLError: The file is no valid YAML.
        UnicodeDecodeError: The file is not UTF-8.
        OSError: The file cannot be read.
    """
    limits = limits or FileLimits()
    source = source or repr(str(path))
    text = read_untrusted_bytes(path, limits).decode("utf-8")
    _scan_yaml_events(text, source, limits)
    try:
        data = yaml.load(text, Loader=_OmegaConfYamlLoader if omegaconf else _PlainYamlLoader)  # noqa: S506 - safe
    except (ValueError, OverflowError) as error:  # e.g. an integer of more digits than Python converts
        raise refusal(
            source, f"holds a value that cannot be read ({error})", "Use the file the training run wrote"
        ) from None
    check_plain_data(data, source, limits)
    return data


def load_untrusted_json(path: PathType, limits: Optional[FileLimits] = None, source: Optional[str] = None) -> Any:
    """The plain data of a JSON file of a run directory, read under ``limits`` (see the module docs).

    Raises:
        UntrustedFileError: The file is too large or too deeply nested, or holds an unreadable number.
        json.JSONDecodeError: The file is no valid JSON.
        UnicodeDecodeError: The file is not UTF-8.
        OSError: The file cannot be read.
    """
    limits = limits or FileLimits()
    source = source or repr(str(path))
    text = read_untrusted_bytes(path, limits).decode("utf-8")
    try:
        data = json.loads(text)
    except RecursionError:
        raise refusal(
            source,
            f"nests lists and mappings more than {limits.max_depth} levels deep",
            f"{_TRUST_HINT}: flatten it, or export the policy again",
        ) from None
    except json.JSONDecodeError:
        raise
    except ValueError as error:  # e.g. an integer of more digits than Python converts
        raise refusal(source, f"holds a value that cannot be read ({error})", "Export the policy again") from None
    check_plain_data(data, source, limits)
    return data


_SCALARS = (str, int, float, bool, type(None))


def check_plain_data(data: Any, source: str, limits: FileLimits) -> None:
    """Checks, without recursion, that ``data`` is plain data nested at most ``limits.max_depth`` deep.

    Raises:
        UntrustedFileError: Naming the key path of the first value that is too deep or not plain data.
    """
    stack: list[tuple[Any, tuple[Any, ...]]] = [(data, ())]
    while stack:
        value, path = stack.pop()
        if isinstance(value, _SCALARS):
            continue
        where = _shortened(".".join(map(str, path))) or "the top level"
        if len(path) >= limits.max_depth:
            raise refusal(
                source,
                f"nests lists and mappings more than {limits.max_depth} levels deep (at {where})",
                f"{_TRUST_HINT}: flatten it, or pass FileLimits(max_depth=...) if you trust it",
            )
        if isinstance(value, dict):
            for key, item in value.items():
                if not isinstance(key, _SCALARS):
                    raise refusal(source, f"has a {type(key).__name__} as a key at {where}", _PLAIN_FIX)
                stack.append((item, (*path, key)))
        elif isinstance(value, list):
            stack.extend((item, (*path, index)) for index, item in enumerate(value))
        else:
            raise refusal(source, f"holds a value of type {type(value).__name__} at {where}", _PLAIN_FIX)


def _shortened(where: str, limit: int = 80) -> str:
    return where if len(where) <= limit else f"{where[:limit]}..."


_PLAIN_FIX = (
    "Files read from a run directory hold plain data only (mappings, lists, strings, numbers, booleans, null): "
    "use the file the training run wrote"
)


def load_untrusted_config(path: PathType, keys: Sequence[str], limits: Optional[FileLimits] = None) -> dict[str, Any]:
    """The resolved top-level ``keys`` of a Hydra config file of a run directory (``.hydra/config.yaml``).

    The file is read by :func:`load_untrusted_yaml` (as ``OmegaConf.load`` reads scalars), then
    the interpolations the selected keys need are resolved under ``limits`` by
    :func:`~maze.env.utils.untrusted_interpolation.resolve_selected`. Keys the file lacks are
    left out; other keys are not resolved (they may use resolvers such as ``${hydra:...}``).

    Returns:
        ``{key: plain data}`` for each of ``keys`` the file has, as independent copies.

    Raises:
        UntrustedFileError: Over a limit of :class:`FileLimits`, or a resolver interpolation.
        ConfigurationError: An interpolation that names a missing key or refers to itself.
        yaml.YAMLError: The file is no valid YAML (also: duplicate keys).
        UnicodeDecodeError: The file is not UTF-8.
        OSError: The file cannot be read.
    """
    from maze.env.utils.untrusted_interpolation import resolve_selected

    limits = limits or FileLimits()
    source = repr(str(path))
    data = load_untrusted_yaml(path, limits, omegaconf=True, source=source)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigurationError(f"{source} holds a {type(data).__name__}, not a config mapping")
    return resolve_selected(data, keys, source, limits)
