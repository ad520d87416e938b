"""RolloutProgress: quiet for short rollouts, one line per tenth of the episodes, rates and ETA."""

from __future__ import annotations

from maze.rollout import RolloutProgress


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_one_line_per_tenth_after_the_quiet_period() -> None:
    clock, lines = FakeClock(), []
    progress = RolloutProgress(100, quiet_seconds=2.0, clock=clock, output=lines.append)
    for _ in range(100):
        clock.now += 0.125
        progress.update(1, 50)
    # 10 % after 1.25 s (quiet), 20 % after 2.5 s, ... 90 %; the end is left to the summary
    assert len(lines) == 8
    assert lines[0] == "rollout: 20/100 episodes (20%), 400 steps/s, 8.0 episodes/s, ETA 0:00:10"
    assert lines[-1] == "rollout: 90/100 episodes (90%), 400 steps/s, 8.0 episodes/s, ETA 0:00:02"
    assert progress.summary() == "rollout: 100 episodes, 5,000 steps in 12.5 s (400 steps/s, 8.0 episodes/s)"


def test_batched_updates_print_once_per_milestone_reached() -> None:
    clock, lines = FakeClock(), []
    progress = RolloutProgress(10, quiet_seconds=0.0, clock=clock, output=lines.append)
    clock.now += 30.0
    progress.update(4, 4000)  # jumps from 0 % to 40 %: one line
    clock.now += 3600.0
    progress.update(1, 10)
    assert lines == [
        "rollout: 4/10 episodes (40%), 133 steps/s, 0.1 episodes/s, ETA 0:00:45",
        "rollout: 5/10 episodes (50%), 1 steps/s, 0.0 episodes/s, ETA 1:00:30",
    ]


def test_short_rollouts_print_only_the_summary() -> None:
    clock, lines = FakeClock(), []
    progress = RolloutProgress(3, clock=clock, output=lines.append)
    for _ in range(3):
        clock.now += 0.01
        progress.update(1, 7)
    assert lines == []
    assert progress.summary().startswith("rollout: 3 episodes, 21 steps in 0.0 s")
