"""RandomPolicy samples only the actions an observation's ``<head>_mask`` allows (unless told not to)."""

import numpy as np
from gymnasium import spaces
from maze.env.agent.random_policy import RandomPolicy
from maze.env.core.actor import ActorID

SPACES = {0: spaces.Dict({"piece": spaces.Discrete(5), "speed": spaces.Discrete(3)})}
ACTOR = ActorID(0, 0)


def test_masked_heads_sample_only_allowed_actions_and_other_heads_stay_free() -> None:
    policy = RandomPolicy(SPACES, seed=0)
    observation = {"piece_mask": np.array([0, 1, 0, 1, 0], dtype=np.float32)}
    actions = [policy.compute_action(observation, actor_id=ACTOR) for _ in range(200)]
    assert {int(action["piece"]) for action in actions} == {1, 3}
    assert {int(action["speed"]) for action in actions} == {0, 1, 2}


def test_the_flag_restores_sampling_from_the_whole_space() -> None:
    policy = RandomPolicy(SPACES, seed=0, use_action_masks=False)
    observation = {"piece_mask": np.array([0, 1, 0, 0, 0], dtype=np.float32)}
    assert len({int(policy.compute_action(observation, actor_id=ACTOR)["piece"]) for _ in range(200)}) == 5


def test_masks_that_do_not_fit_the_head_are_ignored() -> None:
    policy = RandomPolicy(SPACES, seed=0)
    observation = {"piece_mask": np.ones((2, 5), dtype=np.float32)}  # batched: not a mask of one observation
    assert len({int(policy.compute_action(observation, actor_id=ACTOR)["piece"]) for _ in range(200)}) == 5
