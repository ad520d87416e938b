"""RolloutEvaluator: exactly n_episodes spread over the envs, reseeded every time, eval statistics, model selection."""

from __future__ import annotations

import numpy as np
import pytest
from maze.env.errors import ConfigurationError
from maze.env.wrappers.log_stats_wrapper import LogStatsWrapper
from maze.train.evaluators import RolloutEvaluator
from train_test_support import FAKE_ENVS, ZeroPolicy

SEEDS = [11, 12]


def dummy_env():
    return FAKE_ENVS["dummy"](max_steps=3)


def episode_returns(seed: int, n_episodes: int) -> list[float]:
    """Returns of ``n_episodes`` consecutive zero-action episodes of one env reset with ``seed`` first."""
    env = dummy_env()
    policy = ZeroPolicy(env.action_spaces_dict)
    returns = []
    observation, _ = env.reset(seed=seed)
    for _ in range(n_episodes):
        total, done = 0.0, False
        while not done:
            action = policy.compute_action({key: value[None] for key, value in observation.items()}, env.actor_id())
            observation, reward, terminated, truncated, _ = env.step({key: value[0] for key, value in action.items()})
            total, done = total + reward, terminated or truncated
        returns.append(total)
        observation, _ = env.reset()
    return returns


class Selection:
    def __init__(self) -> None:
        self.scores: list[float] = []

    def update(self, reward: float, state_dict=None) -> bool:
        self.scores.append(reward)
        return True


def test_runs_exactly_n_episodes_spread_over_the_envs_and_reports_their_mean(vector_env, recorder) -> None:
    env = vector_env(dummy_env)
    selection = Selection()
    evaluator = RolloutEvaluator(env, n_episodes=5, model_selection=selection, seeds=SEEDS)

    score = evaluator.evaluate(ZeroPolicy(env.action_spaces_dict))

    # Env 0 runs 3 episodes, env 1 runs 2 (one after the other from their seeds).
    expected = episode_returns(SEEDS[0], 3) + episode_returns(SEEDS[1], 2)
    assert score == pytest.approx(np.mean(expected))
    assert selection.scores == [score]
    assert recorder.values("eval", "BaseEnvEvents", "reward", "episode_count") == [5]
    assert recorder.values("eval", "BaseEnvEvents", "reward", "mean") == [pytest.approx(score)]


def test_every_evaluation_starts_from_the_same_seeds(vector_env) -> None:
    env = vector_env(dummy_env)
    evaluator = RolloutEvaluator(env, n_episodes=3, seeds=SEEDS, logging_prefix="check")
    policy = ZeroPolicy(env.action_spaces_dict)
    assert evaluator.evaluate(policy) == evaluator.evaluate(policy)


def test_a_single_env_is_wrapped_into_a_vector_env(recorder) -> None:
    env = LogStatsWrapper.wrap(dummy_env())
    evaluator = RolloutEvaluator(env, n_episodes=2, seeds=[SEEDS[0]], logging_prefix="single")

    score = evaluator.evaluate(ZeroPolicy(env.action_spaces_dict))

    assert score == pytest.approx(np.mean(episode_returns(SEEDS[0], 2)))
    assert recorder.steps("single") == [0]
    evaluator.eval_env.close()


def test_rejects_evaluations_without_episodes(vector_env) -> None:
    with pytest.raises(ConfigurationError, match="n_episodes must be at least 1"):
        RolloutEvaluator(vector_env(dummy_env), n_episodes=0)
