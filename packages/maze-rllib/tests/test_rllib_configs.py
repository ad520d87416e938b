"""conf_rllib's configs fail early with one line naming the fix; the Maze distribution behind RLlib's interface."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from gymnasium import spaces
from hydra import compose, initialize_config_module
from maze.distributions import DistributionMapper
from maze.env.errors import ConfigurationError
from maze.rllib.distribution import MazeActionDistribution, MazeActionHeads
from ray_runs import set_up_job

CARTPOLE = ("env.name=CartPole-v1", "model=vector_obs", "algorithm.max_iterations=1")


@pytest.mark.parametrize(
    ("override", "expected"),
    [
        (
            "+algorithm.config.num_sgd_iter=3",
            "algorithm.config.num_sgd_iter (renamed: use algorithm.config.num_epochs)",
        ),
        (
            "+algorithm.config.rollout_fragment_lenght=50",
            "did you mean algorithm.config.rollout_fragment_length",
        ),
    ],
)
def test_unknown_and_renamed_rllib_keys_name_the_current_key(
    override: str, expected: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(ConfigurationError, match="PPOConfig has no key") as raised:
        set_up_job("conf_rllib", (*CARTPOLE, override), tmp_path / "run", monkeypatch)

    assert expected in str(raised.value)


def test_sac_with_a_maze_model_asks_for_rllibs_default_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    overrides = ("env.name=Pendulum-v1", "rllib/algorithm=sac", "algorithm.max_iterations=1")
    with pytest.raises(ConfigurationError, match="needs an RLModule with QNetAPI.*model=rllib"):
        set_up_job("conf_rllib", overrides, tmp_path / "run", monkeypatch)


def test_unknown_default_model_keys_get_the_closest_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    overrides = ("env.name=CartPole-v1", "model=rllib", "+model.fcnet_hidden=[8]", "algorithm.max_iterations=1")
    with pytest.raises(ConfigurationError, match=r"model.fcnet_hidden \(did you mean model.fcnet_hiddens\?\)"):
        set_up_job("conf_rllib", overrides, tmp_path / "run", monkeypatch)


def test_a3c_runs_its_successor_appo() -> None:
    with initialize_config_module("maze.conf", version_base="1.3"):
        a3c = compose("conf_rllib", overrides=["rllib/algorithm=a3c"])
        appo = compose("conf_rllib", overrides=["rllib/algorithm=appo"])

    assert a3c.algorithm == appo.algorithm
    assert a3c.algorithm.name == "APPO"


def test_the_rllib_distribution_is_mazes_joint_distribution_of_the_heads() -> None:
    action_space = spaces.Dict({"move": spaces.Discrete(3), "pick": spaces.MultiBinary(2)})
    heads = MazeActionHeads.from_mapper(DistributionMapper(action_space, []), action_space)
    torch.manual_seed(0)
    logits = {"move": torch.randn(5, 3), "pick": torch.randn(5, 2)}
    logits["move"][:, 1] = float("-inf")  # a masked action

    flat = heads.flatten(logits)
    distribution = MazeActionDistribution.for_heads(heads).from_logits(flat)
    maze = heads.distribution(flat)

    assert flat.shape == (5, 5)
    samples = [distribution.sample() for _ in range(200)]
    assert all((sample["move"] != 1).all() for sample in samples)  # the masked action is never drawn
    actions = samples[0]
    torch.testing.assert_close(distribution.logp(actions), maze.log_prob(actions))
    torch.testing.assert_close(distribution.entropy(), maze.entropy())
    torch.testing.assert_close(distribution.kl(distribution), torch.zeros(5))
    deterministic = distribution.to_deterministic().sample()
    assert torch.equal(deterministic["move"], logits["move"].argmax(-1))
