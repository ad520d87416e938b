"""RunContext: the documented checks, objects instead of configs, rollouts, CLI parity and bad input."""

from __future__ import annotations

import json
import numbers
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from maze.env.errors import ConfigurationError
from maze.env.gym_adapter.gym_maze_env import GymMazeEnv
from maze.env.log_stats.base_events import BaseEnvEvents
from maze.env.log_stats.global_state import get_log_step
from maze.env.log_stats.log_stats_env import stats_value
from maze.env.wrappers.log_stats_wrapper import LogStatsWrapper
from maze.rl.api import InvalidSpecificationError, RolloutStats, RunContext, RunContextError, RunMode

TINY = {
    "algorithm.n_epochs": 1,
    "algorithm.epoch_length": 2,
    "algorithm.n_rollout_steps": 20,
    "algorithm.rollout_evaluator.n_episodes": 2,
    "runner.concurrency": 2,
}
"""A training run of a few hundred CartPole steps."""


def cartpole() -> GymMazeEnv:
    return GymMazeEnv("CartPole-v1")


def logged_cartpole() -> LogStatsWrapper:
    return LogStatsWrapper.wrap(cartpole())


class PidRecordingFactory:
    """Builds CartPole envs and records the id of the process that built each."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def __call__(self) -> GymMazeEnv:
        (self.directory / f"pid-{os.getpid()}").touch()
        return cartpole()


def test_train_evaluate_and_compute_action_with_a_lambda_env_factory(tmp_path: Path) -> None:
    rc = RunContext(
        env=lambda: GymMazeEnv("CartPole-v1"),
        algorithm="a2c",
        model="vector_obs",
        critic="template_state",
        overrides=TINY,
        silent=True,
        run_dir=tmp_path / "run",
    )
    best = rc.train()
    assert isinstance(best, float) and best > 0
    for name in ("state_dict.pt", "spaces_config.yaml", "training_summary.json", "maze_cli.log", ".hydra/config.yaml"):
        assert (rc.run_dir / name).exists(), name
    assert "env: <object" in (rc.run_dir / ".hydra" / "config.yaml").read_text()
    assert "algorithm='a2c'" in (rc.run_dir / ".hydra" / "overrides.yaml").read_text()
    assert "Training stopped" in (rc.run_dir / "maze_cli.log").read_text()
    assert rc.evaluate(n_episodes=2) > 0

    observation, _ = cartpole().reset(seed=0)
    action = rc.compute_action(observation)
    assert list(action) == ["action"]
    assert isinstance(action["action"], numbers.Integral) and int(action["action"]) in (0, 1)

    from maze.train.evaluators import RolloutEvaluator

    evaluator = RolloutEvaluator(LogStatsWrapper.wrap(cartpole(), logging_prefix="eval"), n_episodes=1)
    assert evaluator.evaluate(rc.policy) > 0
    with pytest.raises(RunContextError, match="ran already"):
        rc.train()


def test_silent_prints_nothing_and_the_default_run_dir_follows_the_cli_pattern(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    monkeypatch.chdir(tmp_path)
    rc = RunContext(env="gym_env", algorithm="ppo", model="vector_obs", overrides=TINY, silent=True)
    assert rc.run_dir.parent == tmp_path / "outputs" / "gym_env-vector_obs-ppo-dev"
    rc.train()
    assert capsys.readouterr().out == ""
    assert (rc.config["runner"]["_target_"], rc.config["runner"]["backend"]) == (
        "maze.train.trainers.ppo.runner.PPORunner",
        "dev",
    )
    assert rc.runner.trainer.__class__.__name__ == "PPO"


def test_runner_local_steps_the_envs_in_child_processes(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    pids.mkdir()
    rc = RunContext(
        env=PidRecordingFactory(pids),
        algorithm="ppo",
        model="vector_obs",
        runner="local",
        overrides=TINY,
        silent=True,
        run_dir=tmp_path / "run",
    )
    rc.train()
    builders = {int(path.name.split("-")[1]) for path in pids.iterdir()}
    assert builders - {os.getpid()}, "no env was built in a child process"


def test_algorithm_config_instance_composers_and_a_built_evaluator(tmp_path: Path) -> None:
    from maze.distributions import DistributionMapper
    from maze.env.vector.sequential import SequentialVectorEnv
    from maze.perception.models.critics import SharedStateCriticComposer
    from maze.perception.models.policies import ProbabilisticPolicyComposer
    from maze.train import A2CAlgorithmConfig, RolloutEvaluator

    env = cartpole()
    net = "maze.perception.models.built_in.flatten_concat."
    policy = ProbabilisticPolicyComposer(
        action_spaces_dict=env.action_spaces_dict,
        observation_spaces_dict=env.observation_spaces_dict,
        agent_counts_dict={0: 1},
        distribution_mapper=DistributionMapper(env.action_space, []),
        networks=[{"_target_": net + "FlattenConcatPolicyNet", "hidden_units": [16], "non_lin": "torch.nn.Tanh"}],
        substeps_with_separate_agent_nets=[],
    )
    critic = SharedStateCriticComposer(
        observation_spaces_dict=env.observation_spaces_dict,
        agent_counts_dict={0: 1},
        networks=[{"_target_": net + "FlattenConcatStateValueNet", "hidden_units": [16], "non_lin": "torch.nn.Tanh"}],
        stack_observations=True,
    )
    evaluator = RolloutEvaluator(eval_env=SequentialVectorEnv([logged_cartpole]), n_episodes=1, deterministic=True)
    algorithm = A2CAlgorithmConfig(
        n_epochs=1, epoch_length=2, n_rollout_steps=20, lr=0.0005, rollout_evaluator=evaluator
    )
    rc = RunContext(
        env=cartpole, algorithm=algorithm, policy=policy, critic=critic, silent=True, run_dir=tmp_path / "run"
    )
    assert rc.config["algorithm"]["lr"] == 0.0005
    assert "a2c" in json.dumps(rc.config["runner"]).lower()
    rc.train()
    assert rc.runner.trainer.evaluator is evaluator
    assert rc.runner.composer.policy is policy
    assert (rc.run_dir / "state_dict.pt").is_file()


def test_rollouts_return_the_episode_statistics_by_name(tmp_path: Path) -> None:
    rc = RunContext(
        configuration="rollout",
        env="gym_env",
        policy="random_policy",
        overrides={"env.name": "CartPole-v1", "seeding.env_base_seed": 3},
        silent=True,
        run_dir=tmp_path / "rollout",
    )
    stats = rc.rollout(n_episodes=3, max_episode_steps=20)
    assert isinstance(stats, RolloutStats)
    assert stats["BaseEnvEvents/reward/episode_count"] == 3
    assert 0 < stats["BaseEnvEvents/reward/mean"] <= stats["BaseEnvEvents/reward/max"] <= 20
    assert stats["BaseEnvEvents/reward/mean"] == stats_value(stats.log_stats, BaseEnvEvents.reward, "mean")
    assert "BaseEnvEvents/reward/mean" in repr(stats) and dict(stats)["BaseEnvEvents/reward/min"] > 0
    with pytest.raises(KeyError, match=r"did you mean \['BaseEnvEvents/reward/mean'"):
        stats["BaseEnvEvents/reward/maen"]
    assert len(list((rc.run_dir / "trajectory_data").glob("*.traj.npz"))) == 3
    with pytest.raises(RunContextError, match="configuration='train'"):
        rc.train()


def test_a_solved_cartpole_policy_rolls_out_to_the_envs_own_limit_by_default(tmp_path: Path) -> None:
    rc = RunContext(
        configuration="rollout",
        env="gym_env",
        policy={"_target_": "maze.env.agent.dummy_cartpole_policy.DummyCartPolePolicy"},
        overrides={"env.name": "CartPole-v1", "seeding.env_base_seed": 3, "runner": "sequential"},
        silent=True,
        run_dir=tmp_path / "rollout",
    )
    stats = rc.rollout(n_episodes=5, record_trajectory=False, record_event_logs=False)  # maze-run's runner defaults
    assert stats["BaseEnvEvents/reward/mean"] > 400  # not cut at 200: CartPole-v1 ends its episodes at 500


def test_a_trained_policy_rolls_out_in_a_rollout_context(tmp_path: Path) -> None:
    trained = RunContext(env=cartpole, algorithm="ppo", overrides=TINY, silent=True, run_dir=tmp_path / "train")
    trained.train()
    rc = RunContext(
        configuration=RunMode.ROLLOUT, env=cartpole, policy=trained.policy, silent=True, run_dir=tmp_path / "r"
    )
    stats = rc.rollout(n_episodes=2, record_trajectory=False, record_event_logs=False)
    assert stats_value(stats.log_stats, BaseEnvEvents.reward, "episode_count") == 2
    assert get_log_step() == 1  # the rollout's own first table, not the step after the training's epochs


def maze_run_executable() -> str:
    found = shutil.which("maze-run", path=str(Path(sys.executable).parent)) or shutil.which("maze-run")
    assert found, "the maze-run console script is not installed"
    return found


def eval_rewards(run_dir: Path) -> list[float]:
    from maze.train.tensorboard import read_scalars

    return [value for _, value in read_scalars(run_dir)["eval_BaseEnvEvents/reward/mean"]]


def test_run_context_and_cli_with_the_same_seed_give_identical_evaluation_rewards(tmp_path: Path) -> None:
    settings: dict[str, Any] = {
        **TINY,
        "algorithm.n_epochs": 2,
        "env.name": "CartPole-v1",
        "seeding.env_base_seed": 11,
        "seeding.agent_base_seed": 12,
    }
    arguments = ["algorithm=ppo", "model=vector_obs", "critic=template_state", "runner=dev"]
    arguments += [f"{key}={value}" for key, value in settings.items()]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    cli = subprocess.run(
        [maze_run_executable(), "-cn", "conf_train", *arguments, f"hydra.run.dir={tmp_path / 'cli'}"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert cli.returncode == 0, cli.stderr
    rc = RunContext(
        env="gym_env",
        algorithm="ppo",
        model="vector_obs",
        critic="template_state",
        runner="dev",
        overrides=settings,
        silent=True,
        run_dir=tmp_path / "rc",
    )
    best = rc.train()
    cli_rewards, rc_rewards = eval_rewards(tmp_path / "cli"), eval_rewards(tmp_path / "rc")
    assert len(rc_rewards) == 2
    assert rc_rewards == cli_rewards
    assert best == json.loads((tmp_path / "cli" / "training_summary.json").read_text())["best_eval_reward"]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"algorithm": "ppx"}, r"(?s)algorithm/ppx.*Did you mean algorithm=ppo"),
        ({"model": {"_target_": "maze_rllib.models.RLlibModel"}}, r"model: .*no module 'maze_rllib' is installed"),
        ({"model": "rllib"}, r"(?s)model='rllib': .*model/rllib.*once that package is installed"),
        (
            {"env": "gym_env", "overrides": {"env._target_": "maze_envs.logistics.make_env"}},
            r"env: .*no module 'maze_envs' is installed",
        ),
        ({"env": GymMazeEnv("CartPole-v1")}, r"env: got an env instance \(GymMazeEnv\).*factory"),
        ({"policy": "random_policy"}, r"policy='random_policy': policy names are rollout policies"),
        ({"configuration": "deploy"}, r"configuration='deploy' is not a run mode"),
        ({"algorithm": "ppo", "overrides": {"algorithm.lrr": 0.1}}, r"algorithm.lrr.*Did you mean 'algorithm.lr'"),
        ({"overrides": {"modle.policy": {"_target_": "x"}}}, r"no 'modle'.*Did you mean 'model'"),
        ({"algorithm": object()}, r"algorithm: expected an algorithm name"),
        (
            {"algorithm": "rllib-ppo"},
            r"algorithm='rllib-ppo': RLlib runs are CLI-only: maze-run -cn conf_rllib rllib/algorithm=ppo",
        ),
    ],
)
def test_bad_arguments_raise_one_message_naming_the_argument(arguments: dict, message: str) -> None:
    with pytest.raises(InvalidSpecificationError, match=message):
        RunContext(**arguments)


def test_bad_algorithm_keys_of_train_are_reported_like_the_cli(tmp_path: Path) -> None:
    rc = RunContext(env=cartpole, algorithm="ppo", overrides=TINY, silent=True, run_dir=tmp_path / "run")
    with pytest.raises(ConfigurationError, match="did you mean 'lr'"):
        rc.train(lrr=0.1)
    with pytest.raises(RunContextError, match="call train"):
        rc.evaluate()
    with pytest.raises(RunContextError, match=r"compute_maze_action\(\) needs a trained model"):
        rc.compute_maze_action([0.0, 0.0, 0.0, 0.0])
