"""Without Ray installed, every algorithm's runner on the Ray backend fails when it is built, with one line naming the extra."""

from __future__ import annotations

import sys

import pytest
from maze.rollout import RayNotInstalledError
from maze.train.trainers.a2c import A2CRunner
from maze.train.trainers.bc.runner import BCRunner
from maze.train.trainers.es.runner import ESRunner
from maze.train.trainers.impala.runner import ImpalaRunner
from maze.train.trainers.ppo import PPORunner
from maze.train.trainers.sac.runner import SACRunner

EXPECTED = "runner=ray needs Ray, which is not installed here: pip install -c "
"""The start of the message; the folder install of maze-train[ray] follows."""


@pytest.mark.parametrize(
    "build",
    [
        lambda: ImpalaRunner(backend="ray"),
        lambda: ESRunner(backend="ray"),
        lambda: SACRunner(backend="ray"),
        lambda: PPORunner(backend="ray"),
        lambda: A2CRunner(backend="ray", ray_address="auto"),
        lambda: BCRunner(backend="ray", dataset={}),
    ],
    ids=["impala", "es", "sac", "ppo", "a2c", "bc"],
)
def test_a_runner_on_ray_without_ray_is_one_line_naming_the_extra(
    build: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(RayNotInstalledError) as caught:
        build()  # type: ignore[operator]
    message = str(caught.value)
    assert message.startswith(EXPECTED) and "packages/maze-train[ray]'" in message and "\n" not in message
