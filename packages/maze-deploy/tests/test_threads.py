"""Several deployments in several threads work independently; none leaves a thread behind."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from deploy_test_support import NORMALIZED, RecordingWriter, cartpole_stack, deployed_rollout, direct_rollout
from maze.deploy import AgentDeployment
from maze.env import DummyCartPolePolicy, GymMazeEnv

N_THREADS = 4
EPISODES = 3
MAX_STEPS = 60


def test_four_threads_with_their_own_deployment(recorder: RecordingWriter) -> None:
    seeds = {worker: [100 * worker + episode for episode in range(EPISODES)] for worker in range(N_THREADS)}
    expected = {
        worker: direct_rollout(cartpole_stack(NORMALIZED), DummyCartPolePolicy(), seeds[worker])
        for worker in range(N_THREADS)
    }
    before = threading.active_count()
    start = threading.Barrier(N_THREADS)

    def serve(worker: int) -> list:
        agent = AgentDeployment(policy=DummyCartPolePolicy(), env=GymMazeEnv("CartPole-v1"), wrappers=NORMALIZED)
        start.wait(timeout=30)
        return deployed_rollout(agent, seeds[worker], max_steps=MAX_STEPS)[0]

    with ThreadPoolExecutor(N_THREADS) as pool:
        results = dict(enumerate(pool.map(serve, range(N_THREADS))))

    for worker in range(N_THREADS):
        for got, want in zip(results[worker], expected[worker], strict=True):
            assert got == want[:MAX_STEPS]
    # every close wrote its own episode, each at a log step of its own
    counts = recorder.values("deployment", "BaseEnvEvents", "reward", "episode_count")
    assert counts == [1] * (N_THREADS * EPISODES)
    assert sorted(step for _, step, _ in recorder.rows) == list(range(1, N_THREADS * EPISODES + 1))
    assert threading.active_count() == before
