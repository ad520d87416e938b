"""The LunarLander heuristic: its control rules, its landings (needs Box2D) and the missing-extra message."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from maze.env.agent.lunar_lander_heuristic import (
    LunarLanderHeuristicGains,
    LunarLanderHeuristicPolicy,
    lunar_lander_heuristic_action,
)
from maze.env.agent.policy import Policy

NOOP, LEFT, MAIN, RIGHT = 0, 1, 2, 3


def state(x=0.0, y=0.0, vx=0.0, vy=0.0, angle=0.0, spin=0.0, left_leg=0.0, right_leg=0.0):
    return np.array([x, y, vx, vy, angle, spin, left_leg, right_leg], dtype=np.float32)


def test_a_lander_falling_fast_above_the_pad_fires_the_main_engine():
    assert lunar_lander_heuristic_action(state(y=1.0, vy=-1.0)) == MAIN


def test_a_lander_sinking_slowly_enough_coasts():
    assert lunar_lander_heuristic_action(state(y=1.0, vy=-0.2)) == NOOP


def test_a_lander_beside_the_pad_tilts_towards_it():
    # a positive angle points the main engine's thrust to negative x, so right of the pad it turns counter-clockwise
    assert lunar_lander_heuristic_action(state(x=0.5, y=1.0)) == LEFT
    assert lunar_lander_heuristic_action(state(x=-0.5, y=1.0)) == RIGHT


def test_a_spinning_lander_is_damped():
    assert lunar_lander_heuristic_action(state(y=1.0, spin=1.0)) == RIGHT
    assert lunar_lander_heuristic_action(state(y=1.0, spin=-1.0)) == LEFT


def test_attitude_wins_over_braking_unless_the_descent_is_far_too_fast():
    assert lunar_lander_heuristic_action(state(y=1.0, vy=-0.8, spin=2.0)) == RIGHT
    assert lunar_lander_heuristic_action(state(y=1.0, vy=-1.5, spin=2.0)) == MAIN


def test_after_touchdown_it_only_brakes_the_fall():
    assert lunar_lander_heuristic_action(state(vy=-0.03, angle=0.3, spin=1.0, left_leg=1.0)) == NOOP
    assert lunar_lander_heuristic_action(state(vy=-0.5, right_leg=1.0)) == MAIN


def test_gains_change_the_decision():
    cautious = LunarLanderHeuristicGains(descent_speed_gain=0.0)
    assert lunar_lander_heuristic_action(state(y=1.0, vy=-0.2)) == NOOP
    assert lunar_lander_heuristic_action(state(y=1.0, vy=-0.2), cautious) == MAIN


def test_policy_answers_the_gym_maze_env_action_dict_deterministically():
    policy = LunarLanderHeuristicPolicy()
    assert isinstance(policy, Policy)
    observation = {"observation": state(x=0.5, y=1.0)}
    assert policy.compute_action(observation) == {"action": LEFT}
    assert policy.compute_action(observation, deterministic=False) == policy.compute_action(
        observation, deterministic=True
    )


@pytest.mark.parametrize(
    ("observation", "found"),
    [
        ({"observation": np.zeros(4)}, "shape \\(4,\\)"),
        ({"obs": np.zeros(8)}, "keys \\['obs'\\]"),
        (np.zeros(8), "ndarray"),
    ],
)
def test_policy_rejects_observations_of_other_envs(observation, found):
    with pytest.raises(ValueError, match=f"needs the LunarLander-v3 observation .*got .*{found}"):
        LunarLanderHeuristicPolicy().compute_action(observation)


def run_episodes(seeds, max_episode_steps=None):
    pytest.importorskip("Box2D", reason="LunarLander needs the box2d extra: pip install 'maze-env[box2d]'")
    pytest.importorskip("pygame", reason="LunarLander needs the box2d extra: pip install 'maze-env[box2d]'")
    from maze.env.gym_adapter.gym_maze_env import GymMazeEnv

    make_kwargs = {} if max_episode_steps is None else {"max_episode_steps": max_episode_steps}
    env, policy = GymMazeEnv("LunarLander-v3", **make_kwargs), LunarLanderHeuristicPolicy()
    returns, actions = [], []
    for seed in seeds:
        observation, _ = env.reset(seed=seed)
        total, done = 0.0, False
        while not done:
            action = policy.compute_action(observation, actor_id=env.actor_id())
            assert env.action_space.contains(action)
            actions.append(action["action"])
            observation, reward, terminated, truncated, _ = env.step(action)
            total, done = total + reward, terminated or truncated
        returns.append(total)
    env.close()
    return returns, actions


def test_it_lands_well_on_ten_episodes():
    returns, actions = run_episodes(range(10))
    assert np.mean(returns) > 250, returns
    assert min(returns) > 0, returns  # no crash (a crash costs 100)
    assert set(actions) == {NOOP, LEFT, MAIN, RIGHT}


def test_most_episodes_are_landed_within_the_default_rollout_limit_of_200_steps():
    returns, _ = run_episodes(range(10), max_episode_steps=200)
    assert np.mean(returns) > 180, returns  # the original docs report about 190 for this setting


def test_same_seeds_give_the_same_episodes():
    assert run_episodes([3, 4]) == run_episodes([3, 4])


def test_without_box2d_making_lunar_lander_names_the_extra_to_install():
    code = (
        "import sys\n"
        "sys.modules['Box2D'] = None\n"  # makes 'import Box2D' fail like a missing package
        "sys.modules['pygame'] = None\n"
        "from maze.env.gym_adapter.gym_maze_env import GymMazeEnv, UnknownGymEnvError\n"
        "try:\n"
        "    GymMazeEnv('LunarLander-v3')\n"
        "except UnknownGymEnvError as error:\n"
        "    print(error)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "LunarLander-v3" in result.stdout
    assert "pip install -c " in result.stdout and "packages/maze-env[box2d]'" in result.stdout  # the folder install
    assert "swig" not in result.stdout.replace("no swig needed", "")  # not gymnasium's own, conflicting advice
