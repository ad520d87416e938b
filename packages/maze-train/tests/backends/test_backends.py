"""Execution backends: built from the runner keys, placing envs, and the old runner names building them."""

from __future__ import annotations

import pytest
from maze.env.errors import ConfigurationError
from maze.env.vector.sequential import SequentialVectorEnv
from maze.env.vector.subproc import SubprocVectorEnv
from maze.train.backends import build_backend, processes
from maze.train.backends.in_process import InProcessBackend
from maze.train.backends.processes import SubprocessBackend
from maze.train.runners.actor_critic_runner import ActorCriticRunner
from maze.train.runners.env_factory import EnvFactory
from maze.train.runners.legacy_names import legacy_runner
from maze.train.trainers.sac.runner import SACRunner

CARTPOLE = EnvFactory({"_target_": "maze.env.gym_adapter.gym_maze_env.make_gym_maze_env", "name": "CartPole-v1"})
PPO = "maze.train.trainers.ppo.PPO"


def test_the_runner_options_name_their_backends() -> None:
    assert type(build_backend("dev", {}, "PPORunner")) is InProcessBackend
    local = build_backend("local", {"start_method": "spawn"}, "PPORunner")
    assert type(local) is SubprocessBackend and local.worker_start_method() == "spawn"
    assert build_backend(local, {}, "PPORunner") is local


def test_a_key_of_another_backend_names_the_key_the_runner_and_the_backend() -> None:
    with pytest.raises(ConfigurationError) as raised:
        build_backend("local", {"ray_address": "auto"}, "PPORunner")
    message = str(raised.value)
    assert message.startswith("runner.ray_address is a key of neither the runner (PPORunner) nor its backend")
    assert "SubprocessBackend takes start_method" in message


def test_backend_keys_are_validated_before_ray_is_needed() -> None:
    with pytest.raises(ConfigurationError, match=r"runner.num_cpus_per_actor=0 is out of range; it must be > 0"):
        build_backend("ray", {"num_cpus_per_actor": 0}, "ImpalaRunner")


def test_an_unknown_backend_lists_the_known_ones() -> None:
    with pytest.raises(ConfigurationError, match="runner.backend='maze.train.optim.Adam' is no execution backend"):
        build_backend("maze.train.optim.Adam", {}, "PPORunner")


@pytest.mark.parametrize(
    ("backend", "automatic", "step_seconds", "placed"),
    [
        (InProcessBackend(), False, None, SequentialVectorEnv),
        (SubprocessBackend(), False, None, SubprocVectorEnv),
        (SubprocessBackend(), True, 1e-5, SequentialVectorEnv),
        (SubprocessBackend(), True, 1e-2, SubprocVectorEnv),
    ],
    ids=["dev", "local-explicit", "local-cheap-env", "local-costly-env"],
)
def test_envs_are_placed_by_the_backend_never_counted_by_it(
    backend, automatic: bool, step_seconds, placed: type, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(processes, "measure_step_seconds", lambda env: step_seconds)
    result = backend.vector_env(CARTPOLE, 2, automatic, "training")
    try:
        assert isinstance(result.env, placed) and result.env.n_envs == 2
        assert result.placement.startswith("2 envs in ")
        assert ("placed automatically" in result.reason) == automatic
    finally:
        result.env.close()


def test_an_old_runner_name_builds_the_algorithm_runner_on_its_backend_with_a_warning() -> None:
    with pytest.warns(FutureWarning, match="runner ACLocalRunner is the name of an earlier release"):
        runner = legacy_runner("ACLocalRunner")(PPO, concurrency=2, start_method="spawn")
    assert type(runner) is ActorCriticRunner and type(runner.backend) is SubprocessBackend
    assert (runner.concurrency, runner.backend.start_method) == (2, "spawn")
    with pytest.warns(FutureWarning):
        sac_local = legacy_runner("SACDevRunner")(worker_processes=True)
    assert type(sac_local) is SACRunner and type(sac_local.backend) is SubprocessBackend
    with pytest.raises(AttributeError):
        legacy_runner("NoSuchRunner")
