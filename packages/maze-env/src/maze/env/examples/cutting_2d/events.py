"""Event topics of the Cutting-2D env and how their statistics are aggregated.

Counting events (``valid_cut``, ``piece_replenished``, ...) are counted per step, summed
per episode and averaged over the episodes of an epoch (``mean_episode_total``).
``pieces_in_inventory`` reports a value once per step; per episode its mean and maximum
are kept (``step_mean``, ``step_max``) and averaged / maximised over an epoch.

Topics are plain classes: the env fires their events through ``Pubsub`` proxies, the
method bodies never run.
"""

from __future__ import annotations

import numpy as np
from maze.env.examples.cutting_2d.maze_state import Piece
from maze.env.log_stats.event_decorators import define_episode_stats, define_epoch_stats, define_step_stats

__all__ = ["CuttingEvents", "InventoryEvents"]


class CuttingEvents:
    """What happened to the cutting request of a step."""

    @define_epoch_stats(np.mean, output_name="mean_episode_total")
    @define_episode_stats(sum)
    @define_step_stats(len)
    def invalid_piece_selected(self) -> None:
        """The selected piece index points past the last piece in inventory."""

    @define_epoch_stats(np.mean, output_name="mean_episode_total")
    @define_episode_stats(sum)
    @define_step_stats(len)
    def valid_cut(self, current_demand: Piece, piece_to_cut: Piece, raw_piece_size: Piece, cutting_area: float) -> None:
        """The order was cut out of ``piece_to_cut``; ``cutting_area`` is the area of the order."""

    @define_epoch_stats(np.mean, output_name="mean_episode_total")
    @define_episode_stats(sum)
    @define_step_stats(len)
    def invalid_cut(self, current_demand: Piece, piece_to_cut: Piece, raw_piece_size: Piece) -> None:
        """The order does not fit into ``piece_to_cut`` in the requested orientation."""


class InventoryEvents:
    """What happened in the inventory during a step."""

    @define_epoch_stats(np.mean, output_name="mean_episode_total")
    @define_episode_stats(sum)
    @define_step_stats(len)
    def piece_discarded(self, piece: Piece) -> None:
        """The inventory was full, so its oldest piece (``piece``) was thrown away."""

    @define_epoch_stats(np.mean, input_name="step_mean", output_name="step_mean")
    @define_epoch_stats(max, input_name="step_max", output_name="step_max")
    @define_episode_stats(np.mean, output_name="step_mean")
    @define_episode_stats(max, output_name="step_max")
    @define_step_stats(None)
    def pieces_in_inventory(self, value: int) -> None:
        """Number of pieces in inventory at the end of the step (reported once per step)."""

    @define_epoch_stats(np.mean, output_name="mean_episode_total")
    @define_episode_stats(sum)
    @define_step_stats(len)
    def piece_replenished(self) -> None:
        """A fresh raw piece was put into the inventory (the previous one got cut)."""
