"""SAC: soft updates, targets with the twin-Q minimum, log-probabilities, entropy tuning, determinism, runners."""

from __future__ import annotations

import json
import math
import platform
import shutil
from pathlib import Path
from typing import Any

import pytest
import torch
import yaml
from checkpoint_test_support import training_state
from gymnasium import spaces
from maze.distributions import DiagonalGaussianProbabilityDistribution, DictProbabilityDistribution
from maze.distributions.squashed_gaussian import SquashedGaussianProbabilityDistribution
from maze.env.errors import ConfigurationError
from maze.perception.blocks.output import LinearOutputBlock
from maze.perception.checkpoint import MODEL_CONFIG_FILE
from maze.train.replay import TransitionBatch
from maze.train.trainers.sac import losses
from maze.train.trainers.sac import runner as runner_module
from maze.train.trainers.sac.runner import SQUASHED_BOX_RULE, SACRunner
from maze.train.trainers.sac.working_copies import slow_bfloat16_warning
from sac_test_support import sac_config, set_up
from train_test_support import packaged_config, small_model_config

PENDULUM = {"_target_": "maze.env.gym_adapter.gym_maze_env.make_gym_maze_env", "name": "Pendulum-v1"}


# --- pure pieces ----------------------------------------------------------------------------


def test_soft_update_moves_targets_by_tau() -> None:
    target, source = [torch.tensor([0.0, 10.0])], [torch.tensor([1.0, 0.0])]
    losses.soft_update(target, source, 0.1)
    assert torch.allclose(target[0], torch.tensor([0.1, 9.0]))
    losses.soft_update(target, source, 1.0)
    assert torch.equal(target[0], source[0])


def test_target_entropy_rules() -> None:
    continuous = spaces.Dict({"a": spaces.Box(-1, 1, (3,)), "b": spaces.Box(-1, 1, (2,))})
    assert losses.target_entropy(continuous, 1.0) == -5.0
    assert losses.target_entropy(continuous, 0.5) == -2.5
    discrete = spaces.Dict({"a": spaces.Discrete(4), "b": spaces.Discrete(2)})
    assert losses.target_entropy(discrete, 1.0) == pytest.approx(0.98 * (math.log(4) + math.log(2)))
    with pytest.raises(ConfigurationError, match="mixes"):
        losses.target_entropy(spaces.Dict({"a": spaces.Discrete(4), "b": spaces.Box(-1, 1, (2,))}), 1.0)


def test_squashed_gaussian_samples_have_the_distributions_log_density() -> None:
    torch.manual_seed(0)
    space = spaces.Box(-2.0, 2.0, (3,))
    logits = (torch.randn(64, 6) * 0.5).requires_grad_()
    distribution = SquashedGaussianProbabilityDistribution(logits, space)
    actions, log_prob = losses.sample_with_log_prob(DictProbabilityDistribution({"action": distribution}))
    assert actions["action"].shape == (64, 3) and log_prob.shape == (64,)
    assert bool(((actions["action"] >= -2) & (actions["action"] <= 2)).all())
    assert torch.allclose(log_prob, distribution.log_prob(actions["action"]), atol=1e-3)
    log_prob.sum().backward()  # reparameterized: differentiable
    assert logits.grad is not None and bool(logits.grad.abs().sum() > 0)


# --- the trainer ----------------------------------------------------------------------------


def batch_of(runner: SACRunner, size: int = 6) -> TransitionBatch:
    return runner.trainer.workers.sample_batch(size)


def test_discrete_target_uses_the_minimum_of_the_twin_target_q_networks(tmp_path: Path) -> None:
    runner = set_up(tmp_path, sac_config(n_epochs=1))
    trainer = runner.trainer
    batch = batch_of(runner)
    q_first = torch.tensor([[1.0, 5.0]]).repeat(6, 1)
    q_second = torch.tensor([[3.0, 2.0]]).repeat(6, 1)
    trainer.target_critics.q_values = lambda observation, actions=None, actor_id=None: (
        {"action_q_values": q_first},
        {"action_q_values": q_second},
    )
    alpha = torch.tensor(0.5)
    target = trainer._q_target(batch, alpha)["action"]
    with torch.no_grad():
        logits = trainer.policy.compute_substep_policy_output(
            batch.next_observations, trainer.sub_steps[0].actor_id
        ).action_logits
        probs = torch.softmax(logits["action"], -1)
    soft_value = (probs * torch.tensor([1.0, 2.0])).sum(-1) - alpha * (probs * probs.log()).sum(-1)
    expected = batch.rewards + 0.99 * (1 - batch.dones) * soft_value
    assert torch.allclose(target, expected, atol=1e-6)
    runner.trainer.workers.close()
    runner.close()


