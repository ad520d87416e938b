"""The courier simulation (a CoreEnv), its spaces (a MazeEnv) and the factory the configs name.

A courier works on a road with ``n_positions`` cells and three depots. Each episode brings
``n_requests`` requests, one after the other; each names the depot that holds a parcel.
Two policies share the work (hierarchical RL):

* the **dispatcher** (actor ``("dispatch", 0)``, one for the whole episode) sees the request
  and the courier's position and picks a sub-task: the depot to drive to (``depot``);
* a **driver** (actor ``("drive", k)``, a new one per sub-task: dynamic agents) sees the
  offset to that depot and moves left, waits or moves right (``move``) until it arrives or
  runs out of ``max_drive_steps``; then it is done (``is_actor_done()``) and the
  dispatcher handles the next request.

Reward: -0.1 per driving step, +1 when the driver arrives at the requested depot. The
episode terminates after the last request. The number of driving steps varies, so the
order of the actors varies from episode to episode.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

import numpy as np
from gymnasium import spaces
from maze.env.core.actor import ActorID, StepKeyType
from maze.env.core.conversion import ActionConversionInterface, ObservationConversionInterface
from maze.env.core.core_env import CoreEnv
from maze.env.core.maze_env import MazeEnv
from maze.env.errors import ConfigurationError

__all__ = ["CourierCoreEnv", "CourierEnv", "CourierState", "make_courier_env"]

DISPATCH, DRIVE = "dispatch", "drive"
DEPOTS = (0, 4, 8)
"""The cells of the three depots."""


@dataclass(frozen=True)
class CourierState:
    """The MazeState: where the courier is, what is requested and the current sub-task."""

    position: int
    request: int
    goal: Optional[int]
    drive_steps: int
    n_positions: int


class CourierCoreEnv(CoreEnv):
    """The simulation.

    Args:
        n_requests: Requests (dispatcher decisions) per episode.
        max_drive_steps: Steps a driver has to reach its depot.
        n_positions: Cells of the road (the depots sit at cells 0, 4 and 8).
    """

    def __init__(self, n_requests: int = 3, max_drive_steps: int = 8, n_positions: int = 9) -> None:
        super().__init__()
        if n_positions <= max(DEPOTS):
            raise ConfigurationError(
                f"CourierCoreEnv: n_positions={n_positions} leaves out depot {max(DEPOTS)}; use > {max(DEPOTS)}"
            )
        self.n_requests = n_requests
        self.max_drive_steps = max_drive_steps
        self.n_positions = n_positions
        self.rng = np.random.default_rng()
        self._position = self._request = self._served = self._drivers = self._drive_steps = 0
        self._goal: Optional[int] = None
        self._driver_done = False

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> tuple[CourierState, dict]:
        """A new shift: random position and first request (``seed`` re-seeds the simulation)."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        self._position = int(self.rng.integers(self.n_positions))
        self._request = int(self.rng.integers(len(DEPOTS)))
        self._served = self._drivers = self._drive_steps = 0
        self._goal, self._driver_done = None, False
        return self.get_maze_state(), {}

    def step(self, maze_action: int) -> tuple[CourierState, float, bool, bool, dict]:
        """Starts a sub-task (dispatcher: ``maze_action`` is the depot) or drives (``-1``, ``0``, ``+1``)."""
        self._driver_done, reward, terminated = False, 0.0, False
        if self._goal is None:
            self._goal, self._drive_steps = int(maze_action), 0
            self._drivers += 1
        else:
            self._position = int(np.clip(self._position + maze_action, 0, self.n_positions - 1))
            self._drive_steps += 1
            reward = -0.1
            arrived = self._position == DEPOTS[self._goal]
            if arrived or self._drive_steps == self.max_drive_steps:
                if arrived and self._goal == self._request:
                    reward += 1.0
                self._driver_done, self._goal = True, None
                self._served += 1
                self._request = int(self.rng.integers(len(DEPOTS)))
                terminated = self._served == self.n_requests
        self.context.increment_env_step()
        return self.get_maze_state(), reward, terminated, False, {}

    def get_maze_state(self) -> CourierState:
        """The current state."""
        return CourierState(self._position, self._request, self._goal, self._drive_steps, self.n_positions)

    def actor_id(self) -> ActorID:
        """The dispatcher between sub-tasks, else the driver of the current sub-task."""
        return ActorID(DISPATCH, 0) if self._goal is None else ActorID(DRIVE, self._drivers - 1)

    def is_actor_done(self) -> bool:
        """True after a driver's last step."""
        return self._driver_done

    @property
    def agent_counts_dict(self) -> dict[StepKeyType, int]:
        """One dispatcher; drivers come and go (``-1``: dynamic)."""
        return {DISPATCH: 1, DRIVE: -1}

    def close(self) -> None:
        """Nothing to release."""


