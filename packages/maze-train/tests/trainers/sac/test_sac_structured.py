"""SAC on a structured env: two sub-steps per env step, each with its own policy, Q networks and replay buffer."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import numpy as np
import pytest
import torch
from gymnasium import spaces
from maze.env.core.actor import ActorID
from maze.env.core.core_env import CoreEnv
from maze.env.core.maze_env import MazeEnv
from maze.env.errors import ConfigurationError
from maze.env.testing.fake_envs import FunctionObservationConversion, IdentityActionConversion
from sac_test_support import sac_config, set_up
from train_test_support import packaged_config, small_model_config

EPISODE_STEPS = 8


class CueCoreEnv(CoreEnv):
    """Sub-step ``choose`` earns 1 for picking the cued one of two options; sub-step ``place`` earns
    ``-|position - target|`` for a continuous position. Episodes end after :data:`EPISODE_STEPS` env steps.

    Random play earns about ``0.5 - 2/3`` per env step, the best play 1.
    """

    def __init__(self) -> None:
        super().__init__()
        self._rng = np.random.default_rng()
        self._sub_step, self._time, self._cue, self._target = 0, 0, 0, 0.0

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> tuple[dict, dict]:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self._sub_step, self._time = 0, 0
        self._draw()
        return self.get_maze_state(), {}

    def _draw(self) -> None:
        self._cue = int(self._rng.integers(2))
        self._target = float(self._rng.uniform(-1.0, 1.0))

    def step(self, maze_action: dict[str, Any]) -> tuple[dict, float, bool, bool, dict]:
        if self._sub_step == 0:
            reward = float(int(maze_action["choice"]) == self._cue)
            self._sub_step = 1
            return self.get_maze_state(), reward, False, False, {}
        reward = -abs(float(np.asarray(maze_action["position"]).ravel()[0]) - self._target)
        self._sub_step, self._time = 0, self._time + 1
        self.context.increment_env_step()
        self._draw()
        return self.get_maze_state(), reward, False, self._time >= EPISODE_STEPS, {}

    def get_maze_state(self) -> dict:
        return {"cue": self._cue, "target": self._target}

    def actor_id(self) -> ActorID:
        return ActorID(("choose", "place")[self._sub_step], 0)

    @property
    def agent_counts_dict(self) -> dict[str, int]:
        return {"choose": 1, "place": 1}


def build_cue_env() -> MazeEnv:
    """The two-sub-step env of :class:`CueCoreEnv` (a discrete and a continuous sub-step)."""
    return MazeEnv(
        CueCoreEnv(),
        action_conversion_dict={
            "choose": IdentityActionConversion(spaces.Dict({"choice": spaces.Discrete(2)})),
            "place": IdentityActionConversion(spaces.Dict({"position": spaces.Box(-1.0, 1.0, (1,), np.float32)})),
        },
        observation_conversion_dict={
            "choose": FunctionObservationConversion(
                spaces.Dict({"cue": spaces.Box(0.0, 1.0, (2,), np.float32)}),
                lambda state: {"cue": np.eye(2, dtype=np.float32)[state["cue"]]},
            ),
            "place": FunctionObservationConversion(
                spaces.Dict({"target": spaces.Box(-1.0, 1.0, (1,), np.float32)}),
                lambda state: {"target": np.array([state["target"]], dtype=np.float32)},
            ),
        },
    )


CUE_ENV = {"_target_": f"{__name__}.build_cue_env"}


def cue_model() -> dict[str, Any]:
    model = small_model_config("template", "cartpole", critic=False, hidden=32)
    model["model_builder"]["observation_modality_mapping"] = {"cue": "feature", "target": "feature"}
    model.update(packaged_config("critic", "template_state_action"))
    return model


def cue_config(**algorithm: Any) -> dict[str, Any]:
    evaluator = {"_target_": "maze.train.evaluators.RolloutEvaluator", "n_episodes": 8}
    return sac_config(env=CUE_ENV, model=cue_model(), rollout_evaluator=evaluator, **algorithm)


@pytest.mark.parametrize("runner_kwargs", [{}, {"backend": "local", "start_method": "fork"}], ids=["dev", "local"])
def test_sac_learns_every_sub_step_of_a_structured_env(tmp_path: Path, runner_kwargs: dict[str, Any]) -> None:
    """600 env steps (1,200 sub-steps); seeds 0-4 evaluated 7.0-7.5 of 8 with both runners."""
    runner = set_up(
        tmp_path,
        cue_config(n_epochs=2, epoch_length=300, batch_size=64, initial_buffer_size=100, lr=3e-3),
        **runner_kwargs,
    )
    workers = runner.trainer.workers
    assert set(workers.replay_buffers) == {"choose", "place"}
    # The initial random play fills both buffers; the place actor's transitions of truncated episodes are dropped.
    assert min(len(buffer) for buffer in workers.replay_buffers.values()) == 100
    runner.run()
    trainer = runner.trainer
    assert workers.sub_steps == 2 and trainer.log_entropy_coef.shape == (2,)
    policy = trainer.policy
    with torch.no_grad():
        choices = policy.compute_action(
            {"cue": np.eye(2, dtype=np.float32)}, actor_id=ActorID("choose", 0), deterministic=True
        )
        positions = policy.compute_action(
            {"target": np.array([[-0.6], [0.6]], dtype=np.float32)}, actor_id=ActorID("place", 0), deterministic=True
        )
    assert list(choices["choice"]) == [0, 1]
    np.testing.assert_allclose(positions["position"].ravel(), [-0.6, 0.6], atol=0.25)
    assert trainer.best_reward > 0.6 * EPISODE_STEPS  # random play: about -0.17 * EPISODE_STEPS


def test_demonstrations_for_a_structured_env_are_refused(tmp_path: Path) -> None:
    demonstrations = {"_target_": "maze.rollout.datasets.InMemoryDataset", "input_data": str(tmp_path)}
    with pytest.raises(
        ConfigurationError, match=r"SACfD supports flat envs; this env has the sub-steps \['choose', 'place'\]"
    ):
        set_up(tmp_path / "run", cue_config(), initial_demonstration_trajectories=demonstrations)
