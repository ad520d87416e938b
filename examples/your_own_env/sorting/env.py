"""The sorting simulation (a CoreEnv), its spaces (a MazeEnv) and the factory the configs name.

A parcel of one of ``n_bins`` colours arrives on a conveyor; half of them are fragile. Each
env step has two sub-steps:

* sub-step ``0`` sees ``parcel`` (one-hot colour and a fragile flag) and ``bin_mask`` (1 for
  bins that are open, 0 for bins under maintenance) and picks ``bin``;
* sub-step ``1`` sees ``parcel`` and ``chosen_bin`` and picks ``handling`` (0 gentle, 1 fast).

Reward (at the end of the env step): +1 when the bin matches the colour, +0.5 for fast
handling of a robust parcel, -1 for fast handling of a fragile one (it breaks), -1 for a
bin under maintenance. The env never ends an episode; the ``wrappers`` config bounds episodes.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Optional

import numpy as np
from gymnasium import spaces
from maze.env.core.actor import ActorID, StepKeyType
from maze.env.core.conversion import ActionConversionInterface, ObservationConversionInterface
from maze.env.core.core_env import CoreEnv
from maze.env.core.events import Pubsub
from maze.env.core.maze_env import MazeEnv

from sorting.events import SortingEvents, SortingKpiCalculator

__all__ = ["BinChoice", "Handling", "SortingState", "SortingCoreEnv", "SortingEnv", "make_sorting_env"]

CHOOSE_BIN, HANDLE = 0, 1


@dataclass(frozen=True)
class SortingState:
    """The MazeState: the parcel on the conveyor, the open bins and the bin chosen in this env step."""

    colour: int
    fragile: bool
    open_bins: tuple[bool, ...]
    chosen_bin: Optional[int] = None


@dataclass(frozen=True)
class BinChoice:
    """MazeAction of sub-step 0."""

    bin_index: int


@dataclass(frozen=True)
class Handling:
    """MazeAction of sub-step 1."""

    fast: bool


class SortingCoreEnv(CoreEnv):
    """The simulation: a new parcel and new maintenance plan every env step.

    Args:
        n_bins: Bins (and colours).
        maintenance_probability: Chance that a bin is under maintenance in a step (one stays open).
        fragile_probability: Chance that a parcel is fragile.
    """

    def __init__(self, n_bins: int = 3, maintenance_probability: float = 0.3, fragile_probability: float = 0.5) -> None:
        super().__init__()
        self.n_bins = n_bins
        self.maintenance_probability = maintenance_probability
        self.fragile_probability = fragile_probability
        self.events = Pubsub(self.context.event_service).create_event_topic(SortingEvents)
        self.kpi_calculator = SortingKpiCalculator()
        self.rng = np.random.default_rng()
        self.state = self._new_parcel()

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> tuple[SortingState, dict]:
        """A new parcel at sub-step 0 (``seed`` re-seeds the simulation)."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        self.state = self._new_parcel()
        return self.state, {}

    def step(self, maze_action: Any) -> tuple[SortingState, float, bool, bool, dict]:
        """Records the bin (sub-step 0) or handles the parcel and completes the env step (sub-step 1)."""
        if self.state.chosen_bin is None:
            self.state = replace(self.state, chosen_bin=int(maze_action.bin_index))
            return self.state, 0.0, False, False, {}
        state, reward = self.state, 0.0
        if not state.open_bins[state.chosen_bin]:
            reward -= 1.0
        if state.chosen_bin == state.colour:
            self.events.sorted_correctly(bin_index=state.chosen_bin)
            reward += 1.0
        else:
            self.events.sorted_wrongly(bin_index=state.chosen_bin, colour=state.colour)
        if maze_action.fast and state.fragile:
            self.events.parcel_broken()
            reward -= 1.0
        elif maze_action.fast:
            reward += 0.5
        self.context.increment_env_step()
        self.state = self._new_parcel()
        return self.state, reward, False, False, {}

    def get_maze_state(self) -> SortingState:
        """The current state."""
        return self.state

    def actor_id(self) -> ActorID:
        """``(0, 0)`` picks the bin, ``(1, 0)`` the handling."""
        return ActorID(CHOOSE_BIN if self.state.chosen_bin is None else HANDLE, 0)

    @property
    def agent_counts_dict(self) -> dict[StepKeyType, int]:
        """One agent per sub-step."""
        return {CHOOSE_BIN: 1, HANDLE: 1}

    def get_kpi_calculator(self) -> SortingKpiCalculator:
        """Computes ``sort_accuracy``."""
        return self.kpi_calculator

    def close(self) -> None:
        """Nothing to release."""

    def _new_parcel(self) -> SortingState:
        open_bins = self.rng.random(self.n_bins) >= self.maintenance_probability
        open_bins[self.rng.integers(self.n_bins)] = True
        return SortingState(
            colour=int(self.rng.integers(self.n_bins)),
            fragile=bool(self.rng.random() < self.fragile_probability),
            open_bins=tuple(bool(flag) for flag in open_bins),
        )


