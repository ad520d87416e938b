"""Wrote the legacy (pickle) trajectory fixtures with the writer of the time (see README.md); kept for provenance."""

import sys
from pathlib import Path

import numpy as np
from maze.env.core.actor import ActorID
from maze.env.examples.cutting_2d import SIMPLE_PROBLEM_DEMAND, FlatCutting2DGreedyPolicy, maze_env_factory
from maze.env.gym_adapter.gym_maze_env import GymMazeEnv
from maze.env.trajectory_recording import (
    SimpleTrajectoryRecordingSetup,
    SpacesRecord,
    SpacesTrajectoryRecord,
    StructuredSpacesRecord,
    TrajectoryWriterFile,
)
from maze.env.wrappers.time_limit import TimeLimitWrapper
from maze.env.wrappers.trajectory_recording_wrapper import TrajectoryRecordingWrapper

out = Path(sys.argv[1])
out.mkdir(exist_ok=True)


def run(env, policy, seed, directory, n):
    rec = TrajectoryRecordingWrapper(env)
    with SimpleTrajectoryRecordingSetup(directory):
        obs, _ = rec.reset(seed=seed)
        for _ in range(n):
            a = policy(obs, rec)
            obs, _, te, tr, _ = rec.step(a)
            if te or tr:
                break
        rec.close()


cp = GymMazeEnv("CartPole-v1")
cp.action_space.seed(0)
run(TimeLimitWrapper.wrap(cp, max_episode_steps=12), lambda o, r: r.action_space.sample(), 0, out / "cartpole", 100)
cut = maze_env_factory(max_pieces_in_inventory=5, raw_piece_size=(4, 3), static_demand=SIMPLE_PROBLEM_DEMAND)
pol = FlatCutting2DGreedyPolicy()
run(
    TimeLimitWrapper.wrap(cut, max_episode_steps=6),
    lambda o, r: pol.compute_action(o, deterministic=True),
    0,
    out / "cutting_2d",
    6,
)
rng = np.random.default_rng(0)
steps = []
for t in range(4):
    steps.append(
        StructuredSpacesRecord(
            [
                SpacesRecord(
                    ActorID("selection", 0),
                    {"inventory": rng.random((3, 2)).astype(np.float32), "mask": np.array([True, False, True])},
                    {"piece": np.int64(t % 3)},
                    0.5,
                    info={"t": t},
                ),
                SpacesRecord(
                    ActorID("cutting", 0),
                    {"piece": rng.random(2).astype(np.float32)},
                    {"rotation": np.int64(1), "order": np.int64(0)},
                    np.float32(-1.0),
                    terminated=t == 3,
                    truncated=False,
                    logits={"rotation": np.array([0.1, -0.2], dtype=np.float32)},
                    value=np.float32(0.3),
                    next_observation={"piece": np.zeros(2, np.float32)},
                ),
            ]
        )
    )
TrajectoryWriterFile(out / "spaces").write(SpacesTrajectoryRecord(id="spaces-structured-episode", step_records=steps))
