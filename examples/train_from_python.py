"""Train an A2C or PPO agent on CartPole from plain Python: no Hydra, no runner, every object built by hand.

The low-level counterpart of ``maze-run -cn conf_train env.name=CartPole-v1 algorithm=a2c``
(the documentation's "train from Python" example with maze's classes):

1. an env factory (GymMazeEnv with a LogStatsWrapper, which the trainer reads its statistics from),
2. a policy network and a value network (plain ``torch.nn`` modules) wrapped in TorchModelBlocks,
3. TorchPolicy (with a DistributionMapper), TorchSharedStateCritic and TorchActorCritic,
4. training envs and a RolloutCollector, a RolloutEvaluator and BestModelSelection (writes ``params.pt``),
5. the trainer (A2C or PPO), ``setup_logging`` for console tables and TensorBoard, ``train()``,
6. a RolloutGenerator recording the trained policy's observations, actions and logits.

Usage: ``python examples/train_from_python.py [--algorithm a2c|ppo] [--epochs 8] [--out-dir .]``
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import torch
from maze.distributions.distribution_mapper import DistributionMapper
from maze.env import GymMazeEnv, LogStatsWrapper, SequentialVectorEnv
from maze.perception.agent.torch_actor_critic import TorchActorCritic
from maze.perception.agent.torch_policy import TorchPolicy
from maze.perception.agent.torch_state_critic import TorchSharedStateCritic
from maze.perception.blocks.general.torch_model_block import TorchModelBlock
from maze.train.core.model_selection import BestModelSelection
from maze.train.evaluators import RolloutEvaluator
from maze.train.logging_setup import setup_logging
from maze.train.rollout import RolloutCollector, RolloutGenerator
from maze.train.trainers.a2c import A2C, A2CAlgorithmConfig
from maze.train.trainers.ppo import PPO, PPOAlgorithmConfig
from torch import nn


def cartpole_env_factory() -> LogStatsWrapper:
    """One CartPole-v1 env with statistics (the trainer and the evaluator read them)."""
    return LogStatsWrapper.wrap(GymMazeEnv("CartPole-v1"))


class CartpolePolicyNet(nn.Module):
    """Observation ``[B, 4]`` -> action logits ``[B, 2]`` (one hidden layer)."""

    def __init__(self, obs_shapes: dict[str, Sequence[int]], action_logits_shapes: dict[str, Sequence[int]]) -> None:
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(obs_shapes["observation"][0], 32), nn.Tanh(), nn.Linear(32, action_logits_shapes["action"][0])
        )

    def forward(self, x_dict: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """Maze networks map a dict of tensors to a dict of tensors."""
        return {"action": self.net(x_dict["observation"])}


class CartpoleValueNet(nn.Module):
    """Observation ``[B, 4]`` -> state value ``[B, 1]`` (one hidden layer)."""

    def __init__(self, obs_shapes: dict[str, Sequence[int]]) -> None:
        super().__init__()
        self.value_net = nn.Sequential(nn.Linear(obs_shapes["observation"][0], 32), nn.Tanh(), nn.Linear(32, 1))

    def forward(self, x_dict: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """Maze networks map a dict of tensors to a dict of tensors."""
        return {"value": self.value_net(x_dict["observation"])}


def observation_block(out_key: str, net: torch.nn.Module, obs_shape: tuple[int, ...]) -> TorchModelBlock:
    """Wraps a network of the ``observation`` input as a maze block (tensor dict in, tensor dict out)."""
    return TorchModelBlock(
        in_keys="observation", out_keys=out_key, in_shapes=obs_shape, in_num_dims=[2], out_num_dims=2, net=net
    )


def build_actor_critic(env: LogStatsWrapper) -> TorchActorCritic:
    """The policy and the critic for the env's spaces."""
    obs_shape = env.observation_space.spaces["observation"].shape
    n_actions = env.action_space.spaces["action"].n
    policy_net = observation_block(
        "action", CartpolePolicyNet({"observation": obs_shape}, {"action": (n_actions,)}), obs_shape
    )
    distribution_mapper = DistributionMapper(action_space=env.action_space, distribution_mapper_config={})
    policy = TorchPolicy(networks={0: policy_net}, distribution_mapper=distribution_mapper, device="cpu")
    value_net = observation_block("value", CartpoleValueNet({"observation": obs_shape}), obs_shape)
    critic = TorchSharedStateCritic(
        networks={0: value_net}, obs_spaces_dict=env.observation_spaces_dict, device="cpu", stack_observations=False
    )
    return TorchActorCritic(policy=policy, critic=critic, device="cpu")


