from functools import partial

import numpy as np
import pytest
from maze.env import ActorID, GymMazeEnv
from maze.env.errors import ConfigurationError, EnvWorkerError, InvalidActionError, MazeError
from maze.env.testing.fake_envs import build_dummy_maze_env, build_multi_agent_env, build_multi_step_env
from maze.env.vector.sequential import SequentialVectorEnv


def cartpole() -> GymMazeEnv:
    return GymMazeEnv("CartPole-v1")


def test_cartpole_batch_shapes_and_types():
    with SequentialVectorEnv([cartpole, cartpole]) as envs:
        observations, infos = envs.reset(seed=0)
        assert envs.n_envs == 2
        assert observations["observation"].shape == (2, 4)
        assert observations["observation"].dtype == np.float32
        assert infos == ({}, {})
        observations, rewards, terminated, truncated, infos = envs.step({"action": np.array([0, 1])})
        assert observations["observation"].shape == (2, 4)
        assert rewards.shape == (2,) and rewards.dtype == np.float64
        assert terminated.dtype == bool and truncated.dtype == bool and terminated.shape == (2,)
        assert isinstance(infos, tuple) and len(infos) == 2
        assert envs.actor_id() == ActorID(0, 0)
        assert envs.actor_ids() == [ActorID(0, 0)] * 2
        assert envs.observation_space == cartpole().observation_space
        assert envs.action_spaces_dict == {0: cartpole().action_space}
        assert envs.agent_counts_dict == {0: 1}


def test_matches_a_reference_loop_across_auto_resets():
    """Env i seeded with seed + i, reset by hand when its episode ends, gives the same trajectory."""
    n_envs, n_steps = 3, 80
    actions = np.random.default_rng(1).integers(0, 2, size=(n_steps, n_envs))
    references = [cartpole() for _ in range(n_envs)]
    expected = [env.reset(seed=7 + i)[0]["observation"] for i, env in enumerate(references)]
    envs = SequentialVectorEnv([cartpole] * n_envs)
    observations, _ = envs.reset(seed=7)
    np.testing.assert_array_equal(observations["observation"], np.stack(expected))
    ended = 0
    for action in actions:
        observations, rewards, terminated, truncated, infos = envs.step({"action": action})
        for i, env in enumerate(references):
            observation, reward, term, trunc, _ = env.step({"action": action[i]})
            assert (rewards[i], terminated[i], truncated[i]) == (reward, term, trunc)
            if term or trunc:
                ended += 1
                np.testing.assert_array_equal(infos[i]["final_observation"]["observation"], observation["observation"])
                assert "final_info" in infos[i]
                observation, _ = env.reset()
            else:
                assert "final_observation" not in infos[i]
            np.testing.assert_array_equal(observations["observation"][i], observation["observation"])
    assert ended >= 3  # random CartPole episodes are short: the loop crossed several auto-resets


def test_seeding_int_list_and_none():
    envs = SequentialVectorEnv([cartpole] * 2)
    by_int = envs.reset(seed=3)[0]["observation"]
    by_list = envs.reset(seed=[3, 4])[0]["observation"]
    np.testing.assert_array_equal(by_int, by_list)
    assert not np.array_equal(by_int[0], by_int[1])
    unseeded = envs.reset()[0]["observation"]
    assert not np.array_equal(unseeded, by_list)  # None continues the generators instead of re-seeding
    with pytest.raises(ValueError, match="one seed per env"):
        envs.reset(seed=[1, 2, 3])


def test_copies_by_default_and_buffers_on_request():
    envs = SequentialVectorEnv([cartpole] * 2)
    first = envs.reset(seed=0)[0]["observation"]
    snapshot = first.copy()
    envs.step({"action": np.array([0, 1])})
    np.testing.assert_array_equal(first, snapshot)

    shared = SequentialVectorEnv([cartpole] * 2, copy_observations=False)
    first = shared.reset(seed=0)[0]["observation"]
    second = shared.step({"action": np.array([0, 1])})[0]["observation"]
    assert second is first  # the preallocated buffer, overwritten in place


def test_dict_actions_with_several_heads():
    envs = SequentialVectorEnv([build_dummy_maze_env] * 2)
    observations, _ = envs.reset(seed=0)
    assert observations["observation"].shape == (2, 4) and observations["action_mask"].shape == (2, 3)
    actions = {
        "discrete": np.array([0, 2]),
        "continuous": np.zeros((2, 2), dtype=np.float32),
        "binary": np.ones((2, 3), dtype=np.int8),
    }
    observations, rewards, *_ = envs.step(actions)
    assert observations["action_mask"].shape == (2, 3) and rewards.shape == (2,)


def test_invalid_actions_name_the_problem():
    envs = SequentialVectorEnv([cartpole] * 2)
    envs.reset(seed=0)
    with pytest.raises(InvalidActionError, match="leading batch dimension of n_envs=2"):
        envs.step({"action": np.array([0, 1, 1])})
    with pytest.raises(InvalidActionError, match=r"action key \['action'\]"):
        envs.step({"move": np.array([0, 1])})
    with pytest.raises(InvalidActionError, match="leading batch dimension"):
        envs.step({"action": np.int64(1)})


