"""Deep equality of trajectory records, for tests of writers, readers and converters."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

__all__ = ["assert_same_value", "assert_same_record"]


def assert_same_value(expected: Any, actual: Any, path: str = "value") -> None:
    """Asserts that ``actual`` equals ``expected`` in value *and* type, recursively.

    Arrays must agree in dtype, shape and contents (NaNs equal), numpy scalars in dtype,
    tuples must stay tuples and lists lists; dataclasses are compared field by field.

    Raises:
        AssertionError: Naming the first place (``path``) where they differ.
    """
    assert type(actual) is type(expected), f"{path}: {type(actual).__name__} != {type(expected).__name__}"
    if isinstance(expected, np.ndarray):
        assert actual.dtype == expected.dtype and actual.shape == expected.shape, f"{path}: dtype or shape differs"
        assert np.array_equal(actual, expected, equal_nan=expected.dtype.kind in "fc"), f"{path}: contents differ"
    elif isinstance(expected, np.generic):
        assert actual.dtype == expected.dtype and (actual == expected or actual != actual), f"{path}: {actual!r}"
    elif isinstance(expected, (list, tuple)):
        assert len(actual) == len(expected), f"{path}: length {len(actual)} != {len(expected)}"
        for index, (item, other) in enumerate(zip(expected, actual, strict=True)):
            assert_same_value(item, other, f"{path}[{index}]")
    elif isinstance(expected, dict):
        assert list(actual) == list(expected), f"{path}: keys {list(actual)} != {list(expected)}"
        for key, item in expected.items():
            assert_same_value(item, actual[key], f"{path}[{key!r}]")
    elif dataclasses.is_dataclass(expected):
        for field in dataclasses.fields(expected):
            assert_same_value(getattr(expected, field.name), getattr(actual, field.name), f"{path}.{field.name}")
    else:
        assert actual == expected, f"{path}: {actual!r} != {expected!r}"


def assert_same_record(expected: Any, actual: Any) -> None:
    """Asserts two trajectory records are equal (see :func:`assert_same_value`), step by step."""
    assert_same_value(expected, actual, "record")
