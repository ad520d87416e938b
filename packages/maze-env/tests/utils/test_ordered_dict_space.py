"""ordered_dict_space keeps the declared key order on every gymnasium 1.x (1.2.2 has no ``sort_keys``)."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from maze.env.utils.spaces import ordered_dict_space


def test_keys_keep_their_declared_order_where_a_plain_dict_would_be_sorted() -> None:
    items = {"zeta": spaces.Discrete(3), "alpha": spaces.Box(-1.0, 1.0, shape=(2,), dtype=np.float32)}
    space = ordered_dict_space(items)
    assert list(space.spaces) == ["zeta", "alpha"]
    assert list(spaces.Dict(items).spaces) == ["alpha", "zeta"]  # what gymnasium does without it
    assert list(space.sample()) == ["zeta", "alpha"]
    assert spaces.flatten_space(space).shape == (5,)
    assert spaces.flatten(space, {"zeta": 2, "alpha": np.zeros(2, np.float32)})[:3].tolist() == [0.0, 0.0, 1.0]
