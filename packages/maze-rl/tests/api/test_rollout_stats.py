"""RolloutStats: statistics by readable name, with suggestions for unknown names."""

from __future__ import annotations

import pytest
from maze.env.log_stats.log_stats import LogStatsKey
from maze.rl.api import RolloutStats


def test_a_wrongly_cased_name_gets_the_right_suggestion() -> None:
    stats = RolloutStats({LogStatsKey("BaseEnvEvents", "reward", "mean"): 1.5})
    assert stats["BaseEnvEvents/reward/mean"] == 1.5
    with pytest.raises(KeyError, match=r"no 'baseenvevents/REWARD/mean'; did you mean \['BaseEnvEvents/reward/mean'\]"):
        stats["baseenvevents/REWARD/mean"]
