"""What a ``maze-run -cn conf_train`` job leaves behind, and where its envs run (runners, structured envs)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from cli_support import (
    BEST_MODEL_LINE,
    EPOCH_START,
    EVAL_REWARD_MEAN,
    SHORT_EPOCHS,
    TrainingRun,
    assert_success,
    best_model_scores,
    cartpole,
    console_table_rows,
    maze_run,
    seeds,
    training_state,
    training_summary,
)
from maze.perception.serialization import load_state_dict_file
from maze.train.tensorboard import read_scalars, read_texts

RUN_FILES = (
    "state_dict.pt",
    "spaces_config.yaml",
    "model_config.yaml",
    "checkpoint-2/optimizer.pt",
    "checkpoint-2/training_state.yaml",
    "checkpoint-2/last_state_dict.pt",
    "checkpoint-2/manifest.json",
    "training_summary.json",
    "maze_cli.log",
    ".hydra/config.yaml",
    ".hydra/overrides.yaml",
)
SUMMARY_KEYS = {"env_steps", "train_seconds", "env_steps_per_second", "best_eval_reward", "solved", "epochs"}
ONE_EPOCH = ("algorithm.n_epochs=1", *SHORT_EPOCHS, "algorithm.rollout_evaluator.n_episodes=2")


def test_run_directory_holds_checkpoint_spaces_summary_logs_and_graphs(tiny_ppo_run: TrainingRun) -> None:
    run_dir = tiny_ppo_run.run_dir
    for name in RUN_FILES:
        assert (run_dir / name).is_file(), name
    for pattern in ("policy_*.pdf", "critic_*.pdf", "events.out.tfevents.*"):
        found = list(run_dir.glob(pattern))
        assert found and all(path.stat().st_size > 0 for path in found), pattern
    assert all(path.read_bytes().startswith(b"%PDF") for path in run_dir.glob("*.pdf"))

    state_dict = load_state_dict_file(run_dir / "state_dict.pt")
    assert any(name.startswith("critic") for name in state_dict)
    summary = training_summary(run_dir)
    assert SUMMARY_KEYS <= set(summary) and summary["epochs"] == 2
    assert summary["env_steps"] == 2 * 2 * 32 * 8 and summary["solved"] is False
    assert summary["best_eval_reward"] == pytest.approx(best_model_scores(tiny_ppo_run.result.stdout)[-1])
    assert training_state(run_dir)["trainer"] == "PPO"
    assert "CartPole-v1" in (run_dir / ".hydra/config.yaml").read_text()
    assert "maze-run -cn conf_train env.name=CartPole-v1" in (run_dir / "maze_cli.log").read_text()


def test_tensorboard_events_hold_train_and_eval_scalars_config_and_command(tiny_ppo_run: TrainingRun) -> None:
    scalars = read_scalars(tiny_ppo_run.run_dir)
    for tag in ("train_BaseEnvEvents/reward/mean", EVAL_REWARD_MEAN, "train_ActorCriticEvents/policy_loss/0"):
        assert [step for step, _ in scalars[tag]] == [1, 2], tag
    texts = read_texts(tiny_ppo_run.run_dir)
    assert "name: CartPole-v1" in texts["config"]
    assert "maze-run -cn conf_train env.name=CartPole-v1 algorithm=ppo" in texts["command"]


def test_console_shows_per_epoch_tables_with_losses_and_the_best_model(tiny_ppo_run: TrainingRun) -> None:
    output = tiny_ppo_run.result.stdout
    for row in ("policy_loss", "critic_value_loss", "policy_entropy", "learning_rate"):
        assert console_table_rows(output, "train", "ActorCriticEvents", row) == [1, 2], row
    assert console_table_rows(output, "eval", "BaseEnvEvents", "reward")[-1] == 2
    assert output.count(EPOCH_START) == 2
    assert BEST_MODEL_LINE in output
    assert f"Outputs: {tiny_ppo_run.run_dir}" in output


@pytest.mark.parametrize(
    ("runner", "placement"),
    [
        (("runner=local", "runner.concurrency=2"), "Training with 2 envs in worker processes"),
        (("runner=local",), "Training with 8 envs in this process"),
    ],
    ids=["local-2-workers", "local-auto"],
)
def test_local_runner_places_envs_by_concurrency(runner: tuple[str, ...], placement: str, tmp_path: Path) -> None:
    """``runner.concurrency=2`` uses worker processes; ``0`` keeps cheap CartPole envs in this process."""
    run_dir = tmp_path / "run"
    result = maze_run(*cartpole(), *runner, *ONE_EPOCH, *seeds(1), run_dir=run_dir)
    assert_success(result)
    assert placement in result.stdout
    assert training_summary(run_dir)["epochs"] == 1
    assert (run_dir / "state_dict.pt").is_file()


FAKE_ENVS = {
    "multi_step": "_target_: maze.env.testing.fake_envs.build_multi_step_env\nend_between_sub_steps: false\n",
    "multi_agent": "_target_: maze.env.testing.fake_envs.build_multi_agent_env\nn_agents: 2\n"
    "end_between_sub_steps: false\n",
}


@pytest.mark.parametrize("runner", ["dev", "local"])
@pytest.mark.parametrize("env", sorted(FAKE_ENVS))
def test_structured_fake_envs_train_from_user_env_configs(env: str, runner: str, tmp_path: Path) -> None:
    """A user's env config (added with ``hydra.searchpath``) trains a multi-step or multi-agent env.

    ``env._target_=<fake env factory>`` alone does not work: the default ``env/gym_env.yaml``
    also passes ``name`` and ``render_mode`` to the factory, and Hydra cannot delete the null
    ``render_mode`` with ``~env.render_mode``.
    """
    (tmp_path / "conf" / "env").mkdir(parents=True)
    (tmp_path / "conf" / "env" / f"fake_{env}.yaml").write_text(FAKE_ENVS[env])
    run_dir = tmp_path / "run"
    result = maze_run(
        "-cn",
        "conf_train",
        f"hydra.searchpath=[file://{tmp_path / 'conf'}]",
        f"env=fake_{env}",
        "algorithm=ppo",
        "model=flatten_concat",
        "critic=flatten_concat_state",
        f"runner={runner}",
        "runner.concurrency=2",
        *ONE_EPOCH,
        *seeds(2),
        run_dir=run_dir,
    )
    assert_success(result)
    spaces = yaml.safe_load((run_dir / "spaces_config.yaml").read_text())
    actors = [(sub_step["step_key"], sub_step["agent_count"]) for sub_step in spaces["sub_steps"]]
    assert actors == {"multi_step": [(0, 1), (1, 1)], "multi_agent": [(0, 2)]}[env]
    assert sorted(path.name for path in run_dir.glob("*.pdf")) == [
        f"{net}_{key}.pdf" for net in ("critic", "policy") for key, _ in actors
    ]
    assert training_summary(run_dir)["env_steps"] > 0
    scalars = read_scalars(run_dir)
    # One policy loss per sub-step (multi-step) or per agent (multi-agent).
    assert {"train_ActorCriticEvents/policy_loss/0", "train_ActorCriticEvents/policy_loss/1", EVAL_REWARD_MEAN} <= set(
        scalars
    )
