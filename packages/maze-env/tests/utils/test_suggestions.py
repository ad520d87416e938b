"""close_matches: the "did you mean" candidates of every maze error message."""

from __future__ import annotations

from maze.env.utils.suggestions import close_matches


def test_case_does_not_hide_a_match_and_the_original_spelling_comes_back() -> None:
    assert close_matches("PPO", ["a2c", "ppo", "impala"]) == ["ppo"]
    assert close_matches("timelimitwrappr", ["RandomResetWrapper", "TimeLimitWrapper"]) == ["TimeLimitWrapper"]
    assert close_matches("MAX_EPISODE_STEPS", ["max_episode_steps", "seed"]) == ["max_episode_steps"]


def test_typos_are_still_matched_best_first_up_to_the_limit() -> None:
    candidates = ["learning_rate", "lr", "gamma", "gae_lambda"]
    assert close_matches("lerning_rate", candidates) == ["learning_rate"]
    assert close_matches("gama", candidates, limit=3) == ["gamma"]  # a limit, not a quota
    assert close_matches("GymMazeEv", ["GymMazeEnv", "MazeEnv", "Wrapper"], limit=2) == ["GymMazeEnv", "MazeEnv"]


def test_nothing_close_gives_no_suggestion() -> None:
    assert close_matches("reward", ["observation", "action"]) == []
    assert close_matches("anything", []) == []


def test_spellings_that_differ_only_in_case_all_count_in_their_given_order() -> None:
    assert close_matches("Seed", ["SEED", "seed", "SEED"], limit=3) == ["SEED", "seed"]
    assert close_matches("seed", ["SEED", "seed"]) == ["SEED"]


def test_candidates_may_be_any_iterable_of_names() -> None:
    assert close_matches("Gamma", (name for name in ("gamma", "lr"))) == ["gamma"]
    assert close_matches("LR", {"lr": 1e-3, "gamma": 0.99}) == ["lr"]
