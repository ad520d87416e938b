"""IMPALA: the learner on structured fake envs, and the actors (version tags, broadcasts, failures, no orphans)."""

from __future__ import annotations

import math
import os
import signal
import sys
import time
from types import ModuleType
from typing import Any

import numpy as np
import pytest
import torch
from maze.env.errors import ConfigurationError
from maze.env.testing.fake_envs import build_dummy_maze_env
from maze.env.wrappers.log_stats_wrapper import LogStatsWrapper
from maze.perception.models.base_model_composer import build_model_composer
from maze.perception.models.spaces_config import SpacesConfig
from maze.train.core.actor_critic.batch import rollout_samples, spaces_record
from maze.train.distributed import (
    ActorFailedError,
    SequentialDistributedActors,
    SubprocDistributedActors,
    concatenate_outputs,
)
from maze.train.trainers.impala import IMPALA, ImpalaAlgorithmConfig
from train_test_support import FAKE_ENVS, assert_no_process_left, small_model_config

BUDGET = {"n_epochs": 2, "epoch_length": 3, "n_rollout_steps": 6, "patience": 0, "lr": 1e-3}
MAX_STEPS = 4


def env_factory(env_name: str = "dummy"):
    def factory() -> Any:
        return LogStatsWrapper.wrap(FAKE_ENVS[env_name](max_steps=MAX_STEPS))

    return factory


def small_model(env_name: str = "dummy", kind: str = "flatten_concat") -> Any:
    composer = build_model_composer(small_model_config(kind, env_name), SpacesConfig.from_env(env_factory(env_name)()))
    return composer.torch_actor_critic()


@pytest.mark.parametrize("model_kind", ["flatten_concat", "template"])
def test_learner_trains_on_every_fake_env_on_policy_with_sequential_actors(
    recorder, fake_env_name: str, model_kind: str
) -> None:
    torch.manual_seed(0)
    model = small_model(fake_env_name, model_kind)
    config = ImpalaAlgorithmConfig(**BUDGET, num_actors=3, actors_batch_size=2)
    actors = SequentialDistributedActors(env_factory(fake_env_name), model.policy, 6, 3, 2, seeds=[0, 1, 2])
    trainer = IMPALA(config, actors, None, model, None)
    before = [parameter.detach().clone() for parameter in model.parameters()]
    try:
        result = trainer.train()
    finally:
        trainer.close()

    assert (result.epochs, result.env_steps) == (2, 2 * 3 * 2 * 6)
    assert not all(torch.equal(old, new) for old, new in zip(before, model.parameters(), strict=True))
    n_slots = 1 if fake_env_name == "dummy" else 2
    for slot in range(n_slots):
        losses = recorder.values("train", "ImpalaEvents", "critic_value_loss", groups=(slot,))
        assert len(losses) == 2 and all(math.isfinite(value) for value in losses)
    # In-process actors act with the learner's weights: the learner recomputes exactly their log-probs
    # (rows of every slot and env line up after joining the outputs), so V-trace is on-policy.
    assert recorder.values("train", "ImpalaEvents", "vtrace_rho_mean") == [pytest.approx(1.0, abs=1e-5)] * 2
    assert recorder.values("train", "ImpalaEvents", "policy_lag") == [0, 0]
    assert actors.policy_version == 6
    assert len(recorder.values("train", "BaseEnvEvents", "reward", "mean")) == 2


def test_joined_outputs_offset_the_env_index_of_truncated_episodes() -> None:
    model = small_model()
    actors = SequentialDistributedActors(env_factory(), model.policy, 5, 2, 2, seeds=[0, 1, 2, 3], envs_per_actor=2)
    assert [actors.actor_seeds(actor) for actor in range(2)] == [[0, 1], [2, 3]]
    actors.start()
    try:
        outputs = actors.collect_outputs()
    finally:
        actors.stop()
    assert [output.rollout.n_envs for output in outputs] == [2, 2]
    rollout, log_probs = concatenate_outputs(outputs)
    assert rollout.n_envs == 4 and log_probs[0].shape == (5, 4)
    np.testing.assert_array_equal(rollout.rewards[:, 2:], outputs[1].rollout.rewards)
    np.testing.assert_array_equal(log_probs[0][:, :2], outputs[0].behaviour_log_probs[0])
    second = outputs[1].rollout.final_observations
    assert second and [(call, env + 2) for call, env, _ in second] == [
        (call, env) for call, env, _ in rollout.final_observations[len(outputs[0].rollout.final_observations) :]
    ]


def recomputed_log_probs(policy: Any, output: Any) -> np.ndarray:
    record = spaces_record(*rollout_samples(output.rollout, policy.device))
    with torch.no_grad():
        return policy.compute_policy_output(record).log_probs(record.actions)[0].numpy().reshape(-1)


