"""ActorCriticRunner on CartPole, in this process and in worker processes: the run directory, defaults, warm starts, bad inputs."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
import yaml
from checkpoint_test_support import checkpoint_dir, checkpoint_file, rewrite_checkpoint_file, training_state
from maze.env.errors import ConfigurationError
from maze.env.gym_adapter.gym_maze_env import GymMazeEnv
from maze.env.log_stats.global_state import GlobalLogState
from maze.env.utils.termination import Terminated, clear_sigterm, record_sigterm
from maze.env.vector.sequential import SequentialVectorEnv
from maze.env.vector.subproc import SubprocVectorEnv
from maze.perception.models.base_model_composer import build_model_composer
from maze.perception.models.spaces_config import SpacesConfig
from maze.perception.serialization import load_state_dict_file
from maze.train.backends import processes
from maze.train.optim import Adam, RMSprop
from maze.train.runners.env_factory import AUTO_ENVS, build_vector_env, prefers_worker_processes
from maze.train.tensorboard import read_scalars, read_texts
from maze.train.trainers.a2c import A2CAlgorithmConfig
from maze.train.trainers.impala.runner import ImpalaRunner
from runner_test_support import A2C, PPO, VECTOR_OBS_WRAPPERS, job_config, same_state, set_up
from train_test_support import small_model_config

IMPALA = "maze.train.trainers.impala.IMPALA"
DUMMY_ENV = {"_target_": "maze.env.testing.fake_envs.build_dummy_maze_env"}
SUMMARY_KEYS = {
    "env_steps",
    "run_env_steps",
    "sub_steps",
    "train_seconds",
    "env_steps_per_second",
    "best_eval_reward",
    "solved",
    "epochs",
    "stop_reason",
}
ENV_STEPS = 1 * 2 * 16 * 2
"""One epoch of two updates on rollouts of 16 steps in each of 2 envs."""


def train(directory: Path, cfg: dict, trainer: str = PPO, **kwargs: Any) -> dict[str, Any]:
    """Sets up and runs a dev runner in ``directory``; returns its training summary."""
    set_up(directory, cfg, trainer, **kwargs).run()
    return json.loads((directory / "training_summary.json").read_text())


def files_of(directory: Path) -> dict[str, tuple[bytes, int]]:
    """Contents and modification times of the files below ``directory`` (checkpoint directories included)."""
    return {
        str(path.relative_to(directory)): (path.read_bytes(), path.stat().st_mtime_ns)
        for path in sorted(directory.rglob("*"))
        if path.is_file()
    }


@pytest.fixture(scope="module")
def ppo_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The run directory of a finished PPO run on CartPole (template model)."""
    directory = tmp_path_factory.mktemp("ppo_run")
    train(directory, job_config())
    return directory


def test_dev_runner_writes_the_run_directory(ppo_run: Path) -> None:
    names = {path.name for path in ppo_run.iterdir()}
    assert {
        "state_dict.pt",
        "spaces_config.yaml",
        "model_config.yaml",
        "training_summary.json",
        "checkpoint-1",
        "policy_0.pdf",
        "critic_0.pdf",
    } <= names
    assert {path.name for path in checkpoint_dir(ppo_run).iterdir()} == {
        "last_state_dict.pt",
        "optimizer.pt",
        "training_state.yaml",
        "manifest.json",
    }
    assert any(name.startswith("events.out.tfevents") for name in names)
    assert (ppo_run / "policy_0.pdf").read_bytes().startswith(b"%PDF")

    summary = json.loads((ppo_run / "training_summary.json").read_text())
    assert set(summary) == SUMMARY_KEYS
    assert (summary["env_steps"], summary["run_env_steps"], summary["epochs"], summary["solved"]) == (
        ENV_STEPS,
        ENV_STEPS,
        1,
        False,
    )
    assert summary["stop_reason"] == "1 epochs done"
    assert summary["sub_steps"] == ENV_STEPS  # CartPole: one sub-step per env step
    assert summary["best_eval_reward"] > 0
    state = training_state(ppo_run)
    assert {key: state[key] for key in ("epochs", "env_steps", "trainer")} == {
        "epochs": 1,
        "env_steps": ENV_STEPS,
        "trainer": "PPO",
    }

    scalars = read_scalars(ppo_run)
    assert [step for step, _ in scalars["train_BaseEnvEvents/reward/mean"]] == [1]
    assert scalars["eval_BaseEnvEvents/reward/mean"] == [(1, pytest.approx(summary["best_eval_reward"]))]
    assert "CartPole-v1" in read_texts(ppo_run)["config"]


