"""BCRunner on recorded CartPole episodes, in this process and with worker processes: run directory, warm starts, PPO fine-tuning, bad inputs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
import torch
from checkpoint_test_support import checkpoint_file, training_state
from gymnasium import spaces
from maze.env.agent.dummy_cartpole_policy import DummyCartPolePolicy
from maze.env.errors import ConfigurationError, MazeError
from maze.env.gym_adapter.gym_maze_env import GymMazeEnv
from maze.env.trajectory_recording import SimpleTrajectoryRecordingSetup
from maze.env.vector.sequential import SequentialVectorEnv
from maze.env.vector.subproc import SubprocVectorEnv
from maze.env.wrappers.trajectory_recording_wrapper import TrajectoryRecordingWrapper
from maze.perception.serialization import load_state_dict_file
from maze.train.backends import processes
from maze.train.tensorboard import read_scalars
from maze.train.trainers.bc import BCRunner
from runner_test_support import CARTPOLE, VECTOR_OBS_WRAPPERS, job_config, set_up
from train_test_support import packaged_config, small_model_config

BC = "maze.train.trainers.bc.BCTrainer"


def record_cartpole(directory: Path, n_episodes: int, seed: int = 0, env_name: str = "CartPole-v1") -> Path:
    """Records episodes of the CartPole heuristic (``DummyCartPolePolicy``) into ``directory``."""
    env = TrajectoryRecordingWrapper(GymMazeEnv(env_name))
    policy = DummyCartPolePolicy()
    with SimpleTrajectoryRecordingSetup(directory):
        for episode in range(n_episodes):
            observation, _ = env.reset(seed=seed + episode)
            done, steps = False, 0
            while not done and steps < 200:
                observation, _, terminated, truncated, _ = env.step(policy.compute_action(observation))
                done, steps = terminated or truncated, steps + 1
            env.flush()
    return directory


def bc_config(data: Any, input_dir: Any = "", **algorithm: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """A job config for BC on CartPole and the runner's dataset config."""
    cfg = job_config(input_dir=input_dir, wrappers=VECTOR_OBS_WRAPPERS)
    cfg["model"] = small_model_config("template", "cartpole", critic=False, hidden=32)
    cfg["algorithm"] = {
        "n_epochs": 12,
        "batch_size": 50,
        "eval_every_k_iterations": None,
        "n_eval_episodes": 2,
        "optimizer": {"_target_": "maze.train.optim.Adam", "lr": 0.003},
        **algorithm,
    }
    return cfg, {"input_data": str(data)}