def test_continuous_target_uses_the_minimum_of_the_twin_target_q_networks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner = set_up(tmp_path, sac_config(env=PENDULUM, n_epochs=1))
    trainer = runner.trainer
    batch = batch_of(runner)
    monkeypatch.setattr(
        "maze.train.trainers.sac.trainer.sample_with_log_prob",
        lambda distribution: ({"action": torch.zeros(6, 1)}, torch.full((6,), -2.0)),
    )
    trainer.target_critics.q_values = lambda observation, actions=None, actor_id=None: (
        {"q_value": torch.tensor([1.0, 4.0, 1.0, 4.0, 1.0, 4.0])},
        {"q_value": torch.tensor([2.0, 3.0, 2.0, 3.0, 2.0, 3.0])},
    )
    target = trainer._q_target(batch, torch.tensor(0.5))["q_value"]
    minimum = torch.tensor([1.0, 3.0, 1.0, 3.0, 1.0, 3.0])
    expected = batch.rewards + 0.99 * (1 - batch.dones) * (minimum + 0.5 * 2.0)
    assert torch.allclose(target, expected)
    runner.trainer.workers.close()
    runner.close()


@pytest.mark.parametrize("tuning", [True, False])
def test_entropy_coefficient_is_learned_only_with_tuning(tmp_path: Path, tuning: bool) -> None:
    runner = set_up(tmp_path, sac_config(env=PENDULUM, entropy_tuning=tuning, entropy_coef=0.2))
    targets_before = [parameter.clone() for parameter in runner.trainer.target_critics.parameters]
    runner.run()
    trainer = runner.trainer
    if tuning:
        assert abs(trainer.entropy_coef - 0.2) > 1e-3
    else:
        assert trainer.entropy_coef == pytest.approx(0.2, abs=1e-7)
    assert trainer.updates == 20
    assert any(not torch.equal(a, b) for a, b in zip(targets_before, trainer.target_critics.parameters, strict=True))
    state = training_state(tmp_path)
    assert state["trainer"] == "SAC" and state["epochs"] == 2 and "sac" in state["state_dicts"]


@pytest.mark.parametrize(("value", "start"), [("auto", 1.0), ("auto_0.1", 0.1)])
def test_entropy_coef_auto_is_sb3s_ent_coef_in_one_key(tmp_path: Path, value: str, start: float) -> None:
    config = sac_config(env=PENDULUM, entropy_coef=value, entropy_tuning=False, lr=3e-4)
    trainer = set_up(tmp_path, config).trainer
    assert trainer.config.entropy_tuning and trainer.config.entropy_coef_lr == 3e-4
    assert trainer.entropy_coef == pytest.approx(start) and trainer.entropy_optimizer.lr == 3e-4


@pytest.mark.parametrize("value", ["automatic", "auto_", "auto_-1", "auto_nan", "0.2"])
def test_entropy_coef_strings_other_than_auto_are_refused(tmp_path: Path, value: str) -> None:
    with pytest.raises(ConfigurationError, match=r"algorithm.entropy_coef=.* 'auto_<start>'"):
        set_up(tmp_path, sac_config(env=PENDULUM, entropy_coef=value))


def test_optimizer_eps_reaches_all_three_optimizers(tmp_path: Path) -> None:
    trainer = set_up(tmp_path, sac_config(env=PENDULUM, optimizer_eps=1e-5)).trainer
    optimizers = (trainer.policy_optimizer, trainer.critic_optimizer, trainer.entropy_optimizer)
    assert [optimizer.eps for optimizer in optimizers] == [1e-5] * 3


def test_same_seed_gives_identical_losses(tmp_path: Path, single_thread: None) -> None:
    def losses_of(directory: Path) -> list[torch.Tensor]:
        runner = set_up(directory, sac_config(env=PENDULUM))
        recorded: list[torch.Tensor] = []
        update = runner.trainer.update

        def recording_update(batch: TransitionBatch) -> None:
            update(batch)
            recorded.append(runner.trainer._update_stats[-1].clone())

        runner.trainer.update = recording_update
        runner.run()
        return recorded

    first, second = losses_of(tmp_path / "a"), losses_of(tmp_path / "b")
    assert len(first) == 20
    assert all(torch.equal(a, b) for a, b in zip(first, second, strict=True))