def test_training_state_records_the_best_evaluation(ppo_run: Path) -> None:
    summary = json.loads((ppo_run / "training_summary.json").read_text())
    state = training_state(ppo_run)
    assert state["best_reward"] == summary["best_eval_reward"]


def test_the_run_directory_holds_a_loadable_checkpoint(ppo_run: Path) -> None:
    spaces = SpacesConfig.load(ppo_run / "spaces_config.yaml")
    spaces.check_compatible(SpacesConfig.from_env(GymMazeEnv("CartPole-v1")))
    model_config = yaml.safe_load((ppo_run / "model_config.yaml").read_text())
    model = build_model_composer(model_config, spaces).torch_actor_critic()

    state_dict = load_state_dict_file(ppo_run / "state_dict.pt")
    model.load_state_dict(state_dict)

    assert model_config["critic"]["_target_"].endswith("StateCriticComposer")
    assert set(state_dict) == set(model.state_dict())


def test_local_runner_steps_the_envs_in_worker_processes(tmp_path: Path, capsys) -> None:
    runner = set_up(tmp_path, job_config(), A2C, backend="local")
    env = runner.trainer.collector.env
    assert isinstance(env, SubprocVectorEnv)
    assert len(env.processes) == 2 and all(process.is_alive() for process in env.processes)

    runner.run()

    assert "Training with 2 envs in worker processes" in capsys.readouterr().out
    assert not any(process.is_alive() for process in env.processes)
    summary = json.loads((tmp_path / "training_summary.json").read_text())
    assert (summary["env_steps"], summary["epochs"]) == (ENV_STEPS, 1)
    assert (tmp_path / "state_dict.pt").is_file()


def test_the_same_seeds_give_the_same_model(tmp_path: Path, single_thread) -> None:
    for name, seed in (("first", 1), ("again", 1), ("other", 2)):
        cfg = job_config()
        cfg["seeding"] = {"env_base_seed": seed, "agent_base_seed": seed}
        train(tmp_path / name, cfg)
    checkpoints = {name: (tmp_path / name / "state_dict.pt").read_bytes() for name in ("first", "again", "other")}
    assert checkpoints["first"] == checkpoints["again"] != checkpoints["other"]


@pytest.mark.parametrize(("step_seconds", "in_workers"), [(1e-5, False), (1e-2, True)])
def test_automatic_placement_keeps_cheap_envs_in_process(step_seconds: float, in_workers: bool) -> None:
    assert prefers_worker_processes(step_seconds) == in_workers


def placed_run(directory: Path, backend: str) -> dict[str, Any]:
    """What one PPO epoch with ``concurrency: 0`` and ``eval_concurrency: 0`` trained (envs, seeds, steps, weights)."""
    runner = set_up(directory, job_config(), PPO, backend=backend, concurrency=0)
    collector, evaluator = runner.trainer.collector, runner.trainer.evaluator
    placement = {
        "placement": (type(collector.env), type(evaluator.eval_env)),
        "envs": (collector.env.n_envs, evaluator.eval_env.n_envs),
        "seeds": (list(collector._seeds), evaluator.seeds),
    }
    runner.run()
    summary = json.loads((directory / "training_summary.json").read_text())
    return {
        **placement,
        "env_steps": summary["env_steps"],
        "weights": load_state_dict_file(directory / "state_dict.pt"),
    }