def train(algorithm: str, n_epochs: int, out_dir: Path, seed: int = 0) -> float:
    """Trains for ``n_epochs`` and returns the best evaluation return (mean of 8 deterministic episodes)."""
    # One intra-op thread, as maze's training runners use (runner.cpu_threads: 1): torch's default of one
    # thread per core makes these small networks slower, much slower on a busy machine.
    torch.set_num_threads(1)
    torch.manual_seed(seed)
    env = cartpole_env_factory()
    model = build_actor_critic(env)
    env.close()

    common = {"n_epochs": n_epochs, "epoch_length": 10, "patience": 0, "n_rollout_steps": 32, "device": "cpu"}
    if algorithm == "a2c":
        trainer_class, config = A2C, A2CAlgorithmConfig(**common, lr=0.003, gamma=0.98, gae_lambda=0.95)
    else:
        trainer_class, config = PPO, PPOAlgorithmConfig(**common, lr=0.001, gamma=0.98, gae_lambda=0.95)

    # training and evaluation envs, stepped in this process
    train_envs = SequentialVectorEnv([cartpole_env_factory] * 4)
    eval_envs = SequentialVectorEnv([cartpole_env_factory] * 4)
    model_selection = BestModelSelection(dump_file=out_dir / "params.pt", model=model)
    evaluator = RolloutEvaluator(
        eval_env=eval_envs,
        n_episodes=8,
        model_selection=model_selection,
        deterministic=True,
        seeds=[100, 101, 102, 103],
    )
    trainer = trainer_class(
        algorithm_config=config,
        rollout_collector=RolloutCollector(
            train_envs, config.n_rollout_steps, seeds=[seed, seed + 1, seed + 2, seed + 3]
        ),
        evaluator=evaluator,
        model=model,
        model_selection=model_selection,
    )

    # console tables and a TensorBoard directory named after this script
    tensorboard_dir = setup_logging(job_config=config, log_dir=out_dir)
    try:
        result = trainer.train()
    finally:
        trainer.close()
        train_envs.close()
        eval_envs.close()
    print(f"TensorBoard logs: {tensorboard_dir}")
    print(f"Best model: {out_dir / 'params.pt'} ({'written' if (out_dir / 'params.pt').is_file() else 'missing'})")
    print(f"Best evaluation return: {result.best_reward:.1f}")
    record_trained_policy(model.policy)
    return result.best_reward


def record_trained_policy(policy: TorchPolicy, n_steps: int = 200) -> None:
    """Records ``n_steps`` env steps of the trained policy in 2 envs and summarizes the trajectory."""
    generator = RolloutGenerator(SequentialVectorEnv([cartpole_env_factory] * 2), record_logits=True, seeds=[7, 8])
    trajectory = generator.rollout(policy, n_steps=n_steps)
    generator.close()
    records = [step.substep_records[0] for step in trajectory]  # one sub-step per env step in CartPole
    episodes_ended = sum(int((record.terminated | record.truncated).sum()) for record in records)
    chosen_probability = [
        torch.softmax(torch.from_numpy(record.logits["action"]), dim=-1)
        .gather(-1, torch.from_numpy(record.action["action"]).long().unsqueeze(-1))
        .mean()
        for record in records
    ]
    print(
        f"RolloutGenerator: {len(trajectory)} env steps x {records[0].reward.shape[0]} envs recorded, "
        f"{episodes_ended} episodes ended, sampled actions had a mean probability of "
        f"{float(torch.stack(chosen_probability).mean()):.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--algorithm", choices=("a2c", "ppo"), default="a2c", help="the trainer (default: a2c)")
    parser.add_argument("--epochs", type=int, default=8, help="epochs of 10 updates (default: 8)")
    parser.add_argument("--out-dir", type=Path, default=Path("."), help="params.pt and tensorboard/ go here")
    parser.add_argument("--seed", type=int, default=0, help="torch and env seed (default: 0)")
    args = parser.parse_args()
    args.out_dir.mkdir(parents=True, exist_ok=True)
    train(args.algorithm, args.epochs, args.out_dir, args.seed)


if __name__ == "__main__":
    main()
