"""Bounds: the allowed range of a numeric setting, declared where the setting is defined.

Algorithm configs declare it on their fields (:func:`~maze.train.core.config.bounded`);
classes built from ``_target_`` configs declare it in their signatures, e.g.
``lr: Annotated[float, Bounds(ge=0)]``, and
:func:`~maze.train.core.config.validate_target_config` checks the configured values.
This module imports nothing of maze.train, so that any module can declare bounds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

__all__ = ["Bounds"]


@dataclass(frozen=True)
class Bounds:
    """The allowed range of a numeric key (None: no limit on that side).

    Attributes:
        gt: Values must be greater than this.
        ge: Values must be at least this.
        lt: Values must be less than this.
        le: Values must be at most this.
    """

    gt: Optional[float] = None
    ge: Optional[float] = None
    lt: Optional[float] = None
    le: Optional[float] = None

    def contains(self, value: float) -> bool:
        """True if ``value`` is finite and within all limits."""
        if not math.isfinite(value):
            return False
        return not (
            (self.gt is not None and value <= self.gt)
            or (self.ge is not None and value < self.ge)
            or (self.lt is not None and value >= self.lt)
            or (self.le is not None and value > self.le)
        )

    def describe(self) -> str:
        """The range as text, e.g. ``> 0`` or ``> 0 and <= 1``."""
        parts = [
            f"{symbol} {limit:g}"
            for symbol, limit in ((">", self.gt), (">=", self.ge), ("<", self.lt), ("<=", self.le))
            if limit is not None
        ]
        return " and ".join(parts) or "finite"