def test_automatic_placement_chooses_where_envs_run_never_what_is_learned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, single_thread
) -> None:
    runs = {"dev": placed_run(tmp_path / "dev", "dev")}
    for name, step_seconds in (("idle machine", 1e-5), ("busy machine", 1.0)):  # the timing decision, forced
        monkeypatch.setattr(processes, "measure_step_seconds", lambda env, seconds=step_seconds: seconds)
        runs[name] = placed_run(tmp_path / name.replace(" ", "_"), "local")

    assert runs["idle machine"]["placement"] == (SequentialVectorEnv, SequentialVectorEnv)
    assert runs["busy machine"]["placement"] == (SubprocVectorEnv, SubprocVectorEnv)
    reference = runs["dev"]
    assert reference["envs"] == (AUTO_ENVS, 2)  # 8 training envs, one evaluation env per episode
    assert reference["env_steps"] == AUTO_ENVS * 16 * 2
    for name in ("idle machine", "busy machine"):
        for key in ("envs", "seeds", "env_steps"):
            assert runs[name][key] == reference[key], (name, key)
        assert same_state(runs[name]["weights"], reference["weights"]), name


def test_a_vector_env_needs_an_env() -> None:
    with pytest.raises(ConfigurationError, match="concurrency must be at least 1"):
        build_vector_env(lambda: GymMazeEnv("CartPole-v1"), 0, subprocesses=False)


def test_vector_obs_wrappers_store_and_reload_normalization_statistics(tmp_path: Path, capsys) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    train(first, job_config(wrappers=VECTOR_OBS_WRAPPERS), normalization_samples=50)
    assert "Estimating observation normalization statistics from 50 samples" in capsys.readouterr().out
    statistics = dict(np.load(first / "statistics.npz"))
    assert statistics and all(np.isfinite(value).all() for value in statistics.values())

    train(second, job_config(wrappers=VECTOR_OBS_WRAPPERS, input_dir=first), normalization_samples=50)

    assert f"Loaded observation normalization statistics from {first / 'statistics.npz'}" in capsys.readouterr().out
    reloaded = dict(np.load(second / "statistics.npz"))
    assert reloaded.keys() == statistics.keys()
    assert all(np.array_equal(reloaded[key], statistics[key]) for key in statistics)


@pytest.mark.parametrize(
    ("model_kind", "critic", "networks"),
    [("template", "template_state", []), ("flatten_concat", "flatten_concat_state", ["FlattenConcatStateValueNet"])],
)
def test_a_model_without_critic_gets_the_default_critic(tmp_path: Path, capsys, model_kind, critic, networks) -> None:
    train(tmp_path, job_config(model=small_model_config(model_kind, "cartpole", critic=False)))

    assert f"PPO needs a critic and the model has none: using critic={critic}" in capsys.readouterr().out
    stored = yaml.safe_load((tmp_path / "model_config.yaml").read_text())["critic"]
    assert stored["_target_"] == "maze.perception.models.critics.StateCriticComposer"
    assert [net["_target_"].rsplit(".", 1)[-1] for net in stored.get("networks") or []] == networks


def test_input_dir_resumes_model_optimizer_and_best_reward(ppo_run: Path, tmp_path: Path, capsys) -> None:
    before = files_of(ppo_run)
    stored_best = training_state(ppo_run)["best_reward"]
    runner = set_up(tmp_path, job_config(input_dir=ppo_run, lr=5e-4, n_epochs=2))

    trainer = runner.trainer
    assert same_state(trainer.model.state_dict(), load_state_dict_file(ppo_run / "state_dict.pt"))
    stored_optimizer = load_state_dict_file(checkpoint_file(ppo_run, "optimizer.pt"))
    assert all(
        torch.equal(moment, stored_optimizer["optimizer"]["exp_avg"][str(index)])
        for index, moment in enumerate(trainer.optimizer.exp_avg)
    )
    # Two PPO updates of ten optimization epochs (the 32 rows of a rollout fit one minibatch of 64).
    assert float(trainer.optimizer.steps[0]) == 2 * 10
    assert trainer.optimizer.lr == 5e-4  # the configured learning rate, not the stored one
    assert trainer.best_reward == stored_best
    assert (trainer.epochs_done, trainer.env_steps) == (1, ENV_STEPS)

    runner.run()  # n_epochs counts the total: one more epoch

    output = capsys.readouterr().out
    assert f"Initialized the model from input_dir {ppo_run}" in output
    assert f"Resumed from input_dir {ppo_run}: epoch 1, {ENV_STEPS} env steps, best score" in output
    assert "optimizer state" in output
    assert "Evaluating the model of input_dir before training" in output
    # The statistics continue the resumed run's log steps: its epoch 1 was step 1, so the initial
    # evaluation is logged at step 1 and the next epoch's at step 2.
    assert [step for step, _ in read_scalars(tmp_path)["eval_BaseEnvEvents/reward/mean"]] == [1, 2]
    assert [step for step, _ in read_scalars(tmp_path)["train_BaseEnvEvents/reward/mean"]] == [2]
    assert files_of(ppo_run) == before
    summary = json.loads((tmp_path / "training_summary.json").read_text())
    # the throughput counts this run's steps only: the resumed run's are not part of train_seconds
    assert (summary["env_steps"], summary["run_env_steps"], summary["epochs"]) == (2 * ENV_STEPS, ENV_STEPS, 2)
    assert summary["env_steps_per_second"] == pytest.approx(ENV_STEPS / summary["train_seconds"], rel=1e-3)


