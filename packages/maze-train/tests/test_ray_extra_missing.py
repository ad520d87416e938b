"""Without Ray installed, every Ray training runner fails when it is built, with one line naming the extra."""

from __future__ import annotations

import sys

import pytest
from maze.rollout import RayNotInstalledError
from maze.train.trainers.actor_critic.actor_critic_ray_runner import ACRayRunner
from maze.train.trainers.es.es_ray_runner import ESRayRunner
from maze.train.trainers.impala.impala_ray_runner import ImpalaRayRunner
from maze.train.trainers.sac.sac_ray_runner import SACRayRunner

EXPECTED = "runner=ray needs Ray, which is not installed here: pip install -c "
"""The start of the message; the folder install of maze-train[ray] follows."""


@pytest.mark.parametrize(
    "build",
    [
        lambda: ImpalaRayRunner(trainer_class="maze.train.trainers.impala.IMPALA"),
        lambda: ESRayRunner(),
        lambda: SACRayRunner(trainer_class="maze.train.trainers.sac.sac_trainer.SAC"),
        lambda: ACRayRunner(trainer_class="maze.train.trainers.ppo.PPO"),
    ],
    ids=["impala-ray", "es-ray", "sac-ray", "ppo-ray"],
)
def test_a_ray_training_runner_without_ray_is_one_line_naming_the_extra(
    build: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(RayNotInstalledError) as caught:
        build()  # type: ignore[operator]
    message = str(caught.value)
    assert message.startswith(EXPECTED) and "packages/maze-train[ray]'" in message and "\n" not in message