def set_up_bc(directory: Path, data: Any, **algorithm: Any) -> Any:
    cfg, dataset = bc_config(data, **algorithm)
    directory.mkdir(parents=True, exist_ok=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(directory)
        runner = BCRunner(dataset=dataset, trainer_class=BC)
        runner.setup(cfg)
    return runner


@pytest.fixture(scope="module")
def cartpole_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return record_cartpole(tmp_path_factory.mktemp("data") / "trajectory_data", 10)


@pytest.fixture(scope="module")
def bc_run(cartpole_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("bc_run")
    runner = set_up_bc(directory, cartpole_data)
    runner.run()
    return directory


def test_bc_runner_writes_a_run_directory_like_rl_runners(bc_run: Path) -> None:
    names = {path.name for path in bc_run.iterdir()}
    assert {"state_dict.pt", "spaces_config.yaml", "model_config.yaml", "checkpoint-12"} <= names
    assert {"training_summary.json", "policy_0.pdf"} <= names
    assert {"training_state.yaml", "optimizer.pt"} <= {path.name for path in (bc_run / "checkpoint-12").iterdir()}
    assert set(load_state_dict_file(bc_run / "state_dict.pt")) == {"policy_0"}
    summary = json.loads((bc_run / "training_summary.json").read_text())
    assert summary["epochs"] == 12 and summary["env_steps"] == 0 and summary["stop_reason"] == "12 epochs done"
    scalars = read_scalars(bc_run)
    accuracy = [value for _, value in sorted(scalars["eval_ImitationEvents/discrete_accuracy/0/action"])]
    assert len(accuracy) == 12 and max(accuracy) > 0.85  # the heuristic keeps the state near its switching line
    returns = [value for _, value in sorted(scalars["eval_BaseEnvEvents/reward/mean"])]
    assert max(returns) > 100  # the heuristic balances (random actions: about 22)
    state = training_state(bc_run)
    assert state["best_reward"] == pytest.approx(summary["best_eval_reward"])
    assert state["best_reward"] < 0 and state["trainer"] == "BCTrainer"


def test_bc_warm_starts_from_its_own_run_with_the_best_score(
    bc_run: Path, cartpole_data: Path, tmp_path: Path, capsys
) -> None:
    cfg, dataset = bc_config(cartpole_data, input_dir=bc_run, n_epochs=13)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path)
        runner = BCRunner(dataset=dataset, trainer_class=BC)
        runner.setup(cfg)
    best = training_state(bc_run)["best_reward"]
    assert runner.model_selection.best_reward == pytest.approx(best)
    latest = load_state_dict_file(
        checkpoint_file(bc_run, "last_state_dict.pt")
    )  # the resume continues from the latest weights
    for name, value in runner.trainer.policy.state_dict()["policy_0"].items():
        assert torch.equal(value, latest["policy_0"][name])
    assert f"Resumed from input_dir {bc_run}: epoch 12, 0 env steps" in capsys.readouterr().out
    assert runner.trainer.epochs_done == 12  # n_epochs=13 counts the total: one more epoch
    runner.close()


def test_a_resumed_bc_run_validates_on_the_items_its_first_part_validated_on(
    bc_run: Path, cartpole_data: Path, tmp_path: Path
) -> None:
    """Another agent seed would draw another split: items the first part trained on would be validated on."""
    saved_seed = int(load_state_dict_file(checkpoint_file(bc_run, "optimizer.pt"))["validation_split"]["seed"])
    seeds = {}
    for name, input_dir in (("fresh", ""), ("resumed", bc_run)):
        cfg, dataset = bc_config(cartpole_data, input_dir=input_dir, n_epochs=13)
        cfg["seeding"] = {"env_base_seed": 1, "agent_base_seed": 2}
        (tmp_path / name).mkdir()
        with pytest.MonkeyPatch.context() as patch:
            patch.chdir(tmp_path / name)
            runner = BCRunner(dataset=dataset, trainer_class=BC)
            runner.setup(cfg)
        seeds[name] = runner.trainer.seed
        runner.close()
    assert seeds["fresh"] != saved_seed  # agent seed 2 draws another split ...
    assert seeds["resumed"] == saved_seed  # ... but the resumed run keeps the one of its first part


def test_ppo_fine_tunes_the_cloned_policy_with_a_frozen_policy_during_burn_in(
    bc_run: Path, tmp_path: Path, capsys
) -> None:
    cfg = job_config(input_dir=bc_run, wrappers=VECTOR_OBS_WRAPPERS, n_epochs=1, critic_burn_in_epochs=1)
    cfg["model"] = {**small_model_config("template", "cartpole", hidden=32)}
    runner = set_up(tmp_path, cfg, dump_interval=1)
    assert runner.model_selection.best_reward == float("-inf")  # BC's score (a loss) does not carry over
    runner.run()
    output = capsys.readouterr().out
    assert "Initialized the policy from input_dir" in output
    cloned = load_state_dict_file(bc_run / "state_dict.pt")["policy_0"]
    after_burn_in = load_state_dict_file(checkpoint_file(tmp_path, "last_state_dict.pt"))["policy_0"]
    assert all(torch.equal(value, after_burn_in[name]) for name, value in cloned.items())
    assert "-> new overall best model" in output


@pytest.mark.parametrize(
    ("step_seconds", "placement"), [(2e-5, SequentialVectorEnv), (0.01, SubprocVectorEnv)], ids=["cheap", "slow"]
)
def test_local_runner_evaluates_cheap_envs_in_process_and_others_in_workers(
    cartpole_data: Path, tmp_path: Path, step_seconds: float, placement: type
) -> None:
    cfg, dataset = bc_config(cartpole_data, n_epochs=1, n_eval_episodes=2)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path)
        # placement follows the measured step time (patched: a busy machine can time CartPole as slow)
        patch.setattr(processes, "measure_step_seconds", lambda env: step_seconds)
        runner = BCRunner(dataset=dataset, trainer_class=BC, backend="local")
        runner.setup(cfg)
        eval_env = runner.trainer.rollout_evaluator.eval_env
        assert isinstance(eval_env, placement) and eval_env.n_envs == 2
        runner.run()
    assert (tmp_path / "state_dict.pt").is_file()


def test_relative_data_paths_start_at_the_launch_dir(cartpole_data: Path, tmp_path: Path) -> None:
    cfg, _ = bc_config("unused")
    runner = BCRunner(
        dataset={"input_data": cartpole_data.name}, launch_dir=str(cartpole_data.parent), trainer_class=BC
    )
    runner.dataset_config["dir_or_file"] = cartpole_data.name  # the seeds' alias wins when set
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path)
        runner.setup(cfg)
    assert len(runner.trainer.data) > 0
    runner.close()


