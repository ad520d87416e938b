"""Non-finite observations: ``runner.non_finite=skip`` skips the update on them; every message names env and epoch."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch
from es_test_support import nan_observation_cartpole
from maze.env.utils.finite import NonFiniteValueError
from maze.env.vector.sequential import SequentialVectorEnv
from maze.env.wrappers.log_stats_wrapper import LogStatsWrapper
from maze.perception.models.base_model_composer import build_model_composer
from maze.perception.models.spaces_config import SpacesConfig
from maze.train.distributed import SequentialDistributedActors
from maze.train.guards import NonFiniteGuard
from maze.train.rollout import RolloutCollector
from maze.train.trainers import A2C, A2CAlgorithmConfig
from maze.train.trainers.impala import IMPALA, ImpalaAlgorithmConfig
from train_test_support import small_model_config

SOURCE = "NanCartPole"
BUDGET = {"n_epochs": 1, "epoch_length": 1, "n_rollout_steps": 8, "patience": 0, "lr": 1e-2}
"""One rollout of 8 steps: it holds the NaN observation CartPole returns at the fourth step of every episode."""


def nan_cartpole() -> Any:
    return LogStatsWrapper.wrap(nan_observation_cartpole())


def cartpole_model() -> Any:
    spaces = SpacesConfig.from_env(nan_cartpole())
    return build_model_composer(small_model_config("template", "cartpole"), spaces).torch_actor_critic()


def test_the_guard_hands_on_or_stops_on_a_non_finite_observation() -> None:
    batch = {"obs": np.array([[0.0, 1.0], [2.0, np.nan]], dtype=np.float32)}
    skipping = NonFiniteGuard("skip", source=SOURCE)
    actable = skipping.check_observation(batch, env_step=6, substep=0, envs=[3, 5])
    assert np.array_equal(actable["obs"], [[0.0, 1.0], [2.0, 0.0]]) and np.isnan(batch["obs"][1, 1])
    found = skipping.take_observation()
    assert (found.env, found.key, found.index, found.when) == (5, "obs", (1,), "at env step 6, sub-step 0")
    assert skipping.take_observation() is None
    assert not skipping.observation_ok(found) and skipping.skipped == 1

    deferred = NonFiniteGuard("stop", deferred=True)  # an actor's collector: the learner decides
    deferred.check_observation(batch, env_step=6, substep=0)
    learner = NonFiniteGuard("stop", source=SOURCE)
    learner.epoch = 4
    with pytest.raises(NonFiniteValueError) as raised:
        learner.observation_ok(deferred.take_observation().shifted(10))
    assert str(raised.value).startswith(
        f"Non-finite value in epoch 4: training env 11 ({SOURCE}) returned the observation 'obs'[1] = nan "
        "(after all wrappers) at env step 6, sub-step 0. Training stopped"
    )


def test_skip_skips_the_updates_on_non_finite_observations_and_keeps_training() -> None:
    torch.manual_seed(0)
    model = cartpole_model()
    collector = RolloutCollector(SequentialVectorEnv([nan_cartpole] * 2), BUDGET["n_rollout_steps"], seeds=[0, 1])
    trainer = A2C(A2CAlgorithmConfig(**BUDGET), collector, None, model, None)
    trainer.guard = NonFiniteGuard("skip", source=SOURCE)
    before = [parameter.detach().clone() for parameter in model.parameters()]
    try:
        result = trainer.train()
    finally:
        collector.env.close()

    assert result.epochs == 1
    assert trainer.guard.skipped == 1
    assert all(torch.equal(old, new) for old, new in zip(before, model.parameters(), strict=True))


@pytest.mark.parametrize("policy", ["stop", "skip"])
def test_impala_actors_hand_non_finite_observations_to_the_learner_with_its_epoch_and_env(policy: str) -> None:
    torch.manual_seed(0)
    model = cartpole_model()
    config = ImpalaAlgorithmConfig(**{**BUDGET, "n_epochs": 3}, num_actors=2, actors_batch_size=2)
    actors = SequentialDistributedActors(nan_cartpole, model.policy, BUDGET["n_rollout_steps"], 2, 2, seeds=[0, 1])
    trainer = IMPALA(config, actors, None, model, None)
    trainer.guard = NonFiniteGuard(policy, source=SOURCE)
    trainer.epochs_done = 2  # a resumed run: its third epoch is epoch 2
    try:
        if policy == "stop":
            with pytest.raises(
                NonFiniteValueError, match=rf"epoch 2: training env 0 \({SOURCE}\) returned the observation"
            ):
                trainer.train()
        else:
            trainer.train()
            assert trainer.guard.skipped == 1
    finally:
        trainer.close()
