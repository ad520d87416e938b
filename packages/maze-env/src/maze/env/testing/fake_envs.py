"""Small deterministic envs with dict spaces, several sub-steps or several agents.

They exist for tests (of this and of every other maze package): each is cheap, fully
seeded by ``reset(seed=...)`` and exercises one structural feature.

* :func:`build_dummy_maze_env` - flat env, dict observation with two keys, dict action
  with a discrete, a continuous and a multi-binary head.
* :func:`build_multi_step_env` - two sub-steps per env step (``0``: pick an item,
  ``1``: place it), different spaces per sub-step, rewards split among the two actors.
* :func:`build_multi_agent_env` - one sub-step, ``n_agents`` agents acting in turn.
* :func:`build_dynamic_agents_env` - dynamic agents: a spawner creates workers that act
  a random number of times and are then done (``agent_counts_dict`` ``{"spawn": 1, "work": -1}``).
"""

from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np
from gymnasium import spaces
from maze.env.core.actor import ActorID, StepKeyType
from maze.env.core.conversion import ActionConversionInterface, ObservationConversionInterface
from maze.env.core.core_env import CoreEnv
from maze.env.core.maze_env import MazeEnv

__all__ = [
    "FakeCoreEnv",
    "FunctionObservationConversion",
    "IdentityActionConversion",
    "build_dummy_maze_env",
    "build_multi_step_env",
    "build_multi_agent_env",
    "DynamicAgentsCoreEnv",
    "build_dynamic_agents_env",
]


class IdentityActionConversion(ActionConversionInterface):
    """MazeActions are the action dicts themselves."""

    def __init__(self, space: spaces.Dict) -> None:
        self._space = space

    def space_to_maze(self, action: dict[str, Any], maze_state: Any) -> dict[str, Any]:
        return action

    def maze_to_space(self, maze_action: Any) -> dict[str, Any]:
        return maze_action

    def space(self) -> spaces.Dict:
        return self._space


class FunctionObservationConversion(ObservationConversionInterface):
    """Builds the observation of one sub-step from the MazeState with ``make_observation``."""

    def __init__(self, space: spaces.Dict, make_observation: Callable[[dict], dict]) -> None:
        self._space = space
        self._make_observation = make_observation

    def maze_to_space(self, maze_state: dict) -> dict[str, Any]:
        return self._make_observation(maze_state)

    def space(self) -> spaces.Dict:
        return self._space


class FakeCoreEnv(CoreEnv):
    """A random-walk simulation shared by all fake envs.

    The MazeState is a dict with a float vector ``position`` (4 entries), the env step
    counter ``time`` and the sub-step/agent counters. Every action nudges the position;
    the reward is minus the distance of the position from the origin. An episode
    terminates when the position leaves the unit box and is truncated after
    ``max_steps`` env steps. With ``end_between_sub_steps=False`` both are checked only
    when an env step completes (every actor acted), like envs whose episodes end only
    after a full round of sub-steps (what batched training of structured envs needs).

    Args:
        step_keys: Sub-step keys in acting order (one entry for flat envs).
        n_agents: Agents acting in turn within each sub-step.
        max_steps: Env steps after which the episode is truncated.
        end_between_sub_steps: Episodes may end after any sub-step (False: only after the last).
    """

    def __init__(
        self,
        step_keys: tuple[StepKeyType, ...] = (0,),
        n_agents: int = 1,
        max_steps: int = 20,
        end_between_sub_steps: bool = True,
    ) -> None:
        super().__init__()
        self.end_between_sub_steps = end_between_sub_steps
        self.step_keys = step_keys
        self.n_agents = n_agents
        self.max_steps = max_steps
        self._rng = np.random.default_rng()
        self._position = np.zeros(4, dtype=np.float32)
        self._sub_step = 0
        self._agent = 0
        self._time = 0
        self._last_reward = 0.0

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> tuple[dict, dict]:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self._position = self._rng.uniform(-0.5, 0.5, size=4).astype(np.float32)
        self._sub_step, self._agent, self._time = 0, 0, 0
        return self.get_maze_state(), {}

    def step(self, maze_action: dict[str, Any]) -> tuple[dict, float, bool, bool, dict]:
        self._position += 0.05 * _action_push(maze_action) + self._rng.normal(0.0, 0.05, size=4).astype(np.float32)
        self._agent += 1
        reward = 0.0
        if self._agent == self.n_agents:
            self._agent = 0
            self._sub_step += 1
            if self._sub_step == len(self.step_keys):
                self._sub_step = 0
                self._time += 1
                self.context.increment_env_step()
                reward = -float(np.linalg.norm(self._position))
        self._last_reward = reward
        may_end = self.end_between_sub_steps or (self._sub_step == 0 and self._agent == 0)
        terminated = may_end and bool(np.any(np.abs(self._position) > 1.0))
        truncated = may_end and self._time >= self.max_steps and not terminated
        return self.get_maze_state(), reward, terminated, truncated, {}

    def get_maze_state(self) -> dict:
        return {"position": self._position.copy(), "time": self._time, "sub_step": self._sub_step, "agent": self._agent}

    def actor_id(self) -> ActorID:
        return ActorID(self.step_keys[self._sub_step], self._agent)

    @property
    def agent_counts_dict(self) -> dict[StepKeyType, int]:
        return {key: self.n_agents for key in self.step_keys}

    def get_actor_rewards(self) -> Optional[np.ndarray]:
        actors = len(self.step_keys) * self.n_agents
        return np.full(actors, self._last_reward / actors) if actors > 1 else None