@pytest.mark.parametrize("trainer", [PPO, A2C])
@pytest.mark.parametrize(("name", "optimizer_class"), [("adam", Adam), ("rmsprop", RMSprop)])
def test_optimizer_and_its_eps_reach_the_trainer(tmp_path: Path, trainer: str, name: str, optimizer_class) -> None:
    optimizer = set_up(tmp_path, job_config(optimizer=name, optimizer_eps=1e-5), trainer).trainer.optimizer
    assert type(optimizer) is optimizer_class and optimizer.eps == 1e-5


def test_an_unknown_optimizer_is_one_error_naming_the_known_ones(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match=r"algorithm.optimizer='sgd' is unknown; use one of adam, rmsprop"):
        set_up(tmp_path, job_config(optimizer="sgd"), A2C)


def test_impala_with_one_in_process_actor_takes_the_steps_of_a2c(tmp_path: Path) -> None:
    # On-policy (no lag, importance weights 1) V-trace gives A2C's advantages and targets: the same seeds and
    # settings train the same weights. (LunarLander-v3 with the zoo's A2C settings: identical curves.)
    # IMPALA's learner batches do not continue each other env by env, so its reward scaling restarts the running
    # returns every batch where A2C carries them on: compare without it, with one optimizer.
    cfg = job_config(
        entropy_coef=0.01, gamma=0.99, max_grad_norm=0.5, n_epochs=2, optimizer="adam", reward_scaling=False
    )
    a2c = set_up(tmp_path / "a2c", cfg, A2C)
    a2c.run()
    impala_config = {**cfg, "algorithm": {**cfg["algorithm"], "num_actors": 1, "actors_batch_size": 1}}
    impala = set_up(tmp_path / "impala", impala_config, IMPALA, ImpalaRunner, envs_per_actor=2)
    impala.run()

    assert same_state(a2c.trainer.model.state_dict(), impala.trainer.model.state_dict())
    assert (a2c.trainer.env_steps, impala.trainer.env_steps) == (2 * ENV_STEPS, 2 * ENV_STEPS)


def test_a_linear_lr_schedule_decays_to_zero_at_max_env_steps(tmp_path: Path) -> None:
    runner = set_up(tmp_path, job_config(n_epochs=0, lr_schedule="linear", max_env_steps=2 * ENV_STEPS), A2C)
    runner.run()

    # four updates, after 32, 64, 96 and 128 of 128 env steps: lr x 0.75, 0.5, 0.25, 0; logged as epoch means
    rates = [value for _, value in read_scalars(tmp_path)["train_ActorCriticEvents/learning_rate"]]
    assert rates == [pytest.approx(0.625e-3), pytest.approx(0.125e-3)] and runner.trainer.optimizer.lr == 0.0


@pytest.mark.parametrize(
    ("keys", "message"),
    [
        (
            {"lr_schedule": "linear", "max_env_steps": None},
            "algorithm.lr_schedule=linear decays the learning rate to 0 at algorithm.max_env",
        ),
        ({"lr_schedule": "cosine"}, "algorithm.lr_schedule='cosine' is unknown; use constant or linear"),
    ],
)
def test_bad_lr_schedules_are_named(keys: dict, message: str) -> None:
    with pytest.raises(ConfigurationError, match=re.escape(message)):
        A2CAlgorithmConfig.from_config(keys)


