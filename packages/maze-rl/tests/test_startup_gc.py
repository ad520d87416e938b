"""maze-run pauses the garbage collector for its start-up and resumes it once the runner is set up."""

from __future__ import annotations

import gc
import subprocess
import sys
from collections.abc import Iterator

import pytest
from maze.rl import startup_gc


@pytest.fixture
def restored_gc() -> Iterator[None]:
    """Puts the collector back as it was (enabled, nothing frozen) after the test."""
    enabled = gc.isenabled()
    yield
    startup_gc._paused = False
    gc.unfreeze()
    (gc.enable if enabled else gc.disable)()


def test_pause_then_resume_freezes_the_start_up_objects_and_enables_the_collector(restored_gc) -> None:
    gc.enable()
    startup_gc.pause_garbage_collection()
    assert not gc.isenabled()

    startup_gc.resume_garbage_collection()

    assert gc.isenabled()
    assert gc.get_freeze_count() > 0


def test_resume_leaves_a_collector_alone_that_it_did_not_pause(restored_gc) -> None:
    gc.disable()  # e.g. a user's process running maze itself
    startup_gc.pause_garbage_collection()
    startup_gc.resume_garbage_collection()
    assert not gc.isenabled() and gc.get_freeze_count() == 0


def test_a_maze_run_job_trains_with_the_collector_on(tmp_path) -> None:
    code = (
        "import gc, sys\n"
        "import maze.rl.run as run\n"
        "original = run.maze_run\n"
        "def maze_run(cfg):\n"
        "    try:\n"
        "        return original(cfg)\n"
        "    finally:\n"
        "        print('collector', gc.isenabled(), gc.get_freeze_count() > 0, flush=True)\n"
        "run.maze_run = maze_run\n"
        "sys.argv = ['maze-run', '-cn', 'conf_train', 'env=gym_env', 'env.name=CartPole-v1', 'algorithm=a2c',\n"
        "            'runner=dev', 'algorithm.n_epochs=1', 'algorithm.epoch_length=1', 'algorithm.n_rollout_steps=4',\n"
        "            'runner.concurrency=1', 'model=vector_obs', 'critic=template_state',\n"
        "            'algorithm.rollout_evaluator.n_episodes=1', 'hydra.run.dir=run']\n"
        "from maze.rl.cli import console_main\n"
        "print('collector at start', gc.isenabled(), flush=True)\n"
        "console_main()\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "collector at start True" in done.stdout
    assert "collector True True" in done.stdout
