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


def test_start_up_is_left_out_of_rates_eta_and_summary() -> None:
    clock, lines = FakeClock(), []
    progress = RolloutProgress(10, quiet_seconds=0.0, clock=clock, output=lines.append)
    progress.begin_startup()
    clock.now += 40.0  # workers start: not rollout time
    progress.end_startup()
    clock.now += 2.0
    progress.update(2, 200)
    assert lines == ["rollout: 2/10 episodes (20%), 100 steps/s, 1.0 episodes/s, ETA 0:00:08"]
    assert (
        progress.summary()
        == "rollout: 2 episodes, 200 steps in 2.0 s (100 steps/s, 1.0 episodes/s) after 40.0 s of start-up"
    )


def test_a_second_start_up_pauses_the_clock_until_the_next_report() -> None:
    clock, lines = FakeClock(), []
    progress = RolloutProgress(10, quiet_seconds=0.0, clock=clock, output=lines.append)
    clock.now += 1.0
    progress.update(1, 100)  # in this process
    progress.begin_startup()  # the rest goes to workers
    clock.now += 5.0
    progress.begin_startup()  # no effect: the start-up is open
    clock.now += 5.0
    progress.update(1, 100)  # a report ends the open start-up
    clock.now += 2.0
    progress.update(1, 100)
    assert lines[-1] == "rollout: 3/10 episodes (30%), 100 steps/s, 1.0 episodes/s, ETA 0:00:07"
    assert progress.startup_seconds == 10.0 and progress.rollout_seconds() == 3.0
