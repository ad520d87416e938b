"""Policy inference overhead: ``TorchPolicy.compute_action`` against a bare ``torch.nn.Sequential``.

The policy is the packaged ``vector_obs`` template model (dense 128 Tanh -> dense 128 Tanh
-> 2 logits) built for CartPole-v1; the peer is an ``nn.Sequential`` of the same layers
that turns a numpy observation into a tensor, runs the layers and samples a categorical
action under ``torch.inference_mode``. Both run on one thread (``torch.set_num_threads(1)``),
interleaved in this process.

Cases (rates count observations served per second):

* batch 1 (a single observation, no batch dim) — target cost ratio ≤ 2×.
* batch 256 (``[256, 4]`` observations) — target ≤ 1.2×.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.resources import files

import numpy as np
import torch
import yaml
from maze.env import GymMazeEnv
from maze.env.core.actor import ActorID
from maze.perception.models import SpacesConfig, build_model_composer
from torch import nn

from .harness import Row, interleaved_rates, paired_row, peak_rss_growth, timed_rate

BATCH_SIZES = (1, 256)


def vector_obs_policy():
    """The ``vector_obs`` TorchPolicy for CartPole-v1."""
    config = yaml.safe_load((files("maze.perception") / "conf" / "model" / "vector_obs.yaml").read_text())
    return build_model_composer(config, SpacesConfig.from_env(GymMazeEnv("CartPole-v1"))).torch_policy("cpu")


def bare_sequential() -> nn.Sequential:
    """The same layers as the policy network, as a plain ``nn.Sequential``."""
    return nn.Sequential(nn.Linear(4, 128), nn.Tanh(), nn.Linear(128, 128), nn.Tanh(), nn.Linear(128, 2))


def calls_case(call: Callable[[], object], n_calls: int, batch: int) -> Callable[[], float]:
    """A workload of ``n_calls`` calls; its rate counts observations (``n_calls * batch``)."""

    def work() -> int:
        for _ in range(n_calls):
            call()
        return n_calls * batch

    return lambda: timed_rate(work)


def run(n_steps: int, rounds: int) -> list[Row]:
    """Measures both batch sizes and returns the table rows."""
    previous_threads = torch.get_num_threads()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    try:
        policy = vector_obs_policy()
        sequential = bare_sequential()
        actor_id = ActorID(0, 0)
        rng = np.random.default_rng(0)
        cases: dict[str, Callable[[], float]] = {}
        for batch in BATCH_SIZES:
            shape = (4,) if batch == 1 else (batch, 4)
            observation = rng.normal(size=shape).astype(np.float32)
            observation_dict = {"observation": observation}
            n_calls = max(10, n_steps // (20 if batch == 1 else 400))

            def maze_call(observation_dict=observation_dict) -> object:
                return policy.compute_action(observation_dict, actor_id=actor_id)

            def bare_call(observation=observation) -> object:
                with torch.inference_mode():
                    logits = sequential(torch.from_numpy(observation))
                    return torch.distributions.Categorical(logits=logits, validate_args=False).sample().numpy()

            for _ in range(50):  # warm-up (allocator, lazy init)
                maze_call()
                bare_call()
            cases[f"TorchPolicy batch {batch}"] = calls_case(maze_call, n_calls, batch)
            cases[f"nn.Sequential batch {batch}"] = calls_case(bare_call, n_calls, batch)
        rates = interleaved_rates(cases, rounds)
        memory = peak_rss_growth(cases)
    finally:
        torch.set_num_threads(previous_threads)
    return [
        paired_row(rates, "TorchPolicy batch 1", "nn.Sequential batch 1", 2.0, memory=memory),
        paired_row(rates, "TorchPolicy batch 256", "nn.Sequential batch 256", 1.2, memory=memory),
    ]
