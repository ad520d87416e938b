"""The stable-baselines3 side of the defaults benchmark: PPO, A2C or SAC exactly as a new user gets them.

Run as a subprocess, one per run::

    python -m tools.bench.sb3_defaults --algorithm ppo --env CartPole-v1 --budget 100000 --seed 1 \\
        --marks 10000 --out run.json

The model is ``PPO("MlpPolicy", env)`` (``MultiInputPolicy`` for a Dict observation) on ONE env
with every SB3 default: no RL-Zoo settings, no ``VecNormalize``; only the seed, ``device="cpu"``
and one torch thread are set. Every ``--marks`` env steps 10 deterministic episodes run on a
separate eval env (seeded ``seed + 10000``). ``--env thermostat`` is the repository's
``examples/thermostat`` env; its Dict action of Box heads is offered to SB3 as one flat Box
(:class:`FlatBoxActions`), since SB3 takes no Dict action.

The result is :func:`tools.bench.peer_run.learn_and_report`'s record (``env_steps_per_second``:
training only, evaluations excluded) plus ``curve`` (``[env_steps, unix_time, mean_return]`` per
evaluation), written to ``--out`` and printed.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np

__all__ = ["THERMOSTAT", "FlatBoxActions", "make_env", "train"]

THERMOSTAT = "thermostat"
"""The ``--env`` name of the repository's thermostat example."""
THERMOSTAT_DIR = Path(__file__).resolve().parents[2] / "examples" / "thermostat"
EVAL_EPISODES = 10
EVAL_SEED_OFFSET = 10_000


class FlatBoxActions(gymnasium.ActionWrapper):
    """Offers a Dict action space of Box heads as one flat Box; each action is split back into the heads.

    Args:
        env: An env whose action space is a ``gymnasium.spaces.Dict`` of ``Box`` spaces.
    """

    def __init__(self, env: gymnasium.Env) -> None:
        super().__init__(env)
        heads = env.action_space
        if not isinstance(heads, gymnasium.spaces.Dict) or not all(
            isinstance(space, gymnasium.spaces.Box) for space in heads.values()
        ):
            raise TypeError(f"FlatBoxActions takes a Dict of Box heads, not {heads}")
        self.heads: dict[str, gymnasium.spaces.Box] = dict(heads.items())
        self.action_space = gymnasium.spaces.Box(
            np.concatenate([space.low.ravel() for space in self.heads.values()]),
            np.concatenate([space.high.ravel() for space in self.heads.values()]),
            dtype=np.float32,
        )

    def action(self, action: np.ndarray) -> dict[str, np.ndarray]:
        """The flat action split into the heads, each in its own shape and dtype."""
        result, start = {}, 0
        for name, space in self.heads.items():
            size = int(np.prod(space.shape))
            result[name] = np.asarray(action[start : start + size], dtype=space.dtype).reshape(space.shape)
            start += size
        return result


def make_env(env_id: str) -> gymnasium.Env:
    """A gymnasium env by id, or for ``thermostat`` the example's env with :class:`FlatBoxActions`."""
    if env_id != THERMOSTAT:
        return gymnasium.make(env_id)
    if str(THERMOSTAT_DIR) not in sys.path:
        sys.path.insert(0, str(THERMOSTAT_DIR))
    from thermostat import make_thermostat_env

    return FlatBoxActions(make_thermostat_env())


def train(algorithm: str, env_id: str, budget: int, seed: int, marks: int) -> dict[str, Any]:
    """Trains SB3's ``algorithm`` with its defaults for ``budget`` env steps, evaluating every ``marks`` env steps.

    Args:
        algorithm: ``ppo``, ``a2c`` or ``sac``.
        env_id: A gymnasium id or ``thermostat``.
        budget: Env steps to train.
        seed: Seeds the algorithm and the training env; the eval env gets ``seed + 10000``.
        marks: Env steps between evaluations.
    """
    import torch
    from stable_baselines3 import A2C, PPO, SAC
    from stable_baselines3.common.env_util import make_vec_env

    from .peer_run import learn_and_report
    from .sb3_lunar import CurveEvalCallback

    torch.set_num_threads(1)
    env = make_vec_env(lambda: make_env(env_id), n_envs=1, seed=seed)
    eval_env = make_vec_env(lambda: make_env(env_id), n_envs=1, seed=seed + EVAL_SEED_OFFSET)
    policy = "MultiInputPolicy" if isinstance(env.observation_space, gymnasium.spaces.Dict) else "MlpPolicy"
    model_class = {"ppo": PPO, "a2c": A2C, "sac": SAC}[algorithm]
    model = model_class(policy, env, seed=seed, device="cpu", verbose=0)
    callback = CurveEvalCallback(
        eval_env, n_eval_episodes=EVAL_EPISODES, eval_freq=marks, deterministic=True, verbose=0
    )  # one env: the callback's calls are env steps
    result = learn_and_report(model, callback, budget, float("inf"))
    return {**result, "policy": policy, "curve": callback.curve}


def main() -> None:
    """``--algorithm A --env E --budget N --seed S --marks M [--out FILE]``: prints the JSON result."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--algorithm", choices=("ppo", "a2c", "sac"), required=True)
    parser.add_argument("--env", required=True, help=f"a gymnasium id or {THERMOSTAT!r}")
    parser.add_argument("--budget", type=int, required=True, help="env steps to train")
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--marks", type=int, required=True, help="evaluate every this many env steps")
    parser.add_argument("--out", type=Path, help="also write the JSON result to this file")
    args = parser.parse_args()
    line = json.dumps(train(args.algorithm, args.env, args.budget, args.seed, args.marks))
    if args.out is not None:
        args.out.write_text(line + "\n", encoding="utf-8")
    print(line)


if __name__ == "__main__":
    main()