def test_envs_with_different_spaces_are_rejected():
    with pytest.raises(ConfigurationError, match="env 1 has the observation_spaces_dict"):
        SequentialVectorEnv([cartpole, build_dummy_maze_env])
    with pytest.raises(ConfigurationError, match="at least one env"):
        SequentialVectorEnv([])


def test_multi_step_env_is_batched_with_the_spaces_of_the_current_sub_step():
    envs = SequentialVectorEnv([partial(build_multi_step_env, max_steps=2)] * 2)
    observations, _ = envs.reset(seed=0)
    assert envs.actor_id() == ActorID(0, 0)
    assert set(observations) == {"items"} and observations["items"].shape == (2, 4)
    assert envs.action_space == envs.action_spaces_dict[0]
    observations, rewards, *_ = envs.step({"item": np.array([1, 1])})
    assert envs.actor_id() == ActorID(1, 0)
    assert envs.observation_space == envs.observation_spaces_dict[1]
    assert observations["step"].shape == (2, 1) and observations["items"].shape == (2, 4)
    np.testing.assert_array_equal(rewards, [0.0, 0.0])  # the reward comes with the last sub-step
    observations, rewards, _, truncated, infos = envs.step({"position": np.zeros((2, 2), dtype=np.float32)})
    assert envs.actor_id() == ActorID(0, 0) and set(observations) == {"items"}
    assert np.all(rewards < 0)
    envs.step({"item": np.array([1, 1])})
    observations, _, _, truncated, infos = envs.step({"position": np.zeros((2, 2), dtype=np.float32)})
    assert truncated.all() and envs.actor_id() == ActorID(0, 0)
    # the ended episode's last observation is the one its last step produced (for sub-step 0)
    assert set(infos[0]["final_observation"]) == {"items"} and infos[0]["final_observation"]["items"].shape == (4,)


def test_multi_agent_env_reports_each_envs_actor():
    envs = SequentialVectorEnv([partial(build_multi_agent_env, n_agents=2, max_steps=100)] * 2)
    observations, _ = envs.reset(seed=0)
    np.testing.assert_array_equal(observations["agent"], [[0.0], [0.0]])
    envs.step({"action": np.array([1, 1])})
    assert envs.actor_ids() == [ActorID(0, 1), ActorID(0, 1)]
    # env 0 is pushed out of the unit box; when that happens after agent 0 acted, it restarts with
    # agent 0 while env 1 waits for agent 1
    for _ in range(200):
        envs.step({"action": np.array([2, 1])})
        if envs.actor_ids()[0] != envs.actor_ids()[1]:
            break
    assert envs.actor_ids()[0] != envs.actor_ids()[1]
    with pytest.raises(MazeError, match="use actor_ids"):
        envs.actor_id()


def test_envs_at_different_sub_steps_cannot_be_batched():
    envs = SequentialVectorEnv([partial(build_multi_step_env, max_steps=50)] * 2)
    envs.reset(seed=0)
    with pytest.raises(MazeError, match="different sub-steps"):
        for _ in range(60):  # env 0 leaves the unit box after a pick sub-step and restarts at sub-step 0
            envs.step({"item": np.array([3, 1])})
            envs.step({"position": np.array([[1.0, 1.0], [0.0, 0.0]], dtype=np.float32)})


@pytest.mark.parametrize("seed", [np.arange(3, 5), [np.int64(3), np.int32(4)], (3, np.uint8(4))])
def test_numpy_integer_seeds_in_sequences(seed):
    envs = SequentialVectorEnv([cartpole] * 2)
    np.testing.assert_array_equal(envs.reset(seed=seed)[0]["observation"], envs.reset(seed=3)[0]["observation"])
    with pytest.raises(ValueError, match=r"seed 1.5 for env 1; seeds must be ints or None"):
        envs.reset(seed=[1, 1.5])


def _raise_configuration_error():
    raise ConfigurationError("bad env config")


def test_env_errors_name_the_env_and_keep_the_maze_error_kind():
    envs = SequentialVectorEnv([cartpole] * 2)
    envs.reset(seed=0)
    with pytest.raises(InvalidActionError, match=r"env 1 of the SequentialVectorEnv raised during step\(\)") as caught:
        envs.step({"action": np.array([0, 7])})
    assert isinstance(caught.value.__cause__, InvalidActionError)
    with pytest.raises(EnvWorkerError, match=r"env 1 of the SequentialVectorEnv raised during reset\(\): Error"):
        envs.reset(seed=[0, -1])  # gymnasium rejects negative seeds; a non-maze error becomes an EnvWorkerError
    with pytest.raises(ConfigurationError, match=r"env 1 of the SequentialVectorEnv raised during init\(\).*bad env"):
        SequentialVectorEnv([cartpole, _raise_configuration_error])


def test_call_runs_a_method_on_every_env_in_order():
    envs = SequentialVectorEnv([cartpole] * 3)
    envs.reset(seed=0)
    envs.step({"action": np.array([0, 1, 0])})
    assert envs.call("get_env_time") == [1, 1, 1]
    assert envs.call("actor_id") == [ActorID(0, 0)] * 3
    assert envs.call("spec") == [env.spec for env in envs.envs]  # attributes come back as they are
    with pytest.raises(EnvWorkerError, match=r"env 0 .* during call\(\): AttributeError.*no_such_method"):
        envs.call("no_such_method")
