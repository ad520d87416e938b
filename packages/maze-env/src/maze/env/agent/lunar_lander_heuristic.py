"""A deterministic heuristic for gymnasium's discrete ``LunarLander-v3`` (``policy=lunar_lander_heuristics``).

The env needs the Box2D physics engine: ``pip install -c tools/constraints.txt './packages/maze-env[box2d]'`` from the
repository root (see :func:`maze.env.utils.install_hints.pip_install_command`). The policy
itself only reads observations and imports nothing from Box2D.

The controller is a cascade of proportional-derivative rules on the 8-dimensional
observation ``(x, y, vx, vy, angle, angular velocity, left leg contact, right leg contact)``:

1. the horizontal velocity goal points back to the landing pad (``x = 0``);
2. the tilt goal turns the main engine's thrust against the horizontal velocity error
   (a positive angle makes the main engine push towards negative ``x``);
3. the side engines steer the angle to its goal (action 1 turns the lander counter-
   clockwise, action 3 clockwise), damped by the angular velocity;
4. the main engine (action 2) keeps the descent speed below a limit that grows with the
   square root of the altitude: a constant-deceleration approach, fast up high and slow
   at touchdown.

The main engine wins over the side engines while the descent is clearly too fast and
the attitude is not far off, and always when the descent is far too fast. Once a leg
touches the ground the lander only brakes its fall. Over 300 seeds the mean return is
about 280 with episodes of about 190 steps (about 260 when rollouts stop episodes after
200 steps); one episode in 300 crashes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping, Optional, Sequence

import numpy as np
from maze.env.agent.policy import Policy
from maze.env.core.actor import ActorID

__all__ = ["LunarLanderHeuristicGains", "lunar_lander_heuristic_action", "LunarLanderHeuristicPolicy"]

NOOP, LEFT_ENGINE, MAIN_ENGINE, RIGHT_ENGINE = 0, 1, 2, 3


@dataclass(frozen=True)
class LunarLanderHeuristicGains:
    """The controller's gains and thresholds (observation units; the defaults are tuned).

    Attributes:
        position_gain: Horizontal velocity goal per unit of distance from the pad.
        max_approach_speed: Bound of the horizontal velocity goal.
        velocity_gain: Tilt goal per unit of horizontal velocity error.
        max_tilt: Bound of the tilt goal (radians).
        angle_gain: Side-engine command per radian of angle error.
        spin_damping: Side-engine command per unit of angular velocity (subtracted).
        descent_speed_gain: Descent speed limit per square root of the altitude.
        main_engine_threshold: Excess descent speed that fires the main engine.
        main_engine_priority: Weight of the excess descent speed against the side-engine
            command when both want to fire.
        full_brake_threshold: Excess descent speed that fires the main engine whatever
            the attitude.
        side_engine_threshold: Side-engine command that fires a side engine.
        touchdown_brake_speed: Descent speed above which the main engine brakes after a
            leg touched the ground.
    """

    position_gain: float = 1.0
    max_approach_speed: float = 0.25
    velocity_gain: float = 1.0
    max_tilt: float = 0.4
    angle_gain: float = 0.8
    spin_damping: float = 0.5
    descent_speed_gain: float = 0.55
    main_engine_threshold: float = 0.1
    main_engine_priority: float = 0.6
    full_brake_threshold: float = 0.6
    side_engine_threshold: float = 0.13
    touchdown_brake_speed: float = 0.07


def lunar_lander_heuristic_action(
    state: Sequence[float] | np.ndarray, gains: LunarLanderHeuristicGains = LunarLanderHeuristicGains()
) -> int:
    """The heuristic's discrete action for one LunarLander observation.

    Args:
        state: The gymnasium observation, shape ``(8,)``.
        gains: The controller's gains.

    Returns:
        0 (do nothing), 1 (left engine), 2 (main engine) or 3 (right engine).
    """
    x, y, vx, vy, angle, angular_velocity, left_contact, right_contact = (float(value) for value in state)
    if left_contact > 0.5 or right_contact > 0.5:
        return MAIN_ENGINE if vy < -gains.touchdown_brake_speed else NOOP

    vx_goal = -float(np.clip(gains.position_gain * x, -gains.max_approach_speed, gains.max_approach_speed))
    tilt_goal = float(np.clip(gains.velocity_gain * (vx - vx_goal), -gains.max_tilt, gains.max_tilt))
    turn = gains.angle_gain * (tilt_goal - angle) - gains.spin_damping * angular_velocity
    vy_goal = -gains.descent_speed_gain * math.sqrt(max(y, 0.0))
    too_fast = vy_goal - vy

    brake = too_fast > gains.main_engine_threshold
    if too_fast > gains.full_brake_threshold or (brake and gains.main_engine_priority * too_fast >= abs(turn)):
        return MAIN_ENGINE
    if abs(turn) > gains.side_engine_threshold:
        return LEFT_ENGINE if turn > 0 else RIGHT_ENGINE
    return MAIN_ENGINE if brake else NOOP


class LunarLanderHeuristicPolicy(Policy):
    """Lands the discrete LunarLander with :func:`lunar_lander_heuristic_action` (deterministic).

    Works on ``GymMazeEnv("LunarLander-v3")``: observations ``{'observation': (8,)}``,
    actions ``{'action': int}``. The ``deterministic`` flag changes nothing.

    Args:
        gains: The controller's gains (the tuned defaults when None).
    """

    def __init__(self, gains: Optional[LunarLanderHeuristicGains] = None) -> None:
        self.gains = gains if gains is not None else LunarLanderHeuristicGains()

    def compute_action(
        self,
        observation: dict[str, Any],
        maze_state: Optional[Any] = None,
        env: Optional[Any] = None,
        actor_id: Optional[ActorID] = None,
        deterministic: bool = False,
    ) -> dict[str, int]:
        """Returns ``{'action': a}`` for the observation ``{'observation': (8,)}``.

        Raises:
            ValueError: The observation is not an 8-dimensional LunarLander state
                (e.g. the continuous or another env, or a wrapped observation).
        """
        state = np.asarray(observation.get("observation") if isinstance(observation, Mapping) else None)
        if state.shape != (8,):
            raise ValueError(
                f"LunarLanderHeuristicPolicy needs the LunarLander-v3 observation {{'observation': (8,)}}, got "
                f"{_describe(observation)}; use it with env=gym_env env.name=LunarLander-v3 and no "
                "observation wrappers"
            )
        return {"action": lunar_lander_heuristic_action(state, self.gains)}


def _describe(observation: Any) -> str:
    if isinstance(observation, Mapping) and "observation" in observation:
        return f"an 'observation' of shape {np.shape(observation['observation'])}"
    if isinstance(observation, Mapping):
        return f"the keys {sorted(map(str, observation))}"
    return f"a {type(observation).__name__}"