def _parcel(state: SortingState, n_bins: int) -> np.ndarray:
    """float32 ``(n_bins + 1,)``: one-hot colour, then the fragile flag."""
    parcel = np.zeros(n_bins + 1, dtype=np.float32)
    parcel[state.colour] = 1.0
    parcel[n_bins] = float(state.fragile)
    return parcel


def _box(size: int) -> spaces.Box:
    return spaces.Box(low=0.0, high=1.0, shape=(size,), dtype=np.float32)


class BinObservation(ObservationConversionInterface):
    """Sub-step 0: ``parcel`` and ``bin_mask`` (the mask of action head ``bin``)."""

    def __init__(self, n_bins: int) -> None:
        self.n_bins = n_bins

    def maze_to_space(self, maze_state: SortingState) -> dict[str, np.ndarray]:
        """The observation of ``maze_state``."""
        return {"parcel": _parcel(maze_state, self.n_bins), "bin_mask": np.asarray(maze_state.open_bins, np.float32)}

    def space(self) -> spaces.Dict:
        """``parcel (n_bins + 1,)``, ``bin_mask (n_bins,)``."""
        return spaces.Dict({"parcel": _box(self.n_bins + 1), "bin_mask": _box(self.n_bins)})


class HandlingObservation(ObservationConversionInterface):
    """Sub-step 1: ``parcel`` and the one-hot ``chosen_bin``."""

    def __init__(self, n_bins: int) -> None:
        self.n_bins = n_bins

    def maze_to_space(self, maze_state: SortingState) -> dict[str, np.ndarray]:
        """The observation of ``maze_state``."""
        chosen = np.zeros(self.n_bins, dtype=np.float32)
        chosen[maze_state.chosen_bin] = 1.0
        return {"parcel": _parcel(maze_state, self.n_bins), "chosen_bin": chosen}

    def space(self) -> spaces.Dict:
        """``parcel (n_bins + 1,)``, ``chosen_bin (n_bins,)``."""
        return spaces.Dict({"parcel": _box(self.n_bins + 1), "chosen_bin": _box(self.n_bins)})


class BinAction(ActionConversionInterface):
    """``{"bin": Discrete(n_bins)}`` -> :class:`BinChoice`."""

    def __init__(self, n_bins: int) -> None:
        self.n_bins = n_bins

    def space_to_maze(self, action: dict[str, Any], maze_state: SortingState) -> BinChoice:
        """The MazeAction of ``action``."""
        return BinChoice(int(action["bin"]))

    def space(self) -> spaces.Dict:
        """The action space of sub-step 0."""
        return spaces.Dict({"bin": spaces.Discrete(self.n_bins)})


class HandlingAction(ActionConversionInterface):
    """``{"handling": Discrete(2)}`` -> :class:`Handling`."""

    def space_to_maze(self, action: dict[str, Any], maze_state: SortingState) -> Handling:
        """The MazeAction of ``action``."""
        return Handling(fast=bool(action["handling"]))

    def space(self) -> spaces.Dict:
        """The action space of sub-step 1."""
        return spaces.Dict({"handling": spaces.Discrete(2)})


class SortingEnv(MazeEnv[SortingCoreEnv]):
    """The MazeEnv: one observation and action conversion per sub-step."""

    def __init__(self, core_env: SortingCoreEnv) -> None:
        n_bins = core_env.n_bins
        super().__init__(
            core_env=core_env,
            action_conversion_dict={CHOOSE_BIN: BinAction(n_bins), HANDLE: HandlingAction()},
            observation_conversion_dict={CHOOSE_BIN: BinObservation(n_bins), HANDLE: HandlingObservation(n_bins)},
        )


def make_sorting_env(
    n_bins: int = 3, maintenance_probability: float = 0.3, fragile_probability: float = 0.5
) -> SortingEnv:
    """The factory ``conf/env/sorting.yaml`` names (arguments as for :class:`SortingCoreEnv`)."""
    return SortingEnv(SortingCoreEnv(n_bins, maintenance_probability, fragile_probability))
