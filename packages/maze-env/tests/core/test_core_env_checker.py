"""The project's env checker: accepts good envs, names the check, step and actor of bad ones."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np
import pytest
from maze.env import ActorID, GymMazeEnv, ObservationWrapper, Wrapper
from maze.env.testing.env_checker import check_env
from maze.env.testing.fake_envs import build_dummy_maze_env, build_multi_agent_env, build_multi_step_env


class PlainTupleActor(Wrapper):
    def actor_id(self) -> Any:
        return tuple(self.env.actor_id())


class AgentOutOfRange(Wrapper):
    def actor_id(self) -> ActorID:
        return ActorID(self.env.actor_id().step_key, 5)


class UnknownStepKey(Wrapper):
    def actor_id(self) -> ActorID:
        return ActorID("nowhere", 0)


class ItemsOutOfSpace(ObservationWrapper):
    """Breaks the observation of sub-step 1 only (its ``step`` entry becomes negative)."""

    def observation(self, observation: dict) -> dict:
        if "step" in observation:
            return {**observation, "step": np.array([-1.0], dtype=np.float32)}
        return observation


class FrozenObservationSpace(Wrapper):
    """Always claims the observation space of sub-step 0."""

    @property
    def observation_space(self) -> Any:
        return self.env.observation_spaces_dict[0]


class IntFlags(Wrapper):
    def step(self, action: Any) -> tuple:
        obs, reward, terminated, truncated, info = self.env.step(action)
        return obs, reward, int(terminated), truncated, info


class FourTuple(Wrapper):
    def step(self, action: Any) -> tuple:
        obs, reward, terminated, truncated, info = self.env.step(action)
        return obs, reward, terminated or truncated, info


class ReusedBuffer(ObservationWrapper):
    """Writes every observation into the same array."""

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        self.buffer = np.zeros(4, dtype=np.float32)

    def observation(self, observation: dict) -> dict:
        self.buffer[:] = observation["items"]
        return {**observation, "items": self.buffer}


class SameDict(ObservationWrapper):
    """Refills one dict object with every observation."""

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        self.shared: dict = {}

    def observation(self, observation: dict) -> dict:
        self.shared.clear()
        self.shared.update(observation)
        return self.shared


class UnseededNoise(ObservationWrapper):
    """Adds noise that reset(seed=...) does not control."""

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        self.rng = np.random.default_rng()

    def observation(self, observation: dict) -> dict:
        return {**observation, "items": observation["items"] + self.rng.normal(size=4).astype(np.float32)}


class DroppedKey(Wrapper):
    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> tuple:
        obs, info = self.env.reset(seed=seed, options=options)
        return {}, info


@pytest.mark.parametrize(
    "make_env",
    [
        build_dummy_maze_env,
        build_multi_step_env,
        lambda: build_multi_agent_env(2),
        lambda: GymMazeEnv("CartPole-v1"),
        lambda: Wrapper(Wrapper(build_multi_step_env())),
    ],
    ids=["flat", "multi_step", "multi_agent", "cartpole", "wrapped_multi_step"],
)
def test_good_envs_pass(make_env: Any) -> None:
    check_env(make_env(), n_steps=30)


def test_a_passing_env_gets_one_line_saying_what_was_checked(capsys: pytest.CaptureFixture) -> None:
    check_env(GymMazeEnv("CartPole-v1"), n_steps=30)
    check_env(build_multi_step_env(), n_steps=10)
    flat, structured = capsys.readouterr().out.splitlines()
    assert flat.startswith("check_env: GymMazeEnv passed (gymnasium's env checker; 30 random steps, ")
    assert "replayed with the same seed: identical" in flat
    assert "gymnasium's space checks of sub-steps [0, 1]; 10 random steps" in structured


def test_a_failing_or_quiet_check_prints_nothing(capsys: pytest.CaptureFixture) -> None:
    check_env(build_dummy_maze_env(), n_steps=5, verbose=False)
    with pytest.raises(AssertionError):
        check_env(IntFlags(build_multi_step_env()), n_steps=5)
    assert capsys.readouterr().out == ""


def test_checker_does_not_warn_about_wrapped_envs(recwarn: pytest.WarningsRecorder) -> None:
    check_env(Wrapper(GymMazeEnv("CartPole-v1")), n_steps=5)
    assert not [w for w in recwarn if "unwrapped version" in str(w.message)]


@pytest.mark.parametrize(
    ("wrapper", "message"),
    [
        (PlainTupleActor, r"\[actor_id\(\) returns an ActorID\] failed at reset \(actor \(0, 0\)\): got tuple"),
        (AgentOutOfRange, r"\[actor agent id within the agent count\] failed at reset .*has 1 agent"),
        (UnknownStepKey, r"\[actor step key is a known sub-step\] failed at reset .*'nowhere' is not one of \[0, 1\]"),
        (
            ItemsOutOfSpace,
            r"\[observation in the actor's observation space\] failed at step 0 "
            r"\(actor ActorID\(step_key=1, agent_id=0\)\): .*outside their space: \['step'\]",
        ),
        (FrozenObservationSpace, r"\[observation_space follows the actor\] failed at step 0"),
        (IntFlags, r"\[terminated is a bool\] failed at step 0 \(actor ActorID\(step_key=0, agent_id=0\)\)"),
        (FourTuple, r"\[step returns \(obs, reward, terminated, truncated, info\)\] failed at step 0"),
        (ReusedBuffer, r"\[observations are fresh objects\] failed at step 0 .*: observation\['items'\] reuse"),
        (SameDict, r"\[observations are fresh objects\] failed at step 0 .*: observation reuse"),
        (UnseededNoise, r"\[seeded reset is deterministic\] failed at reset .*\['observation'\] differ"),
        (DroppedKey, r"\[observation in the actor's observation space\] failed at reset .*missing keys \['items'\]"),
    ],
)
def test_broken_structured_envs_fail_with_a_named_check(wrapper: type, message: str) -> None:
    with pytest.raises(AssertionError, match=message):
        check_env(wrapper(build_multi_step_env()), n_steps=10)


def test_flat_envs_go_through_gymnasium_checker() -> None:
    class ResetWithoutOptions(ObservationWrapper):
        """A ``reset`` without ``options``: only gymnasium's checker looks at the signature."""

        def observation(self, observation: dict) -> dict:
            return observation

        def reset(self, seed: Optional[int] = None) -> Any:  # type: ignore[override]
            return self.env.reset(seed=seed)

    with pytest.raises(
        AssertionError, match=r"\[gymnasium check_env\] failed: The `reset` method does not provide an `options`"
    ):
        check_env(ResetWithoutOptions(build_dummy_maze_env()), n_steps=5)


def test_missing_structure_is_reported() -> None:
    import gymnasium as gym

    with pytest.raises(AssertionError, match=r"\[structure\].*lacks \['observation_spaces_dict'"):
        check_env(gym.make("CartPole-v1"))
