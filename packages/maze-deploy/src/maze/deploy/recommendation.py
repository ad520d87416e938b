"""What ``AgentDeployment.recommend`` returns: the policy's top candidates, each with a forecast.

A :class:`Recommendation` holds one :class:`CandidateForecast` per candidate action, most
likely first (``rank`` 0 is the policy's own first choice). Each forecast summarises
``n_rollouts`` simulated rollouts of ``horizon`` env steps that start with the candidate and
then follow the policy: the return, every KPI of the env's KPI calculator and event
statistics, each as a :class:`Statistic` (mean, standard deviation, number of rollouts).

Event statistics are named ``"<Topic>.<event>.count"`` (how often the event fired over the
horizon) and ``"<Topic>.<event>.<attribute>.sum"`` (the summed numeric attribute; bools and
non-numeric attributes are left out), e.g. ``"CuttingEvents.invalid_cut.count"`` or
``"ThermostatEvents.energy.kwh.sum"``. Every event that fired in any rollout of any candidate
is reported for every candidate (0 where it did not fire), so candidates compare side by side.

:meth:`Recommendation.to_dict` gives plain JSON data (sorted keys, Python numbers, actions as
lists/ints/floats), what a service returns.
"""

from __future__ import annotations

import dataclasses
import enum
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["CandidateForecast", "Recommendation", "Statistic", "rollout_seed", "to_json_value"]


def rollout_seed(seed: int, rollout: int) -> int:
    """The seed of rollout ``rollout`` of a recommendation made with ``seed``.

    Every candidate's rollout ``rollout`` uses this seed (common random numbers: candidates
    meet the same simulated futures), in-process and in worker processes alike.

    Args:
        seed: The recommendation's seed (a non-negative int).
        rollout: The rollout's index (0 .. n_rollouts - 1).

    Returns:
        A seed in ``[0, 2**31)``.
    """
    return int(np.random.SeedSequence([seed, rollout]).generate_state(1, dtype=np.uint32)[0] >> 1)


@dataclass(frozen=True)
class Statistic:
    """Mean, standard deviation (population, ``ddof=0``) and number of values.

    Attributes:
        mean: The mean (nan when ``n`` is 0).
        std: The standard deviation (nan when ``n`` is 0; 0.0 for one value).
        n: How many values (finished rollouts) it summarises.
    """

    mean: float
    std: float
    n: int

    @classmethod
    def of(cls, values: Sequence[float]) -> Statistic:
        """The statistic of ``values`` (an empty sequence gives ``nan`` mean and std)."""
        if not values:
            return cls(math.nan, math.nan, 0)
        array = np.asarray(values, dtype=np.float64)
        return cls(float(array.mean()), float(array.std()), len(values))

    def to_dict(self) -> dict[str, Any]:
        """``{"mean", "n", "std"}`` (nan becomes None, so that the dict is valid JSON)."""
        return {"mean": _json_float(self.mean), "n": int(self.n), "std": _json_float(self.std)}


@dataclass(frozen=True)
class CandidateForecast:
    """One candidate action and the forecast of taking it now.

    Attributes:
        rank: Position among the candidates, 0 for the policy's first (most likely) choice.
        action: The candidate in the policy's action space (a dict of the acting sub-step's heads).
        probability: The probability the policy gives the candidate.
        is_policy_choice: True for the policy's first choice (``rank == 0``).
        forecast_return: The summed reward over the horizon (all sub-steps).
        kpis: Each KPI of the env's KPI calculator, computed over the horizon.
        events: Event statistics over the horizon (names: see the module docs).
        rollouts_finished: How many rollouts the statistics summarise.
        maze_action: The candidate as the MazeAction ``act`` would return for it.
    """

    rank: int
    action: Any
    probability: float
    is_policy_choice: bool
    forecast_return: Statistic
    kpis: dict[str, Statistic]
    events: dict[str, Statistic]
    rollouts_finished: int
    maze_action: Any = None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data of the candidate (sorted keys)."""
        return {
            "action": to_json_value(self.action),
            "events": {name: self.events[name].to_dict() for name in sorted(self.events)},
            "forecast_return": self.forecast_return.to_dict(),
            "is_policy_choice": bool(self.is_policy_choice),
            "kpis": {name: self.kpis[name].to_dict() for name in sorted(self.kpis)},
            "maze_action": to_json_value(self.maze_action),
            "probability": _json_float(self.probability),
            "rank": int(self.rank),
            "rollouts_finished": int(self.rollouts_finished),
        }


@dataclass(frozen=True)
class Recommendation:
    """The candidates of a policy in one MazeState, each with its forecast; iterate it for the candidates.

    Attributes:
        candidates: The forecasts, most likely candidate first.
        horizon: Env steps simulated per rollout (fewer where an episode ended earlier).
        n_rollouts: Rollouts asked for per candidate.
        seed: The seed the rollout seeds were derived from (:func:`rollout_seed`).
        rollouts_requested: Rollouts asked for in all (``len(candidates) * n_rollouts``).
        rollouts_finished: Rollouts that finished within the time budget (only they are counted).
        timed_out: True when the time budget stopped rollouts before they finished.
        elapsed_s: Wall-clock seconds the recommendation took.
        actor_id: The actor the candidates are for, ``(step_key, agent_id)``.
    """

    candidates: tuple[CandidateForecast, ...]
    horizon: int
    n_rollouts: int
    seed: int
    rollouts_requested: int
    rollouts_finished: int
    timed_out: bool
    elapsed_s: float
    actor_id: tuple[Any, int] = field(default=(0, 0))

    def __iter__(self) -> Iterator[CandidateForecast]:
        return iter(self.candidates)

    def __len__(self) -> int:
        return len(self.candidates)

    def __getitem__(self, index: int) -> CandidateForecast:
        return self.candidates[index]

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data of the recommendation (sorted keys, Python numbers)."""
        return {
            "actor_id": to_json_value(tuple(self.actor_id)),
            "candidates": [candidate.to_dict() for candidate in self.candidates],
            "elapsed_s": float(self.elapsed_s),
            "horizon": int(self.horizon),
            "n_rollouts": int(self.n_rollouts),
            "rollouts_finished": int(self.rollouts_finished),
            "rollouts_requested": int(self.rollouts_requested),
            "seed": int(self.seed),
            "timed_out": bool(self.timed_out),
        }


def to_json_value(value: Any) -> Any:
    """``value`` as plain JSON data: numpy arrays and scalars, tuples, dataclasses and enums become lists/numbers/dicts.

    Dict keys become strings and are sorted; floats that are not finite become None; other
    objects become their ``repr``.
    """
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (np.bool_,)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return _json_float(float(value))
    if isinstance(value, np.ndarray):
        return to_json_value(value.tolist())
    if isinstance(value, enum.Enum):
        return to_json_value(value.value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return to_json_value({item.name: getattr(value, item.name) for item in dataclasses.fields(value)})
    if isinstance(value, Mapping):
        return {str(key): to_json_value(value[key]) for key in sorted(value, key=str)}
    if isinstance(value, (list, tuple)):
        return [to_json_value(item) for item in value]
    return repr(value)


def _json_float(value: float) -> Any:
    value = float(value)
    return value if math.isfinite(value) else None