def test_max_env_steps_stops_at_the_first_epoch_end_at_or_past_the_budget(tmp_path: Path) -> None:
    summary = train(tmp_path, job_config(n_epochs=0, max_env_steps=ENV_STEPS + 1))

    assert (summary["env_steps"], summary["epochs"]) == (2 * ENV_STEPS, 2)
    assert summary["stop_reason"] == f"env-step budget reached ({2 * ENV_STEPS} >= algorithm.max_env_steps=65)"
    assert summary["best_eval_reward"] is not None  # the last epoch was evaluated
    assert training_state(tmp_path)["epochs"] == 2


def test_max_seconds_stops_after_the_epoch_that_passes_it(tmp_path: Path) -> None:
    summary = train(tmp_path, job_config(n_epochs=5, max_seconds=1e-6))

    assert summary["epochs"] == 1 and summary["stop_reason"].startswith("wall-clock limit reached (")
    assert summary["stop_reason"].endswith("s >= algorithm.max_seconds=1e-06)")
    assert summary["best_eval_reward"] is not None


def test_a_resumed_run_that_has_its_env_steps_trains_nothing(ppo_run: Path, tmp_path: Path, capsys) -> None:
    summary = train(tmp_path, job_config(input_dir=ppo_run, n_epochs=0, max_env_steps=ENV_STEPS))

    assert "********** Iteration" not in capsys.readouterr().out
    assert summary["stop_reason"].startswith("nothing to train: env-step budget reached")
    assert (summary["epochs"], summary["env_steps"], summary["run_env_steps"]) == (1, ENV_STEPS, 0)
    assert training_state(tmp_path)["epochs"] == 1  # still resumable from the new run directory


def test_an_interrupted_run_writes_its_training_summary(tmp_path: Path, monkeypatch) -> None:
    runner = set_up(tmp_path, job_config(n_epochs=3))
    rollouts = []

    def interrupt_in_the_second_epoch(policy: Any) -> Any:
        if len(rollouts) == 3:  # epoch 0 took two rollouts, epoch 1 one
            raise KeyboardInterrupt
        rollouts.append(collect(policy))
        return rollouts[-1]

    collect = runner.trainer.collector.collect
    monkeypatch.setattr(runner.trainer.collector, "collect", interrupt_in_the_second_epoch)
    with pytest.raises(KeyboardInterrupt):
        runner.run()

    summary = json.loads((tmp_path / "training_summary.json").read_text())
    assert summary["stop_reason"] == "interrupted (KeyboardInterrupt)"
    assert (summary["epochs"], summary["env_steps"], summary["run_env_steps"]) == (1, 48 * 2, 48 * 2)  # 3 rollouts
    assert summary["train_seconds"] > 0 and summary["best_eval_reward"] is not None


def test_a_sigterm_whose_exception_was_lost_ends_the_run_before_the_next_epoch(tmp_path: Path, monkeypatch) -> None:
    runner = set_up(tmp_path, job_config(n_epochs=3))
    collect = runner.trainer.collector.collect

    def lose_a_sigterm(policy: Any) -> Any:
        record_sigterm()  # as maze-run's handler does where Python drops its exception
        return collect(policy)

    monkeypatch.setattr(runner.trainer.collector, "collect", lose_a_sigterm)
    try:
        with pytest.raises(Terminated):
            runner.run()
    finally:
        clear_sigterm()

    summary = json.loads((tmp_path / "training_summary.json").read_text())
    assert summary["stop_reason"] == "interrupted (Terminated)" and summary["epochs"] == 1
    assert training_state(tmp_path)["epochs"] == 1  # the epoch it trained in is checkpointed


def test_a_model_of_input_dir_that_reaches_the_target_stops_before_training(
    ppo_run: Path, tmp_path: Path, capsys
) -> None:
    summary = train(tmp_path, job_config(input_dir=ppo_run, n_epochs=3, target_reward=-1.0))

    output = capsys.readouterr().out
    assert "Evaluating the model of input_dir before training" in output
    assert "Training stopped: target reward -1 already reached" in output
    assert "********** Iteration" not in output
    assert summary["solved"] and summary["epochs"] == 1 and summary["train_seconds"] == 0.0