def subproc_actors(model: Any, **kwargs: Any) -> SubprocDistributedActors:
    return SubprocDistributedActors(env_factory(), model.policy, 4, 2, 2, seeds=[0, 1], start_method="fork", **kwargs)


def test_outputs_carry_the_policy_version_and_workers_act_with_broadcast_weights() -> None:
    torch.manual_seed(0)
    model = small_model()
    old_policy = small_model().policy
    old_policy.load_state_dict(model.policy.state_dict())
    actors = subproc_actors(model, queue_out_of_sync_factor=1)
    actors.start()
    try:
        first = actors.collect_outputs()
        assert {output.policy_version for output in first} == {1} and {o.actor for o in first} <= {0, 1}
        for output in first:
            np.testing.assert_allclose(
                recomputed_log_probs(model.policy, output), output.behaviour_log_probs[0].ravel(), atol=1e-6
            )
        with torch.no_grad():
            for parameter in model.policy.parameters():
                parameter.add_(torch.randn_like(parameter))
        actors.broadcast_updated_policy(model.policy)
        assert actors.policy_version == 2
        deadline = time.monotonic() + 60
        fresh = []
        while not fresh and time.monotonic() < deadline:  # the queue may still hold version-1 outputs
            fresh = [output for output in actors.collect_outputs() if output.policy_version == 2]
        assert fresh, "no output with the broadcast version"
        for output in fresh:
            new = recomputed_log_probs(model.policy, output)
            np.testing.assert_allclose(new, output.behaviour_log_probs[0].ravel(), atol=1e-5)
            assert not np.allclose(recomputed_log_probs(old_policy, output), new)
        assert actors.queue_size() <= 2  # bounded: queue_out_of_sync_factor * actors_batch_size
    finally:
        actors.stop()


def test_killing_an_actor_stops_collection_with_a_clear_error_and_leaves_no_process() -> None:
    actors = subproc_actors(small_model())
    actors.start()
    pids = [process.pid for process in actors._processes]
    try:
        actors.collect_outputs()
        os.kill(pids[1], signal.SIGKILL)
        with pytest.raises(ActorFailedError, match=r"Actor 1 \(process \d+\) died with signal SIGKILL"):
            for _ in range(100):
                actors.collect_outputs()
    finally:
        actors.stop()
    assert_no_process_left(pids)


def test_an_interrupted_collection_stops_without_reading_the_torn_queue_again(monkeypatch) -> None:
    """Ctrl-C inside ``Queue.get`` can leave half a message in the pipe: reading on would block or raise."""
    actors = subproc_actors(small_model())
    actors.start()
    pids = [process.pid for process in actors._processes]
    outputs = actors._outputs

    def interrupted_get(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt

    def no_reading_after_a_torn_get() -> Any:
        raise AssertionError("the queue was read after an interrupted read")

    try:
        monkeypatch.setattr(outputs, "get", interrupted_get)
        monkeypatch.setattr(outputs, "get_nowait", no_reading_after_a_torn_get)
        with pytest.raises(KeyboardInterrupt):
            actors.collect_outputs()
    finally:
        actors.stop()
    assert_no_process_left(pids)


class _FailingEnvFactory:
    def __call__(self) -> Any:
        env = build_dummy_maze_env(max_steps=MAX_STEPS)

        def step(action: Any) -> Any:
            raise RuntimeError("the env broke in step")

        env.step = step
        return LogStatsWrapper.wrap(env)


def test_an_actor_exception_surfaces_with_its_traceback() -> None:
    model = small_model()
    actors = SubprocDistributedActors(_FailingEnvFactory(), model.policy, 4, 1, 1, start_method="fork")
    actors.start()
    pids = [process.pid for process in actors._processes]
    try:
        with pytest.raises(ActorFailedError) as failure:
            actors.collect_outputs()
    finally:
        actors.stop()
    message = str(failure.value)
    assert message.startswith("Actor 0 failed; training stopped. Its traceback:")
    assert "RuntimeError: the env broke in step" in message and "Traceback (most recent call last)" in message
    assert_no_process_left(pids)


def test_unknown_start_method_is_one_clear_error() -> None:
    with pytest.raises(ConfigurationError, match="runner.start_method='threads' is not supported"):
        SubprocDistributedActors(env_factory(), None, 4, 1, 1, start_method="threads")


def test_actors_started_from_unguarded_top_level_script_code_are_one_clear_error(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = tmp_path / "script.py"
    script.write_text("SubprocDistributedActors(env_factory(), None, 4, 1, 1, start_method='spawn')\n")
    main = ModuleType("__main__")
    main.__file__ = str(script)
    main.__dict__.update(SubprocDistributedActors=SubprocDistributedActors, env_factory=env_factory)
    monkeypatch.setitem(sys.modules, "__main__", main)
    with pytest.raises(ConfigurationError, match=r"SubprocDistributedActors, start method spawn\) at module level"):
        exec(compile(script.read_text(), str(script), "exec"), main.__dict__)  # noqa: S102 - the test's own script