def _action_push(maze_action: dict[str, Any]) -> np.ndarray:
    """Turns any of the fake action heads into a 4-vector push."""
    push = np.zeros(4, dtype=np.float32)
    for value in maze_action.values():
        flat = np.asarray(value, dtype=np.float32).ravel()
        push[: min(4, flat.size)] += flat[:4] - (1.0 if flat.size == 1 else 0.0)
    return push


_POSITION_SPACE = spaces.Box(-np.inf, np.inf, shape=(4,), dtype=np.float32)


def build_dummy_maze_env(max_steps: int = 20) -> MazeEnv[FakeCoreEnv]:
    """A flat env with dict observation ``{observation, action_mask}`` and a three-head action."""
    observation_space = spaces.Dict(
        {"observation": _POSITION_SPACE, "action_mask": spaces.Box(0.0, 1.0, shape=(3,), dtype=np.float32)}
    )
    action_space = spaces.Dict(
        {
            "discrete": spaces.Discrete(3),
            "continuous": spaces.Box(-1.0, 1.0, shape=(2,), dtype=np.float32),
            "binary": spaces.MultiBinary(3),
        }
    )

    def observe(state: dict) -> dict:
        mask = (state["position"][:3] < 0.5).astype(np.float32)
        return {"observation": state["position"], "action_mask": mask}

    return MazeEnv(
        FakeCoreEnv(max_steps=max_steps),
        action_conversion_dict={0: IdentityActionConversion(action_space)},
        observation_conversion_dict={0: FunctionObservationConversion(observation_space, observe)},
    )


def build_multi_step_env(max_steps: int = 20, end_between_sub_steps: bool = True) -> MazeEnv[FakeCoreEnv]:
    """Two sub-steps per env step with different spaces: ``0`` picks, ``1`` places (see :class:`FakeCoreEnv`)."""
    pick_observation = spaces.Dict({"items": _POSITION_SPACE})
    place_observation = spaces.Dict(
        {"items": _POSITION_SPACE, "step": spaces.Box(0.0, np.inf, shape=(1,), dtype=np.float32)}
    )

    def observe_pick(state: dict) -> dict:
        return {"items": state["position"]}

    def observe_place(state: dict) -> dict:
        return {"items": state["position"], "step": np.array([state["time"]], dtype=np.float32)}

    return MazeEnv(
        FakeCoreEnv(step_keys=(0, 1), max_steps=max_steps, end_between_sub_steps=end_between_sub_steps),
        action_conversion_dict={
            0: IdentityActionConversion(spaces.Dict({"item": spaces.Discrete(4)})),
            1: IdentityActionConversion(spaces.Dict({"position": spaces.Box(-1.0, 1.0, shape=(2,), dtype=np.float32)})),
        },
        observation_conversion_dict={
            0: FunctionObservationConversion(pick_observation, observe_pick),
            1: FunctionObservationConversion(place_observation, observe_place),
        },
    )