def test_a_better_best_reward_of_input_dir_is_carried_over(ppo_run: Path, tmp_path: Path, capsys) -> None:
    source = tmp_path / "source"
    shutil.copytree(ppo_run, source)
    state = training_state(source)
    rewrite_checkpoint_file(source, "training_state.yaml", yaml.safe_dump({**state, "best_reward": 1e6}).encode())

    summary = train(tmp_path / "resumed", job_config(input_dir=source))

    assert summary["best_eval_reward"] == 1e6
    assert "new overall best model" not in capsys.readouterr().out
    # No evaluation beat it: the run directory keeps the (copied) input model.
    assert (tmp_path / "resumed" / "state_dict.pt").read_bytes() == (source / "state_dict.pt").read_bytes()


def test_a2c_warm_starts_from_a_ppo_run(ppo_run: Path, tmp_path: Path, capsys) -> None:
    runner = set_up(tmp_path, job_config(input_dir=ppo_run), A2C)
    assert same_state(runner.trainer.model.state_dict(), load_state_dict_file(ppo_run / "state_dict.pt"))

    runner.run()

    output = capsys.readouterr().out
    assert f"Initialized the model from input_dir {ppo_run}" in output
    assert "Evaluating the model of input_dir before training" in output
    assert json.loads((tmp_path / "training_summary.json").read_text())["epochs"] == 1


def bad_input(case: str, ppo_run: Path, tmp_path: Path) -> dict[str, Any]:
    """The job config of a bad-input case."""
    if case == "missing":
        return job_config(input_dir=tmp_path / "no_such_run")
    if case == "not_a_run":
        (tmp_path / "empty").mkdir()
        return job_config(input_dir=tmp_path / "empty")
    if case == "other_env":
        return job_config(env=DUMMY_ENV, model=small_model_config("flatten_concat", "dummy"), input_dir=ppo_run)
    if case == "other_model":
        return job_config(model=small_model_config("template", "cartpole", hidden=16), input_dir=ppo_run)
    return job_config(input_dir=ppo_run, device="cuda")


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("missing", "does not exist; pass the output directory of a previous"),
        ("not_a_run", "is not a training run directory: it has no state_dict.pt or spaces_config.yaml"),
        ("other_env", "spaces mismatch"),
        ("other_model", "has shape [8, 4], but the model expects [16, 4]"),
        pytest.param(
            "cuda",
            "CUDA is not available on this machine; use algorithm.device=cpu",
            marks=pytest.mark.skipif(torch.cuda.is_available(), reason="CUDA is available"),
        ),
    ],
)
def test_bad_inputs_raise_configuration_errors_and_leave_input_dir_alone(
    ppo_run: Path, tmp_path: Path, case: str, message: str
) -> None:
    before = files_of(ppo_run)
    cfg = bad_input(case, ppo_run, tmp_path)

    with pytest.raises(ConfigurationError, match=re.escape(message)):
        set_up(tmp_path / "run", cfg)

    assert files_of(ppo_run) == before


def test_a_failed_setup_leaves_no_stats_writer_registered(ppo_run: Path, tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError):
        set_up(tmp_path / "run", bad_input("other_env", ppo_run, tmp_path))
    assert GlobalLogState.writers == []


def test_env_workers_unpickle_the_env_factory_without_torch() -> None:
    code = "import sys, maze.train.runners.env_factory; print('torch' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"


def test_a_run_interrupted_while_evaluating_the_model_of_input_dir_writes_its_training_summary(
    ppo_run: Path, tmp_path: Path, monkeypatch
) -> None:
    runner = set_up(tmp_path, job_config(input_dir=ppo_run, n_epochs=3))

    def interrupted_evaluation(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(runner.trainer, "evaluate", interrupted_evaluation)
    with pytest.raises(KeyboardInterrupt):
        runner.run()

    summary = json.loads((tmp_path / "training_summary.json").read_text())
    assert summary["stop_reason"] == "interrupted (KeyboardInterrupt)"
    assert (summary["epochs"], summary["run_env_steps"]) == (1, 0)  # the resumed run's epoch, nothing new