def test_resumed_run_continues_with_the_saved_critics_optimizers_and_entropy_coefficient(tmp_path: Path) -> None:
    first = set_up(tmp_path / "first", sac_config(env=PENDULUM))
    first.run()
    saved = training_state(tmp_path / "first")
    resumed = set_up(
        tmp_path / "second", sac_config(env=PENDULUM, n_epochs=saved["epochs"] + 1, input_dir=tmp_path / "first")
    )
    trainer = resumed.trainer
    assert trainer.entropy_coef == pytest.approx(first.trainer.entropy_coef)
    assert trainer.best_reward == pytest.approx(saved["best_reward"])
    assert trainer.updates == first.trainer.updates and trainer.epochs_done == saved["epochs"]
    assert torch.equal(trainer.critic_optimizer.exp_avg[0], first.trainer.critic_optimizer.exp_avg[0])
    resumed.run()
    summary = json.loads((tmp_path / "second" / "training_summary.json").read_text())
    assert summary["epochs"] == saved["epochs"] + 1  # n_epochs counts the total: one more epoch


# --- the default distribution of Box actions ------------------------------------------------


def box_distribution(runner: SACRunner) -> type:
    distribution = runner.composer.distribution_mapper.distribution_class("action")
    runner.trainer.workers.close()
    runner.close()
    return distribution


def test_bounded_box_actions_get_squashed_gaussians_unless_the_model_maps_box(tmp_path: Path) -> None:
    default_model = packaged_config("model", "flatten_concat")  # no distribution rules: Gaussian for PPO
    default = set_up(tmp_path / "default", sac_config(env=PENDULUM, model=default_model))
    recorded = yaml.safe_load((tmp_path / "default" / MODEL_CONFIG_FILE).read_text())
    assert recorded["distribution_mapper_config"] == [SQUASHED_BOX_RULE]
    assert box_distribution(default) is SquashedGaussianProbabilityDistribution
    own_rule = {"action_space": "gymnasium.spaces.Box", "distribution": "DiagonalGaussianProbabilityDistribution"}
    mapped = set_up(
        tmp_path / "mapped", sac_config(env=PENDULUM, model={**default_model, "distribution_mapper_config": [own_rule]})
    )
    assert box_distribution(mapped) is DiagonalGaussianProbabilityDistribution


def test_unbounded_box_actions_keep_the_gaussian() -> None:
    bounded, unbounded = spaces.Box(-2.0, 2.0, (1,)), spaces.Box(-float("inf"), float("inf"), (1,))
    assert runner_module._all_box_actions_bounded([spaces.Dict({"a": bounded, "b": spaces.Discrete(3)})])
    assert not runner_module._all_box_actions_bounded([spaces.Dict({"a": bounded}), spaces.Dict({"b": unbounded})])
    assert not runner_module._all_box_actions_bounded([spaces.Dict({"a": spaces.Discrete(3)})])


def test_a_warm_start_keeps_the_box_distribution_of_its_input_run(tmp_path: Path) -> None:
    default_model = packaged_config("model", "flatten_concat")
    first = set_up(tmp_path / "first", sac_config(env=PENDULUM, model=default_model, n_epochs=1))
    first.run()
    stored = tmp_path / "first" / MODEL_CONFIG_FILE
    resumed = set_up(tmp_path / "squashed", sac_config(env=PENDULUM, model=default_model, input_dir=tmp_path / "first"))
    assert box_distribution(resumed) is SquashedGaussianProbabilityDistribution
    unsquashed = yaml.safe_load(stored.read_text())
    unsquashed["distribution_mapper_config"] = []  # as a run trained before SAC squashed by default
    stored.write_text(yaml.safe_dump(unsquashed))
    resumed = set_up(tmp_path / "gaussian", sac_config(env=PENDULUM, model=default_model, input_dir=tmp_path / "first"))
    assert box_distribution(resumed) is DiagonalGaussianProbabilityDistribution


# --- bad input ------------------------------------------------------------------------------


def test_state_critic_is_rejected(tmp_path: Path) -> None:
    model = small_model_config("template", "cartpole")  # template_state critic
    with pytest.raises(ConfigurationError, match="critic=template_state_action"):
        set_up(tmp_path, sac_config(model=model))


