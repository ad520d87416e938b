"""ExternalCoreEnv: a CoreEnv whose MazeStates come from the caller instead of a simulation."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Optional

import numpy as np
from maze.deploy.errors import WrapperStackError
from maze.env.core.actor import ActorID, StepKeyType
from maze.env.core.core_env import CoreEnv
from maze.env.core.events import EventRecord
from maze.env.core.rendering import Renderer

__all__ = ["ExternalCoreEnv", "same_maze_action"]

_FLAT_ACTOR = ActorID(0, 0)
_NOTHING = object()
"""Marks that no MazeAction is expected (the env must not be stepped now)."""


class ExternalCoreEnv(CoreEnv):
    """Stands in for the CoreEnv of a MazeEnv whose simulation runs elsewhere (in deployment).

    The caller hands in what the real environment produced with :meth:`supply`;
    ``reset()`` and ``step()`` return it, so the MazeEnv and the wrappers above it turn the
    external MazeState into the observation the policy sees, exactly as in training.
    Before every ``step()`` the deployment announces the MazeAction the step must execute
    (:meth:`expect`, the MazeAction already handed to the caller); ``step()`` checks that
    the wrapper stack delivers that very action.

    The replaced core env keeps providing what does not depend on the live simulation:
    the context (so events fired by wrappers land where they already point), the agent
    counts, the renderer and the KPI calculator.

    Env time: flat envs count steps in the MazeEnv. For structured envs this env counts an
    env step whenever the acting order returns to the first actor of a round (the first
    sub-step key, agent 0).

    Args:
        replaced: The core env this env replaces.
    """

    def __init__(self, replaced: CoreEnv) -> None:
        super().__init__()
        self.replaced = replaced
        self.context = replaced.context
        counts = dict(replaced.agent_counts_dict)
        first_key = next(iter(counts))
        # Flat envs (one sub-step, one agent): the MazeEnv counts env steps itself.
        self._round_start: Optional[ActorID] = None if counts == {first_key: 1} else ActorID(first_key, 0)
        self._maze_state: Any = None
        self._actor: ActorID = _FLAT_ACTOR
        self._next_actor: ActorID = _FLAT_ACTOR
        self._step_result: tuple[Any, Any, bool, bool, dict] = (None, 0.0, False, False, {})
        self._events: Iterable[EventRecord] = ()
        self._expected: Any = _NOTHING

    # --- what the deployment hands in ----------------------------------------------------

    def supply(
        self,
        maze_state: Any,
        reward: Any,
        terminated: bool,
        truncated: bool,
        info: dict,
        actor_id: Optional[ActorID] = None,
        events: Optional[Iterable[EventRecord]] = None,
    ) -> None:
        """Sets what the next ``reset()`` or ``step()`` returns.

        Args:
            maze_state: The MazeState the external env is in now.
            reward: The reward of the step that led to it.
            terminated: Whether the episode terminated in that state.
            truncated: Whether the episode was cut short in that state.
            info: The external env's info dict.
            actor_id: The actor that acts next (None: ``ActorID(0, 0)``, flat envs).
            events: Events the external env fired during that step; they join the step's events.
        """
        self._maze_state = maze_state
        # The actor of the pending step keeps acting until step() executes its MazeAction.
        self._next_actor = _FLAT_ACTOR if actor_id is None else actor_id
        self._step_result = (maze_state, reward, terminated, truncated, info)
        self._events = () if events is None else events

    def show(self, maze_state: Any, actor_id: Optional[ActorID] = None) -> None:
        """Makes ``maze_state`` the current MazeState and ``actor_id`` the acting actor, without a reset or step.

        For looking at one state through the stack (e.g. converting an action in it) outside an episode.

        Args:
            maze_state: The MazeState (None where only the actor matters).
            actor_id: The acting actor (None: ``ActorID(0, 0)``, flat envs).
        """
        self._maze_state = maze_state
        self._actor = self._next_actor = _FLAT_ACTOR if actor_id is None else actor_id

    def expect(self, maze_action: Any) -> None:
        """Announces the MazeAction the next ``step()`` must receive (the one the caller executed)."""
        self._expected = maze_action

    # --- CoreEnv -------------------------------------------------------------------------

    def step(self, maze_action: Any) -> tuple[Any, Any, bool, bool, dict]:
        """Returns the supplied step result after checking ``maze_action`` against the expected one.

        Raises:
            WrapperStackError: When no step was expected (a wrapper steps the env on its own)
                or the wrapper stack delivers another MazeAction than the one handed out.
        """
        expected, self._expected = self._expected, _NOTHING
        if expected is _NOTHING:
            raise WrapperStackError(
                "a wrapper stepped the env on its own (e.g. RandomResetWrapper skipping steps after a reset); in "
                "deployment only the external env takes steps, so remove such wrappers from the deployment's wrappers"
            )
        if maze_action is not expected and not same_maze_action(maze_action, expected):
            raise WrapperStackError(
                f"the wrapper stack executed the MazeAction {maze_action!r}, but the deployment handed out "
                f"{expected!r}: a wrapper changes actions inside step() beyond its action() method (or the caller "
                "modified the returned MazeAction in place). Move that logic into the wrapper's action() method, "
                "or leave the wrapper out of the deployment"
            )
        if self._events:
            notify = self.context.event_service.notify_event
            for event in self._events:
                notify(event)
        self._actor = self._next_actor
        if self._round_start is not None and self._actor == self._round_start:
            self.context.increment_env_step()
        return self._step_result

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> tuple[Any, dict]:
        """Returns the supplied MazeState and info (the external env started an episode there)."""
        self._expected = _NOTHING
        self._actor = self._next_actor
        return self._maze_state, self._step_result[4]

    def get_maze_state(self) -> Any:
        """The last supplied MazeState."""
        return self._maze_state

    def actor_id(self) -> ActorID:
        """The supplied actor (``ActorID(0, 0)`` unless the caller named one).

        Until ``step()`` has executed the pending MazeAction this is the actor that chose it,
        so the MazeEnv converts that action with its own sub-step's action conversion.
        """
        return self._actor

    @property
    def agent_counts_dict(self) -> dict[StepKeyType, int]:
        """The replaced core env's agent counts."""
        return self.replaced.agent_counts_dict

    def get_renderer(self) -> Renderer:
        """The replaced core env's renderer (it draws MazeStates, wherever they come from)."""
        return self.replaced.get_renderer()

    def get_kpi_calculator(self) -> Optional[Any]:
        """The replaced core env's KPI calculator, if it has one."""
        get = getattr(self.replaced, "get_kpi_calculator", None)
        return None if get is None else get()

    def close(self) -> None:
        """Closes the replaced core env (the external env is the caller's to close)."""
        self.replaced.close()


def same_maze_action(first: Any, second: Any) -> bool:
    """Whether two MazeActions are equal: arrays by value, containers and plain objects field by field."""
    if first is second:
        return True
    if isinstance(first, np.ndarray) or isinstance(second, np.ndarray):
        try:
            return bool(np.array_equal(first, second, equal_nan=True))
        except TypeError:  # non-numeric arrays cannot compare NaNs
            return bool(np.array_equal(first, second))
    if isinstance(first, dict) and isinstance(second, dict):
        return first.keys() == second.keys() and all(same_maze_action(first[key], second[key]) for key in first)
    if isinstance(first, (list, tuple)) and isinstance(second, (list, tuple)):
        return (
            type(first) is type(second)
            and len(first) == len(second)
            and all(same_maze_action(a, b) for a, b in zip(first, second, strict=True))
        )
    if type(first) is type(second) and type(first).__eq__ is object.__eq__ and hasattr(first, "__dict__"):
        return same_maze_action(vars(first), vars(second))  # plain objects without __eq__: compare their fields
    try:
        return bool(first == second)
    except Exception:  # an __eq__ that cannot give one bool (e.g. returns an array of several entries)
        return False
