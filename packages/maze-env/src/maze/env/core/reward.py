"""Reward aggregation: rewards computed from events and state, outside the simulation."""

from __future__ import annotations

from abc import abstractmethod
from typing import Any, Optional, Union

import numpy as np
from maze.env.core.events import Subscriber

__all__ = ["RewardAggregatorInterface"]


class RewardAggregatorInterface(Subscriber):
    """Subscribes to the events of a step and turns them into a reward.

    A CoreEnv registers its aggregator with its Pubsub and calls :meth:`summarize_reward`
    at the end of each step, after all events of that step were delivered.
    """

    @abstractmethod
    def summarize_reward(self, maze_state: Optional[Any] = None) -> Union[float, np.ndarray]:
        """Returns the reward of the step (a float, or an array with one entry per actor)."""