def test_missing_demonstration_directory_is_named(tmp_path: Path) -> None:
    demonstrations = {
        "_target_": "maze.rollout.datasets.InMemoryDataset",
        "input_data": str(tmp_path / "nowhere"),
        "trajectory_processor": {
            "_target_": "maze.rollout.datasets.trajectory_processor.IdentityWithNextObservationTrajectoryProcessor"
        },
    }
    with pytest.raises(ConfigurationError, match="nowhere does not exist"):
        set_up(tmp_path / "run", sac_config(), initial_demonstration_trajectories=demonstrations)
    shutil.rmtree(tmp_path / "run")


# --- SACfD ----------------------------------------------------------------------------------


def record_episodes(directory: Path, env_name: str, seeds: tuple[int, ...] = (0, 1)) -> Path:
    """Episodes of random actions recorded as trajectory files; returns the ``trajectory_data`` dir."""
    from maze.env.agent.random_policy import RandomPolicy
    from maze.env.gym_adapter.gym_maze_env import GymMazeEnv
    from maze.env.trajectory_recording import SimpleTrajectoryRecordingSetup
    from maze.env.wrappers.trajectory_recording_wrapper import TrajectoryRecordingWrapper

    env = TrajectoryRecordingWrapper(GymMazeEnv(env_name))
    policy = RandomPolicy(env.action_spaces_dict, seed=0)
    with SimpleTrajectoryRecordingSetup(directory / "trajectory_data"):
        for seed in seeds:
            env.reset(seed=seed)
            done = False
            while not done:
                _, _, terminated, truncated, _ = env.step(policy.compute_action(None))
                done = terminated or truncated
    return directory / "trajectory_data"


def demonstrations_config(input_data: Path) -> dict[str, Any]:
    return {
        "_target_": "maze.rollout.datasets.InMemoryDataset",
        "input_data": str(input_data),
        "n_workers": 1,
        "trajectory_processor": {
            "_target_": "maze.rollout.datasets.trajectory_processor.IdentityWithNextObservationTrajectoryProcessor"
        },
    }


def test_sacfd_buffer_holds_exactly_the_demonstration_transitions(tmp_path: Path) -> None:
    from maze.env.gym_adapter.gym_maze_env import GymMazeEnv
    from maze.rollout.datasets import InMemoryDataset
    from maze.rollout.datasets.trajectory_processor import IdentityWithNextObservationTrajectoryProcessor

    data = record_episodes(tmp_path, "CartPole-v1")
    processor = IdentityWithNextObservationTrajectoryProcessor()
    expected = len(InMemoryDataset(data, lambda: GymMazeEnv("CartPole-v1"), trajectory_processor=processor))
    assert expected > 20
    runner = set_up(tmp_path / "run", sac_config(), initial_demonstration_trajectories=demonstrations_config(data))
    assert len(runner.trainer.workers.replay_buffer) == expected  # not initial_buffer_size (32)
    assert runner.trainer.workers.env_steps == 0
    runner.run(n_epochs=1)
    assert len(runner.trainer.workers.replay_buffer) == expected + 10


def test_relative_demonstration_paths_start_in_the_launch_directory(tmp_path: Path) -> None:
    data = record_episodes(tmp_path, "CartPole-v1", seeds=(0,))
    relative = demonstrations_config(data.relative_to(tmp_path))  # the job itself runs in tmp_path / "run"
    runner = set_up(
        tmp_path / "run", sac_config(), initial_demonstration_trajectories=relative, launch_dir=str(tmp_path)
    )
    assert len(runner.trainer.workers.replay_buffer) > 0
    with pytest.raises(ConfigurationError, match=f"input_data: {tmp_path / 'run' / data.name} does not exist"):
        set_up(
            tmp_path / "run",
            sac_config(),
            initial_demonstration_trajectories=relative,
            launch_dir=str(tmp_path / "run"),
        )


def test_demonstrations_of_another_env_are_rejected(tmp_path: Path) -> None:
    data = record_episodes(tmp_path, "Pendulum-v1", seeds=(0,))
    with pytest.raises(ConfigurationError, match="observation space expects .*Record the demonstrations with the env"):
        set_up(tmp_path / "run", sac_config(), initial_demonstration_trajectories=demonstrations_config(data))


def output_layer_parameters(trainer: Any) -> set[int]:
    """The ids of the working copies' output-layer parameters (those of every ``LinearOutputBlock``)."""
    models = [trainer.train_policy, *trainer.train_critics.critics, *trainer.train_target_critics.critics]
    return {
        id(parameter)
        for model in models
        for network in model.networks.values()
        for block in network.modules()
        if isinstance(block, LinearOutputBlock)
        for parameter in block.parameters()
    }


