"""ES: flat parameters, the shared noise table, rank shaping, optimizers, config checks, ESTrainer via ESRunner in this process."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import numpy as np
import pytest
import torch
from es_test_support import AbortingWrapper, CountingWrapper, es_job_config, set_up_es
from maze.env.errors import ConfigurationError, MazeError
from maze.env.gym_adapter.gym_maze_env import GymMazeEnv
from maze.perception.models.base_model_composer import build_model_composer
from maze.perception.models.spaces_config import SpacesConfig
from maze.train.distributed.es import noise_table
from maze.train.trainers.es import (
    SGD,
    Adam,
    ESAlgorithmConfig,
    ESRunner,
    ESTrainer,
    SharedNoiseTable,
    get_flat_parameters,
    set_flat_parameters,
)
from maze.train.trainers.es.gradient import centered_ranks, es_gradient
from train_test_support import small_model_config

ES_EVENTS = ("policy_grad_norm", "policy_l2_norm", "update_ratio", "total_step_count", "real_time")


def cartpole_policy() -> torch.nn.Module:
    spaces = SpacesConfig.from_env(GymMazeEnv("CartPole-v1"))
    return build_model_composer(small_model_config("template", "cartpole", critic=False), spaces).torch_policy()


def test_set_flat_parameters_of_get_flat_parameters_is_the_identity() -> None:
    policy = cartpole_policy()
    before = {name: tensor.clone() for name, tensor in policy.state_dict()["policy_0"].items()}
    flat = get_flat_parameters(policy)
    assert flat.shape == (sum(p.numel() for p in policy.parameters()),)
    set_flat_parameters(policy, get_flat_parameters(policy))
    after = policy.state_dict()["policy_0"]
    assert all(torch.equal(before[name], after[name]) for name in before)

    changed = flat + torch.arange(flat.numel(), dtype=torch.float32)
    set_flat_parameters(policy, changed)
    assert torch.equal(get_flat_parameters(policy), changed)
    assert not torch.equal(get_flat_parameters(policy), flat)


def test_noise_table_is_reproducible_from_its_seed_and_shared_by_handle() -> None:
    table, same, other = SharedNoiseTable(10_000, seed=7), SharedNoiseTable(10_000, seed=7), SharedNoiseTable(10_000, 8)
    try:
        assert np.array_equal(table.noise, same.noise)
        assert not np.array_equal(table.noise, other.noise)
        assert table.noise.dtype == np.float32 and abs(float(table.noise.std()) - 1.0) < 0.05
        attached = pickle.loads(pickle.dumps(table))  # what a worker process receives
        assert len(pickle.dumps(table)) < 200  # a handle, not the data
        assert attached.name == table.name and np.array_equal(attached.noise, table.noise)
        assert not attached.noise.flags.writeable
        assert np.shares_memory(table.get(5, 3), table.noise)
        attached.close()
        assert Path("/dev/shm", table.name).exists()  # a worker closing its view leaves the owner's table
    finally:
        for noise_table in (table, same, other):
            noise_table.close()
    assert not Path("/dev/shm", table.name).exists()


def test_noise_table_chunks_filled_in_parallel_do_not_depend_on_the_thread_count(monkeypatch) -> None:
    monkeypatch.setattr(noise_table, "CHUNK", 1_000)  # 10 chunks of independently seeded noise
    tables = []
    for cpus in (1, 4):
        monkeypatch.setattr(noise_table.os, "cpu_count", lambda cpus=cpus: cpus)
        tables.append(SharedNoiseTable(10_000, seed=7))
    try:
        first, second = (table.noise for table in tables)
        assert np.array_equal(first, second)
        assert not np.array_equal(first[:1_000], first[1_000:2_000])  # each chunk its own stream
        assert abs(float(first.mean())) < 0.05 and abs(float(first.std()) - 1.0) < 0.05
    finally:
        for table in tables:
            table.close()


def test_noise_table_shorter_than_the_policy_is_a_configuration_error() -> None:
    table = SharedNoiseTable(100)
    try:
        with pytest.raises(ConfigurationError, match="runner.shared_noise_table_size to at least 500"):
            table.sample_index(np.random.default_rng(0), 500)
    finally:
        table.close()
    with pytest.raises(ConfigurationError, match="shared_noise_table_size must be at least 1"):
        SharedNoiseTable(0)


def test_centered_ranks_and_the_gradient_estimate() -> None:
    ranks = centered_ranks(np.array([[10.0, -5.0], [3.0, 100.0]]))
    np.testing.assert_allclose(ranks, [[1 / 6, -0.5], [-1 / 6, 0.5]], rtol=1e-6)
    rng = np.random.default_rng(0)
    direction = rng.standard_normal(50)
    noise = rng.standard_normal((400, 50)).astype(np.float32)
    returns = np.stack([noise @ direction, -(noise @ direction)], axis=1)  # linear objective f(x) = x . direction
    estimate = es_gradient(returns, noise)
    cosine = estimate @ direction / (np.linalg.norm(estimate) * np.linalg.norm(direction))
    assert cosine > 0.9


@pytest.mark.parametrize("optimizer", [Adam(0.05), SGD(0.05, momentum=0.9)])
def test_optimizers_minimize_and_resume_from_their_state(optimizer: object) -> None:
    theta = torch.tensor([3.0, -2.0, 1.0])
    for _ in range(400):
        ratio = optimizer.update(theta, 2 * theta)  # gradient of |theta|^2
    assert float(theta.norm()) < 0.1 and ratio >= 0
    state = optimizer.state_dict()
    clone = type(optimizer)(0.05)
    clone.load_state_dict(state)
    a, b = theta.clone(), theta.clone()
    optimizer.update(a, 2 * a)
    clone.update(b, 2 * b)
    assert torch.equal(a, b)


def test_config_defaults_ranges_and_consistency() -> None:
    config = ESAlgorithmConfig.from_config({})
    assert (config.n_rollouts_per_update, config.noise_stddev, config.l2_penalty) == (10, 0.02, 0.005)
    assert config.optimizer == {"_target_": "maze.train.trainers.es.optimizers.adam.Adam", "step_size": 0.01}
    with pytest.raises(ConfigurationError, match=r"algorithm.noise_stddev=0 is out of range; it must be > 0"):
        ESAlgorithmConfig.from_config({"noise_stddev": 0})
    with pytest.raises(ConfigurationError, match="did you mean 'n_rollouts_per_update'"):
        ESAlgorithmConfig.from_config({"n_rollout_per_update": 3})
    with pytest.raises(ConfigurationError, match="both 0"):
        ESAlgorithmConfig.from_config({"n_rollouts_per_update": 0, "n_timesteps_per_update": 0})


def test_unknown_optimizer_is_a_configuration_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="no_such_optimizer"):
        set_up_es(tmp_path, es_job_config(optimizer={"_target_": "maze.train.no_such_optimizer.Adam", "step_size": 1}))


def test_dev_runner_trains_prints_banners_and_es_events(tmp_path: Path, recorder, capsys) -> None:
    runner = set_up_es(tmp_path, es_job_config(n_timesteps_per_update=300))
    assert isinstance(runner.trainer, ESTrainer)
    start = get_flat_parameters(runner.trainer.torch_policy)
    runner.run()
    output = capsys.readouterr().out
    banners = ["Init Shared Noise Table", "Trainer Setup", "Run Trainer", "Iteration 0", "Iteration 1"]
    positions = [output.index(f"********** {banner} **********") for banner in banners]
    assert positions == sorted(positions)
    assert not torch.equal(get_flat_parameters(runner.trainer.torch_policy), start)
    for event in ES_EVENTS:
        assert len(recorder.values("train", "ESEvents", event)) == 2, event
    steps = recorder.values("train", "ESEvents", "total_step_count")
    assert steps[0] >= 300 and steps[1] >= steps[0] + 300  # both minimums hold per iteration
    assert recorder.values("train", "ESEvents", "total_episode_count")[0] >= 4
    assert len(recorder.values("eval", "BaseEnvEvents", "reward", "mean")) == 2
    summary = json.loads((tmp_path / "training_summary.json").read_text())
    assert (summary["epochs"], summary["env_steps"]) == (2, steps[1])
    assert {"state_dict.pt", "checkpoint-2", "policy_0.pdf"} <= {p.name for p in tmp_path.iterdir()}
    assert {"optimizer.pt", "training_state.yaml", "last_state_dict.pt"} <= {
        p.name for p in (tmp_path / "checkpoint-2").iterdir()
    }
    assert runner.shared_noise.noise.size == 0  # the table is released after the run
    assert not Path("/dev/shm", runner.shared_noise.name).exists()


def test_policy_wrapper_acts_in_training_and_evaluation(tmp_path: Path) -> None:
    wrapper = {"_target_": "es_test_support.CountingWrapper"}
    CountingWrapper.calls = 0
    runner = set_up_es(tmp_path, es_job_config(policy_wrapper=wrapper, n_epochs=1))
    assert isinstance(runner.trainer.policy, CountingWrapper)
    runner.run()
    assert CountingWrapper.calls > 0


def test_aborted_rollouts_are_dropped_and_counted(tmp_path: Path, recorder) -> None:
    AbortingWrapper.calls = 0
    cfg = es_job_config(policy_wrapper={"_target_": "es_test_support.AbortingWrapper"}, n_timesteps_per_update=400)
    set_up_es(tmp_path, cfg).run()
    aborted = recorder.values("train", "ESEvents", "aborted_rollouts")
    assert sum(aborted) > 0
    assert all(steps >= 400 for steps in np.diff([0, *recorder.values("train", "ESEvents", "total_step_count")]))


def test_a_nan_observation_stops_the_training_naming_key_value_and_step(tmp_path: Path) -> None:
    cfg = es_job_config()
    cfg["env"] = {"_target_": "es_test_support.nan_observation_cartpole"}
    runner = set_up_es(tmp_path, cfg)
    with pytest.raises(
        MazeError,
        match=r"epoch 0: a training env \(nan_observation_cartpole\) returned the observation 'observation'\[2\] = nan ",
    ):
        runner.run()
    assert not (tmp_path / "training_summary.json").exists()


def test_a_nan_reward_names_the_epoch_env_and_rollout_pair(tmp_path: Path) -> None:
    cfg = es_job_config()
    cfg["env"] = {"_target_": "es_test_support.nan_reward_cartpole"}
    with pytest.raises(
        MazeError,
        match=r"epoch 0: an episode of a training env \(nan_reward_cartpole\) returned nan as its return \(rollout "
        r"pair 0 of the epoch, positive perturbation\)",
    ):
        set_up_es(tmp_path, cfg).run()


def test_dev_runner_warm_starts_from_input_dir(tmp_path: Path, capsys) -> None:
    first = set_up_es(tmp_path / "first", es_job_config(n_epochs=1))
    first.run()
    capsys.readouterr()
    best = torch.load(tmp_path / "first" / "state_dict.pt", weights_only=True)
    second = set_up_es(tmp_path / "second", {**es_job_config(n_epochs=2), "input_dir": str(tmp_path / "first")})
    loaded = second.trainer.torch_policy.state_dict()
    assert all(torch.equal(best["policy_0"][k], loaded["policy_0"][k]) for k in best["policy_0"])
    assert torch.equal(second.trainer.theta, get_flat_parameters(second.trainer.torch_policy))
    assert second.trainer.best_reward == first.model_selection.best_reward
    assert torch.equal(
        second.trainer.optimizer.state_dict()["exp_avg"]["0"], first.trainer.optimizer.state_dict()["exp_avg"]["0"]
    )
    assert second.trainer.epochs_done == 1  # n_epochs counts the total: one more iteration
    second.run()
    output = capsys.readouterr().out
    assert f"Resumed from input_dir {tmp_path / 'first'}: epoch 1, " in output and "optimizer state" in output
    assert "Evaluating the model of input_dir before training" in output
    assert output.count("********** Iteration") == 1


def test_optimizer_state_of_other_parameters_is_rejected(tmp_path: Path) -> None:
    runner = set_up_es(tmp_path, es_job_config(n_epochs=1))
    with pytest.raises(ConfigurationError, match="optimizer state belongs to other parameters"):
        runner.trainer.load_optimizer_state({"velocity": torch.zeros(3)})
    runner.run()


def test_the_runner_is_a_documented_target() -> None:
    assert ESRunner.__module__ == "maze.train.trainers.es.runner"
    from maze.train.trainers import es

    assert es.ESRunner is ESRunner


def test_without_evaluation_the_training_return_selects_the_model(tmp_path: Path, recorder, capsys) -> None:
    runner = set_up_es(tmp_path, es_job_config(n_epochs=2), n_eval_rollouts=0)
    assert runner.trainer.evaluator is None
    runner.run()
    train_means = recorder.values("train", "BaseEnvEvents", "reward", "mean")
    assert recorder.values("eval", "BaseEnvEvents", "reward", "mean") == []
    summary = json.loads((tmp_path / "training_summary.json").read_text())
    assert summary["best_eval_reward"] == pytest.approx(max(train_means))
    assert f"-> new overall best model {train_means[0]:.5f}!" in capsys.readouterr().out
