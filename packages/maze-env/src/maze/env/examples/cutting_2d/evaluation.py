"""Plays episodes of a Cutting-2D env with a policy and sums up what happened."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from maze.env.agent.policy import Policy
from maze.env.examples.cutting_2d.events import CuttingEvents, InventoryEvents

__all__ = ["EpisodeSummary", "run_episode"]

_INVALID = (CuttingEvents.invalid_cut, CuttingEvents.invalid_piece_selected)


@dataclass
class EpisodeSummary:
    """Totals of one episode.

    Attributes:
        steps: Env steps (a structured env's two sub-steps count once).
        reward: Sum of the rewards of all (sub-)steps.
        raw_pieces: Raw pieces replenished during the steps.
        invalid_actions: Invalid cuts plus invalid piece selections.
    """

    steps: int = 0
    reward: float = 0.0
    raw_pieces: int = 0
    invalid_actions: int = 0

    @property
    def raw_piece_usage_per_step(self) -> float:
        """The env's KPI: raw pieces per env step."""
        return self.raw_pieces / self.steps if self.steps else 0.0


def run_episode(env: Any, policy: Policy, seed: int) -> EpisodeSummary:
    """Plays one episode from ``env.reset(seed=seed)`` until it terminates or is truncated.

    Args:
        env: A Cutting-2D MazeEnv (flat or structured) whose episodes end, e.g. wrapped in
            a TimeLimitWrapper.
        policy: Asked for the action of ``env.actor_id()`` at every (sub-)step.
        seed: Reset seed of the env; the policy is seeded with it as well.
    """
    policy.seed(seed)
    policy.reset()
    observation, _ = env.reset(seed=seed)
    summary = EpisodeSummary()
    done = False
    while not done:
        action = policy.compute_action(observation, env=env, actor_id=env.actor_id(), deterministic=True)
        observation, reward, terminated, truncated, _ = env.step(action)
        summary.reward += float(reward)
        for event in env.get_step_events():
            summary.raw_pieces += event.interface_method is InventoryEvents.piece_replenished
            summary.invalid_actions += event.interface_method in _INVALID
        done = terminated or truncated
    summary.steps = env.get_env_time()
    return summary