def _box(low: float, high: float, size: int) -> spaces.Box:
    return spaces.Box(low=low, high=high, shape=(size,), dtype=np.float32)


class DispatchObservation(ObservationConversionInterface):
    """``request`` (one-hot depot) and ``position`` (cell / last cell)."""

    def maze_to_space(self, maze_state: CourierState) -> dict[str, np.ndarray]:
        """The dispatcher's observation."""
        return {
            "request": np.eye(len(DEPOTS), dtype=np.float32)[maze_state.request],
            "position": np.array([maze_state.position / (maze_state.n_positions - 1)], dtype=np.float32),
        }

    def space(self) -> spaces.Dict:
        """``request (3,)``, ``position (1,)``."""
        return spaces.Dict({"request": _box(0.0, 1.0, len(DEPOTS)), "position": _box(0.0, 1.0, 1)})


class DriveObservation(ObservationConversionInterface):
    """``offset`` to the goal depot (cells / last cell, signed) and ``direction`` (one-hot left/here/right)."""

    def maze_to_space(self, maze_state: CourierState) -> dict[str, np.ndarray]:
        """The driver's observation (an ended sub-task shows offset 0)."""
        offset = 0 if maze_state.goal is None else DEPOTS[maze_state.goal] - maze_state.position
        return {
            "offset": np.array([offset / (maze_state.n_positions - 1)], dtype=np.float32),
            "direction": np.eye(3, dtype=np.float32)[int(np.sign(offset)) + 1],
        }

    def space(self) -> spaces.Dict:
        """``offset (1,)``, ``direction (3,)``."""
        return spaces.Dict({"offset": _box(-1.0, 1.0, 1), "direction": _box(0.0, 1.0, 3)})


class DispatchAction(ActionConversionInterface):
    """``{"depot": Discrete(3)}`` -> the depot index."""

    def space_to_maze(self, action: dict[str, Any], maze_state: CourierState) -> int:
        """The MazeAction of ``action``."""
        return int(action["depot"])

    def space(self) -> spaces.Dict:
        """The dispatcher's action space."""
        return spaces.Dict({"depot": spaces.Discrete(len(DEPOTS))})


class DriveAction(ActionConversionInterface):
    """``{"move": Discrete(3)}`` (left, wait, right) -> ``-1``, ``0``, ``+1``."""

    def space_to_maze(self, action: dict[str, Any], maze_state: CourierState) -> int:
        """The MazeAction of ``action``."""
        return int(action["move"]) - 1

    def space(self) -> spaces.Dict:
        """The driver's action space."""
        return spaces.Dict({"move": spaces.Discrete(3)})


class CourierEnv(MazeEnv[CourierCoreEnv]):
    """The MazeEnv: one observation and action conversion per policy."""

    def __init__(self, core_env: CourierCoreEnv) -> None:
        super().__init__(
            core_env=core_env,
            action_conversion_dict={DISPATCH: DispatchAction(), DRIVE: DriveAction()},
            observation_conversion_dict={DISPATCH: DispatchObservation(), DRIVE: DriveObservation()},
        )


def make_courier_env(n_requests: int = 3, max_drive_steps: int = 8, n_positions: int = 9) -> CourierEnv:
    """The factory ``conf/env/courier.yaml`` names (arguments as for :class:`CourierCoreEnv`)."""
    return CourierEnv(CourierCoreEnv(n_requests, max_drive_steps, n_positions))
