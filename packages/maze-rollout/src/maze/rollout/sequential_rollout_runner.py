"""SequentialRolloutRunner: rollouts in the main process, optionally rendered step by step."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Optional

from maze.env.core.structured_env import StructuredEnv
from maze.env.log_stats.aggregator import EpisodeStatsBatch
from maze.env.utils.factory import ConfigType, to_plain_config
from maze.rollout._validation import checked_bool
from maze.rollout.episode_loop import move_episode_stats, replay_overrides, run_episode
from maze.rollout.online_rendering import OnlineRenderer
from maze.rollout.progress import RolloutProgress
from maze.rollout.rollout_job import RolloutJob
from maze.rollout.rollout_runner import RolloutRunner

__all__ = ["SequentialRolloutRunner", "roll_out_in_process"]


class SequentialRolloutRunner(RolloutRunner):
    """Runs the episodes one after the other in this process (easy to debug; can render).

    Example::

        runner = SequentialRolloutRunner(n_episodes=10, max_episode_steps=100, record_trajectory=False,
                                         record_event_logs=False, render=False)
        mean_return = runner.run_with(env=GymMazeEnv("CartPole-v1"),
                                      wrappers={RewardScalingWrapper: {"scale": 0.1}},
                                      agent=DummyCartPolePolicy())

    With ``render=True`` every step is drawn with the env's renderer (see
    :class:`~maze.rollout.online_rendering.OnlineRenderer`). An env config with
    ``render_mode: null`` (``env=gym_env``) is then made with ``render_mode="rgb_array"``,
    and the frames are shown with matplotlib.

    An env given as an instance is used as it is and left open; envs built from configs
    are closed at the end of each call. Exceptions of the env or the policy propagate
    unchanged; the episodes finished before keep their trajectory files and event logs.

    Args:
        n_episodes: Episodes per call.
        max_episode_steps: Env steps after which an episode is truncated; 0: no limit of the runner;
            None (default): the env's own limit (a TimeLimitWrapper in its wrappers, a gymnasium env's
            registered one), else :data:`~maze.rollout.rollout_job.FALLBACK_EPISODE_STEPS`.
        record_trajectory: Write one trajectory file per episode to ``trajectory_data/``.
        record_event_logs: Write the events of every episode to ``event_logs/``.
        deterministic: Act with the policy's most likely actions.
        render: Draw every step.
        normalization_samples: See :class:`~maze.rollout.rollout_runner.RolloutRunner`.
    """

    def __init__(
        self,
        n_episodes: int = 50,
        max_episode_steps: Optional[int] = None,
        record_trajectory: bool = True,
        record_event_logs: bool = True,
        deterministic: bool = True,
        render: bool = False,
        normalization_samples: int = 1000,
        trajectory_format: str = "data",
    ) -> None:
        super().__init__(
            n_episodes,
            max_episode_steps,
            record_trajectory,
            record_event_logs,
            deterministic,
            normalization_samples,
            trajectory_format,
        )
        self.render = checked_bool("render", render)

    def prepare_env_config(self, env: ConfigType) -> ConfigType:
        """With ``render``, an env config whose ``render_mode`` is null gets ``render_mode="rgb_array"``."""
        config = to_plain_config(env)
        if self.render and isinstance(config, Mapping) and "render_mode" in config and config["render_mode"] is None:
            return {**config, "render_mode": "rgb_array"}
        return env

    def run_episodes(
        self, job: RolloutJob, env_seeds: Sequence[int], agent_seeds: Sequence[int], progress: RolloutProgress
    ) -> EpisodeStatsBatch:
        """Builds the env stack and the policy, then runs the episodes in order (see the base class)."""
        collected, _ = roll_out_in_process(job, env_seeds, agent_seeds, progress, self.render)
        return collected


def roll_out_in_process(
    job: RolloutJob,
    env_seeds: Sequence[int],
    agent_seeds: Sequence[int],
    progress: RolloutProgress,
    render: bool = False,
    stop: Optional[Callable[[int], bool]] = None,
) -> tuple[EpisodeStatsBatch, int]:
    """Builds the job's env stack and policy in this process and runs episodes 0, 1, ... in order.

    Building counts as start-up for ``progress``. The env is closed at the end unless the job
    holds it as an instance. An exception of the env or the policy propagates unchanged, with
    a note (Python 3.11+) naming the episode, its seeds and the overrides that replay it.

    Args:
        job: The env, wrappers, agent and recording settings.
        env_seeds: Env seed of every episode.
        agent_seeds: Agent seed of every episode.
        progress: Told about the start-up and every finished episode.
        render: Draw every step (see :class:`~maze.rollout.online_rendering.OnlineRenderer`).
        stop: Called with the number of finished episodes after each one; True stops before the next.

    Returns:
        The statistics of the finished episodes (in order) and their number.
    """
    progress.begin_startup()
    env = job.build_env()
    try:
        policy = job.build_policy(env)
        progress.end_startup()
        step = OnlineRenderer(env).step_function() if render else None
        collected = EpisodeStatsBatch()
        done = 0
        with job.recording():
            for env_seed, agent_seed in zip(env_seeds, agent_seeds, strict=True):
                try:
                    steps = run_episode(env, policy, env_seed, agent_seed, job.deterministic, step)
                except Exception as error:
                    _note_episode(error, done, env_seed, agent_seed)
                    raise
                move_episode_stats(env, collected)
                progress.update(1, steps)
                done += 1
                if stop is not None and stop(done):
                    break
        return collected, done
    finally:
        if not isinstance(job.env, StructuredEnv):  # built here from a config: close it
            env.close()


def _note_episode(error: Exception, episode: int, env_seed: int, agent_seed: int) -> None:
    """Adds the failing episode, its seeds and how to replay it to the exception's notes (where Python has them)."""
    if hasattr(error, "add_note"):
        error.add_note(
            f"in rollout episode {episode} (env seed {env_seed}, agent seed {agent_seed}); "
            f"{replay_overrides(env_seed, agent_seed)} replays it"
        )
