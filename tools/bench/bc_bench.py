"""Behavioural cloning throughput: ``BCTrainer`` against a hand-written torch training loop.

Data: 20,000 recorded steps of the CartPole-v1 heuristic (``DummyCartPolePolicy``, one
random action in ten), stacked once into tensors (``ImitationData``). Network: the packaged
``vector_obs`` template policy (dense 128 Tanh -> dense 128 Tanh -> 2 logits); the peer is
an ``nn.Sequential`` of the same layers. Both train on the same observation and action
tensors in shuffled minibatches of 100 (the documented ``batch_size``) with learning rate
0.001, on one thread, interleaved in this process; rates count samples per second of one
epoch.

* **maze**: one more epoch of ``BCTrainer.train`` — the NLL loss through the policy's distribution
  mapper, ``ImitationEvents`` (losses of every update; entropy, accuracy and gradient norm
  of every 4th) and the end-of-epoch statistics; no validation set and no rollouts
  (evaluation is not training).
* **peer**: ``randperm`` minibatches, ``F.cross_entropy``, ``backward``, ``optimizer.step``.

Two rows: the trainer with its default optimizer (``maze.train.optim.Adam``) and with
``torch.optim.Adam`` (the peer's optimizer), each against the peer with ``torch.optim.Adam``.
Target: the trainer keeps at least 80 % of the peer's samples/s (cost ratio ≤ 1.25×).
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable
from importlib.resources import files
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
import yaml
from maze.env import GymMazeEnv
from maze.env.agent.dummy_cartpole_policy import DummyCartPolePolicy
from maze.env.core.actor import ActorID
from maze.env.trajectory_recording.spaces_records import SpacesRecord
from maze.perception.models import SpacesConfig, build_model_composer
from maze.train.trainers.bc import BCAlgorithmConfig, BCLoss, BCTrainer, ImitationData
from torch import nn

from .harness import MEMORY_NOTE, Row, interleaved_rates, paired_row, peak_rss_growth, timed_rate

BATCH_SIZE = 100
LEARNING_RATE = 0.001
MAX_RATIO = 1.25
"""Cost ratio target: the trainer keeps ≥ 80 % of the hand-written loop's samples/s."""
N_SAMPLES = 20_000
MAZE_ADAM = {"_target_": "maze.train.optim.Adam", "lr": LEARNING_RATE}
TORCH_ADAM = {"_target_": "torch.optim.Adam", "lr": LEARNING_RATE}


def heuristic_records(n_samples: int, seed: int = 0) -> list[SpacesRecord]:
    """Recorded steps of the CartPole heuristic with one random action in ten (so both actions occur in all states)."""
    env, policy, rng = GymMazeEnv("CartPole-v1"), DummyCartPolePolicy(), np.random.default_rng(seed)
    observation, _ = env.reset(seed=seed)
    records = []
    while len(records) < n_samples:
        action = policy.compute_action(observation) if rng.random() > 0.1 else {"action": int(rng.integers(2))}
        records.append(SpacesRecord(ActorID(0, 0), observation, action, reward=0.0))
        observation, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            observation, _ = env.reset()
    return records


def bc_trainer(records: list[SpacesRecord], optimizer: dict[str, Any]) -> BCTrainer:
    """A BCTrainer of the ``vector_obs`` policy on ``records`` (no validation, no rollouts)."""
    model = yaml.safe_load((files("maze.perception") / "conf" / "model" / "vector_obs.yaml").read_text())
    spaces_config = SpacesConfig.from_env(GymMazeEnv("CartPole-v1"))
    policy = build_model_composer(model, spaces_config).torch_policy("cpu")
    config = BCAlgorithmConfig(
        n_epochs=1,
        optimizer=optimizer,
        batch_size=BATCH_SIZE,
        eval_every_k_iterations=None,
        validation_percentage=0,
        n_eval_episodes=1,  # (unused here: the trainer gets no evaluators)
    )
    data = ImitationData(records, policy.network_key)
    return BCTrainer(config, data, policy, BCLoss(spaces_config.action_spaces_dict), seed=0)


def trainer_epoch(trainer: BCTrainer) -> Callable[[], int]:
    """One more epoch of ``trainer`` per call (``train``'s ``n_epochs`` counts all epochs so far)."""

    def work() -> int:
        iterations = trainer.iterations
        with contextlib.redirect_stdout(io.StringIO()):  # the epoch banner
            trainer.train(trainer.epochs_done + 1)
        if trainer.iterations == iterations:
            raise RuntimeError("BCTrainer.train ran no update: the benchmark would time an empty epoch")
        return len(trainer.data)

    return work


def torch_loop_epoch(observations: torch.Tensor, actions: torch.Tensor) -> Callable[[], int]:
    """One epoch of a hand-written training loop of the same layers over the same tensors."""
    network = nn.Sequential(nn.Linear(4, 128), nn.Tanh(), nn.Linear(128, 128), nn.Tanh(), nn.Linear(128, 2))
    optimizer = torch.optim.Adam(network.parameters(), lr=LEARNING_RATE)

    def work() -> int:
        order = torch.randperm(len(observations))
        for start in range(0, len(order), BATCH_SIZE):
            rows = order[start : start + BATCH_SIZE]
            loss = F.cross_entropy(network(observations[rows]), actions[rows])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        return len(observations)

    return work


def run(n_steps: int, rounds: int) -> list[Row]:
    """Measures both rows; ``n_steps`` caps the recorded samples (at most :data:`N_SAMPLES`)."""
    previous_threads = torch.get_num_threads()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    try:
        records = heuristic_records(min(n_steps, N_SAMPLES))
        default_trainer = bc_trainer(records, MAZE_ADAM)
        torch_adam_trainer = bc_trainer(records, TORCH_ADAM)
        block = default_trainer.data.blocks[0]
        cases = {
            "BCTrainer (maze Adam)": trainer_epoch(default_trainer),
            "BCTrainer (torch.optim.Adam)": trainer_epoch(torch_adam_trainer),
            "torch loop (torch.optim.Adam)": torch_loop_epoch(
                block.observations["observation"], block.actions["action"]
            ),
        }
        for work in cases.values():  # warm-up (allocator, lazy init)
            work()
        timed = {name: (lambda work=work: timed_rate(work)) for name, work in cases.items()}
        rates = interleaved_rates(timed, rounds)
        memory = peak_rss_growth(timed)
    finally:
        torch.set_num_threads(previous_threads)
    peer = "torch loop (torch.optim.Adam)"
    return [
        paired_row(rates, "BCTrainer (maze Adam)", peer, MAX_RATIO, memory=memory),
        paired_row(rates, "BCTrainer (torch.optim.Adam)", peer, MAX_RATIO, memory=memory),
    ]


def notes(rows: list[Row]) -> str:
    """The notes of the table."""
    return (
        "Samples per second of one training epoch (20,000 recorded CartPole-v1 steps, minibatches of 100, "
        "vector_obs network 4-128-128-2, one thread), measured interleaved in one process (median over rounds). "
        "Cost ratio = peer rate / case rate, the median of per-round ratios: ≤ 1.25× means BCTrainer keeps "
        "≥ 80 % of a hand-written torch loop's throughput. BCTrainer includes its ImitationEvents (losses of every "
        "update; entropy, accuracy and gradient norm of every 4th) and end-of-epoch statistics. The first row is "
        "the trainer's default optimizer (maze.train.optim.Adam, the same update with torch's fused Adam kernel), the "
        "second uses the peer's torch.optim.Adam. " + MEMORY_NOTE
    )