def build_multi_agent_env(
    n_agents: int = 2, max_steps: int = 20, end_between_sub_steps: bool = True
) -> MazeEnv[FakeCoreEnv]:
    """One sub-step whose ``n_agents`` agents act in turn: actors ``(0, 0), (0, 1), ...`` (see :class:`FakeCoreEnv`)."""
    observation_space = spaces.Dict(
        {"observation": _POSITION_SPACE, "agent": spaces.Box(0.0, float(n_agents), shape=(1,), dtype=np.float32)}
    )

    def observe(state: dict) -> dict:
        return {"observation": state["position"], "agent": np.array([state["agent"]], dtype=np.float32)}

    return MazeEnv(
        FakeCoreEnv(n_agents=n_agents, max_steps=max_steps, end_between_sub_steps=end_between_sub_steps),
        action_conversion_dict={0: IdentityActionConversion(spaces.Dict({"action": spaces.Discrete(3)}))},
        observation_conversion_dict={0: FunctionObservationConversion(observation_space, observe)},
    )


class DynamicAgentsCoreEnv(CoreEnv):
    """A spawner and short-lived workers: actors created and finished during an episode.

    Each of ``n_rounds`` rounds, the spawner (actor ``("spawn", 0)``) sees a cue bit and
    earns 1 for choosing it; then it creates a new worker (``("work", k)`` for the ``k``-th
    worker of the episode) that acts 1 or 2 times (drawn by the env) and earns 1 each time
    it picks the target bit it sees. After its last action a worker is done
    (``is_actor_done()``); after the last round the episode terminates. Every call is one
    env step. The order of the actors varies, so batched envs wait for different sub-steps.
    Random play earns 0.5 per decision, the best play 1.

    Args:
        n_rounds: Spawner decisions per episode.
    """

    def __init__(self, n_rounds: int = 4) -> None:
        super().__init__()
        self.n_rounds = n_rounds
        self._rng = np.random.default_rng()
        self._round, self._workers, self._life, self._bit = 0, 0, 0, 0
        self._done = False

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> tuple[dict, dict]:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self._round, self._workers, self._life, self._done = 0, 0, 0, False
        self._bit = int(self._rng.integers(2))
        return self.get_maze_state(), {}

    def step(self, maze_action: dict[str, Any]) -> tuple[dict, float, bool, bool, dict]:
        reward = float(int(next(iter(maze_action.values()))) == self._bit)
        self._done, terminated = False, False
        if self._life == 0:  # the spawner acted: a new worker starts
            self._workers += 1
            self._life = int(self._rng.integers(1, 3))
        else:
            self._life -= 1
            if self._life == 0:
                self._done = True
                self._round += 1
                terminated = self._round == self.n_rounds
        self._bit = int(self._rng.integers(2))
        self.context.increment_env_step()
        return self.get_maze_state(), reward, terminated, False, {}

    def get_maze_state(self) -> dict:
        return {"bit": self._bit, "round": self._round, "life": self._life}

    def actor_id(self) -> ActorID:
        return ActorID("work", self._workers - 1) if self._life else ActorID("spawn", 0)

    def is_actor_done(self) -> bool:
        return self._done

    @property
    def agent_counts_dict(self) -> dict[StepKeyType, int]:
        return {"spawn": 1, "work": -1}


def build_dynamic_agents_env(n_rounds: int = 4) -> MazeEnv[DynamicAgentsCoreEnv]:
    """Dynamic agents with two policies, ``spawn`` and ``work`` (see :class:`DynamicAgentsCoreEnv`)."""
    bit_space = spaces.Box(0.0, 1.0, shape=(2,), dtype=np.float32)
    counter_space = spaces.Box(0.0, float(n_rounds), shape=(1,), dtype=np.float32)

    def one_hot(bit: int) -> np.ndarray:
        return np.eye(2, dtype=np.float32)[bit]

    return MazeEnv(
        DynamicAgentsCoreEnv(n_rounds),
        action_conversion_dict={
            "spawn": IdentityActionConversion(spaces.Dict({"choice": spaces.Discrete(2)})),
            "work": IdentityActionConversion(spaces.Dict({"move": spaces.Discrete(2)})),
        },
        observation_conversion_dict={
            "spawn": FunctionObservationConversion(
                spaces.Dict({"cue": bit_space, "round": counter_space}),
                lambda state: {"cue": one_hot(state["bit"]), "round": np.array([state["round"]], np.float32)},
            ),
            "work": FunctionObservationConversion(
                spaces.Dict({"target": bit_space, "life": counter_space}),
                lambda state: {"target": one_hot(state["bit"]), "life": np.array([state["life"]], np.float32)},
            ),
        },
    )
