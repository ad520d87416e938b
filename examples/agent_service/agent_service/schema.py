"""The request bodies of the routes and their parsing: bytes in, a validated request or one clear 400/422 out.

Parsing is one pass of pydantic's JSON parser over the raw body (no intermediate
``json.loads``); it runs in the service's worker threads, never on the event loop. A worker
thread still holds the interpreter lock while it parses, and what parsing costs grows with
the number of JSON values, not with the bytes (a MiB of ``[[]]`` takes ~0.1 s): so a body
is first counted, in a few milliseconds, and one with more values than a state of the
observation space and an info of ``max_info_values`` take is refused (413) unparsed.
"""

from __future__ import annotations

import re
from typing import Annotated, Optional, TypeVar

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError

from .errors import ServiceError, validation_error

__all__ = [
    "ActRequest",
    "CloseRequest",
    "MazeStateActRequest",
    "MazeStateCloseRequest",
    "RecommendRequest",
    "StartRequest",
    "count_exceeds",
    "parse_body",
]

_SEPARATORS = (b",", b"[", b"{", b":")
"""Every JSON value but the first follows one of these (outside strings)."""

_TOKENS = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"?|[,\[{:]')
"""A string (its closing quote optional, so that no match backtracks) or a separator."""

FiniteFloat = Annotated[float, Field(allow_inf_nan=False)]

Request = TypeVar("Request", bound=BaseModel)


class StartRequest(BaseModel):
    """``POST /episodes``: the seed of the policy's sampling and of the stack's reset (None: unseeded)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    seed: Optional[Annotated[int, Field(ge=0)]] = None


class _Step(BaseModel):
    """What every act and close carries besides the state: the reward of the step that led to it, the info."""

    model_config = ConfigDict(extra="forbid", strict=True)
    reward: FiniteFloat = 0.0
    info: dict[str, JsonValue] = Field(default_factory=dict)


class _Ending(BaseModel):
    """How an episode ended: neither flag set means the caller cut it short."""

    terminated: bool = False
    truncated: bool = False


class ActRequest(_Step):
    """``POST /episodes/{id}/act``: the env's current state (a gymnasium observation) and its reward."""

    observation: JsonValue


class CloseRequest(ActRequest, _Ending):
    """``POST /episodes/{id}/close``: the final state; neither flag set means the caller cut the episode short."""


class MazeStateActRequest(_Step):
    """``act`` of an env whose states are no observations: the MazeState in its data form (see ``state_data``)."""

    maze_state: JsonValue


class MazeStateCloseRequest(MazeStateActRequest, _Ending):
    """``close`` of an env whose states are no observations."""


class RecommendRequest(BaseModel):
    """``POST /episodes/{id}/recommend``: the env's current MazeState and the forecast's size.

    The service bounds ``k``, ``horizon`` and ``n_rollouts`` by its settings and ``time_budget_s``
    by its own budget (a request may ask for less, never more).
    """

    model_config = ConfigDict(extra="forbid", strict=True)
    maze_state: JsonValue
    k: Annotated[int, Field(ge=1)] = 3
    horizon: Annotated[int, Field(ge=1)] = 20
    n_rollouts: Annotated[int, Field(ge=1)] = 4
    seed: Annotated[int, Field(ge=0, lt=1 << 63)] = 0
    time_budget_s: Optional[Annotated[float, Field(gt=0, allow_inf_nan=False)]] = None


def count_exceeds(body: bytes, budget: int) -> bool:
    """True when the JSON ``body`` holds more than ``budget`` values (object keys count), or is no JSON of fewer.

    Costs a few milliseconds per MiB: separators are counted in C, and only a body with more
    separators than ``budget`` is scanned token by token (strings skipped), stopping at the budget.
    """
    if sum(body.count(separator) for separator in _SEPARATORS) < budget:
        return False
    values = tokens = 1
    for token in _TOKENS.finditer(body):
        tokens += 1
        values += body[token.start()] != ord('"')
        if values > budget or tokens > 2 * budget:
            return True
    return False


def parse_body(
    model: type[Request], body: bytes, max_values: Optional[int] = None, optional: bool = False
) -> Optional[Request]:
    """The request ``model`` that the JSON ``body`` holds.

    Args:
        model: The request's model.
        body: The raw request body.
        max_values: A body with more JSON values is refused unparsed (None: no bound).
        optional: An empty body stands for no request (None) instead of a missing one.

    Raises:
        ServiceError: 400 for a body that is no JSON, 413 for one of more than ``max_values`` values,
            422 naming the first field that does not fit ``model``.
    """
    if optional and not body.strip():
        return None
    if max_values is not None and count_exceeds(body, max_values):
        raise ServiceError(
            413,
            f"the request body holds more than {max_values} JSON values, more than a state of the observation space "
            "and an info of --max-info-values (MAZE_SERVICE_MAX_INFO_VALUES) take",
            "body",
        )
    try:
        return model.model_validate_json(body)
    except ValidationError as error:
        raise validation_error(error.errors(include_url=False, include_input=False)) from None