def test_mixed_precision_trains_bfloat16_working_copies_of_float32_parameters(tmp_path: Path) -> None:
    runner = set_up(tmp_path, sac_config(env=PENDULUM, mixed_precision=True, n_epochs=1))
    trainer = runner.trainer
    before = [parameter.clone() for parameter in trainer.critics.parameters]
    batch = trainer.workers.sample_batch(16)
    trainer.update(batch)
    stats = trainer._update_stats[-1]
    assert stats.dtype == torch.float32 and bool(torch.isfinite(stats).all())
    assert all(parameter.dtype == torch.float32 for parameter in trainer.critics.parameters)
    assert any(not torch.equal(a, b) for a, b in zip(before, trainer.critics.parameters, strict=True))
    # the gradient steps ran on bfloat16 copies that now hold the updated float32 values
    pairs = [
        (trainer.policy.parameters(), trainer.train_policy.parameters()),
        (trainer.critics.parameters, trainer.train_critics.parameters),
        (trainer.target_critics.parameters, trainer.train_target_critics.parameters),
    ]
    outputs = output_layer_parameters(trainer)
    for masters, copies in pairs:
        for master, copy in zip(masters, copies, strict=True):
            assert copy.grad is None
            if id(copy) in outputs:  # the output layers stay float32
                assert copy.dtype == torch.float32 and torch.equal(copy, master)
            else:
                assert copy.dtype == torch.bfloat16 and torch.equal(copy, master.to(torch.bfloat16))
    assert outputs
    first, _ = trainer.train_critics.q_values(batch.observations, batch.actions)
    q_value = first["q_value"]
    assert q_value.dtype == torch.float32
    assert not torch.equal(q_value, q_value.to(torch.bfloat16).float())  # computed in float32, not rounded
    runner.trainer.workers.close()
    runner.close()


def test_mixed_precision_working_copies_follow_loaded_parameters(tmp_path: Path) -> None:
    """Parameters loaded into the float32 masters (resume) are what the next gradient steps start from."""
    runner = set_up(tmp_path, sac_config(env=PENDULUM, mixed_precision=True, n_epochs=1))
    trainer = runner.trainer

    def copies_match_masters() -> bool:
        pairs = [
            (trainer.policy.parameters(), trainer.train_policy.parameters()),
            (trainer.critics.parameters, trainer.train_critics.parameters),
            (trainer.target_critics.parameters, trainer.train_target_critics.parameters),
        ]
        return all(
            torch.equal(copy, master.to(copy.dtype))
            for masters, copies in pairs
            for master, copy in zip(masters, copies, strict=True)
        )

    state = trainer.state_dict()
    with torch.no_grad():
        for parameter in [*trainer.critics.parameters, *trainer.target_critics.parameters]:
            parameter.add_(1.0)
    trainer.load_state_dict(state)  # the trainer's own state: Q networks and their targets
    assert copies_match_masters()

    with torch.no_grad():
        for parameter in trainer.policy.parameters():
            parameter.add_(1.0)  # the runner loads the policy into the model
    seen = []
    trainer._iteration = lambda: seen.append(copies_match_masters())
    trainer._train_epoch()
    assert seen and all(seen)
    runner.trainer.workers.close()
    runner.close()


def test_mixed_precision_warns_on_x86_cpus_without_bfloat16_instructions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(platform, "machine", lambda: "x86_64")
    monkeypatch.setattr(torch.cpu, "_is_avx512_bf16_supported", lambda: False)
    monkeypatch.setattr(torch.cpu, "_is_amx_tile_supported", lambda: False)
    assert slow_bfloat16_warning("cuda") is None
    runner = set_up(tmp_path / "float32", sac_config(env=PENDULUM, n_epochs=1))
    runner.trainer.workers.close()
    runner.close()
    assert "mixed_precision" not in capsys.readouterr().out
    runner = set_up(tmp_path / "mixed", sac_config(env=PENDULUM, mixed_precision=True, n_epochs=1))
    runner.trainer.workers.close()
    runner.close()
    assert "Set algorithm.mixed_precision=false" in capsys.readouterr().out
    monkeypatch.setattr(torch.cpu, "_is_avx512_bf16_supported", lambda: True)
    assert slow_bfloat16_warning("cpu") is None
