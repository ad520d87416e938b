import numpy as np
import pytest
import torch
from gymnasium import spaces


@pytest.fixture(autouse=True)
def _deterministic_torch() -> None:
    torch.set_num_threads(1)
    torch.manual_seed(0)


@pytest.fixture
def two_modality_spaces() -> dict:
    """The spaces of the documented template/custom examples: inventory vector + RGB screen."""
    return {
        "observation_spaces_dict": {
            0: spaces.Dict(
                {
                    "observation_inventory": spaces.Box(0.0, 1.0, shape=(16,), dtype=np.float32),
                    "observation_screen": spaces.Box(0.0, 1.0, shape=(3, 64, 64), dtype=np.float32),
                }
            )
        },
        "action_spaces_dict": {
            0: spaces.Dict({"action_move": spaces.Discrete(4), "action_use": spaces.MultiBinary(16)})
        },
        "agent_counts_dict": {0: 1},
    }


@pytest.fixture
def cartpole_spaces() -> dict:
    from maze.env import GymMazeEnv

    env = GymMazeEnv("CartPole-v1")
    return {
        "observation_spaces_dict": env.observation_spaces_dict,
        "action_spaces_dict": env.action_spaces_dict,
        "agent_counts_dict": env.agent_counts_dict,
    }