class TextActions(gym.ActionWrapper):
    """CartPole commanded by text: an action space BC cannot train."""

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        self.action_space = spaces.Text(max_length=5)

    def action(self, action: str) -> int:
        return int(action == "right")


def text_action_cartpole() -> GymMazeEnv:
    return GymMazeEnv(TextActions(gym.make("CartPole-v1")))


@pytest.mark.parametrize(
    "case, error, message",
    [
        ("missing", MazeError, "runner.dataset.input_data: trajectory data .*no_such_dir does not exist"),
        ("empty", MazeError, r"no trajectory files \(\*\.traj\.npz\|\*\.pkl\) found"),
        ("other-env", MazeError, "the dataset does not fit the configured env .*Acrobot-v1.*recorded on another env"),
        ("text-actions", ConfigurationError, "behavioural cloning cannot train action head 'action' of sub-step 0"),
        ("nothing-to-select", ConfigurationError, "leave nothing to select the best model by"),
    ],
)
def test_bad_inputs_fail_with_one_clear_error(case, error, message, cartpole_data: Path, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    data = {"missing": tmp_path / "no_such_dir", "empty": tmp_path / "empty"}.get(case, cartpole_data)
    cfg, dataset = bc_config(data)
    if case == "other-env":
        cfg["env"] = {**CARTPOLE, "name": "Acrobot-v1"}
    if case == "text-actions":
        cfg["env"], cfg["wrappers"] = {"_target_": "test_bc_runners.text_action_cartpole"}, {}
    if case == "nothing-to-select":
        cfg["algorithm"].update(validation_percentage=0, n_eval_episodes=0)
    with pytest.MonkeyPatch.context() as patch, pytest.raises(error, match=message):
        patch.chdir(tmp_path)
        BCRunner(dataset=dataset, trainer_class=BC).setup(cfg)


def test_actions_outside_the_env_action_space_are_rejected(tmp_path: Path) -> None:
    data = record_cartpole(tmp_path / "data", 2)
    cfg, dataset = bc_config(data)
    cfg["wrappers"] = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path)
        runner = BCRunner(dataset=dataset, trainer_class=BC)
        runner.setup(cfg)
        bad = dict(runner.trainer.data.blocks[0].actions)
        bad["action"] = bad["action"] + 2
        with pytest.raises(ConfigurationError, match=r"values from 2 to 3 lie outside the space"):
            runner.trainer.loss.check_actions(0, bad)
    runner.close()
    assert np.all(runner.trainer.data.blocks[0].actions["action"].numpy() <= 1)


def test_bc_clones_the_greedy_policy_of_the_masked_structured_cutting_env(tmp_path: Path) -> None:
    from maze.env.examples.cutting_2d import Cutting2DGreedyPolicy, masked_struct_env_factory

    env = TrajectoryRecordingWrapper(masked_struct_env_factory())
    policy = Cutting2DGreedyPolicy()
    with SimpleTrajectoryRecordingSetup(tmp_path / "data"):
        for seed in range(3):
            observation, _ = env.reset(seed=seed)
            for _ in range(2 * 60):  # 60 env steps of two sub-steps
                action = policy.compute_action(observation, actor_id=env.actor_id())
                observation, *_ = env.step(action)
            env.flush()
    cfg, dataset = bc_config(tmp_path / "data", n_epochs=6, n_eval_episodes=0, eval_every_k_iterations=None)
    cfg["env"] = {"_target_": "maze.env.examples.cutting_2d.masked_struct_env_factory"}
    cfg["wrappers"] = {}
    cfg["model"] = packaged_config("model", "tutorial_cutting_2d_struct_masked")
    cfg["model"]["critic"] = None
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path)
        runner = BCRunner(dataset=dataset, trainer_class=BC)
        runner.setup(cfg)
        sizes = runner.trainer.data.sizes()
        assert set(sizes) == {0, 1} and sum(sizes.values()) == 288  # 80 % of 3 x 60 env steps x 2 sub-steps
        runner.run()
    scalars = read_scalars(tmp_path)
    for head in ("0/piece_idx", "1/cut_rotation", "1/cut_order"):
        accuracy = [value for _, value in sorted(scalars[f"eval_ImitationEvents/discrete_accuracy/{head}"])]
        assert accuracy[-1] >= 0.9, (head, accuracy)
