"""Fuzzing the agent service's request parsing (examples/agent_service): body bytes to a validated state.

A body goes through what the service does with it before a policy sees it: the value count
that refuses a body unparsed, pydantic's JSON parsing into the route's model, and decoding
the observation into an element of the observation space. The contract: a request, or one
``ServiceError`` (400/413/422) or ``FieldError`` (422), within the deadline.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
from fuzzing import assert_handled, mutations
from gymnasium import spaces
from hypothesis import given
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples" / "agent_service"))
from agent_service.errors import ServiceError  # noqa: E402
from agent_service.schema import ActRequest, CloseRequest, RecommendRequest, StartRequest, parse_body  # noqa: E402
from agent_service.spaces_json import FieldError, JsonSpace, json_values  # noqa: E402
from agent_service.state_data import DataState  # noqa: E402
from maze.env.examples.cutting_2d import Cutting2DMazeState  # noqa: E402

OBSERVATION_SPACE = spaces.Dict(
    {
        "position": spaces.Box(-1.0, 1.0, (2, 3), dtype=np.float32),
        "mode": spaces.Discrete(4),
        "flags": spaces.MultiBinary(3),
        "counts": spaces.MultiDiscrete([5, 7]),
    }
)
OBSERVATION = JsonSpace(OBSERVATION_SPACE)
MAX_VALUES = json_values(OBSERVATION_SPACE) + 64
CLEAN_ERRORS = (ServiceError, FieldError)

_VALID = {
    "observation": {"position": [[0.1, 0.2, 0.3], [0.0, -1.0, 1.0]], "mode": 2, "flags": [0, 1, 1], "counts": [4, 6]},
    "reward": 1.5,
    "info": {"note": "ok", "step": 3},
}
SEEDS = [json.dumps(_VALID).encode(), json.dumps({**_VALID, "terminated": True}).encode(), b'{"seed": 3}', b"{}"]

JSON_ATOMS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
)
JSON_VALUES = st.recursive(
    JSON_ATOMS,
    lambda inner: st.one_of(st.lists(inner, max_size=6), st.dictionaries(st.text(max_size=8), inner, max_size=6)),
    max_leaves=60,
)


def _act(body: bytes) -> None:
    request = parse_body(ActRequest, body, MAX_VALUES)
    OBSERVATION.decode(request.observation, "observation")


@given(mutations(SEEDS))
def test_mutated_bodies_are_handled(body: bytes) -> None:
    assert_handled(_act, body, CLEAN_ERRORS)
    assert_handled(lambda data: parse_body(StartRequest, data, optional=True), body, CLEAN_ERRORS)
    assert_handled(lambda data: parse_body(CloseRequest, data, MAX_VALUES), body, CLEAN_ERRORS)


@given(st.dictionaries(st.sampled_from(["observation", "reward", "info", "extra"]), JSON_VALUES))
def test_arbitrary_json_bodies_are_handled(document: dict) -> None:
    assert_handled(_act, json.dumps(document).encode(), CLEAN_ERRORS)


@given(st.dictionaries(st.sampled_from(["position", "mode", "flags", "counts", "other"]), JSON_VALUES))
def test_observations_of_the_wrong_shape_and_kind_are_handled(observation: dict) -> None:
    document = {"observation": {**_VALID["observation"], **observation}}
    assert_handled(_act, json.dumps(document).encode(), CLEAN_ERRORS)


CUTTING_STATE = DataState(Cutting2DMazeState)
_RECOMMEND = {
    "maze_state": {"inventory": [[4, 3], [2, 3]], "max_pieces_in_inventory": 50, "current_demand": [1, 2],
                   "raw_piece_size": [4, 3]},
    "k": 3, "horizon": 20, "n_rollouts": 4, "seed": 0,
}  # fmt: skip


def _recommend(body: bytes) -> None:
    request = parse_body(RecommendRequest, body, MAX_VALUES)
    CUTTING_STATE.decode(request.maze_state, "maze_state")


@given(mutations([json.dumps(_RECOMMEND).encode()]))
def test_mutated_recommend_bodies_are_handled(body: bytes) -> None:
    assert_handled(_recommend, body, CLEAN_ERRORS)


@given(
    st.dictionaries(st.sampled_from(["inventory", "max_pieces_in_inventory", "current_demand", "other"]), JSON_VALUES)
)
def test_maze_states_of_the_wrong_shape_and_kind_are_handled(fields: dict) -> None:
    document = {**_RECOMMEND, "maze_state": {**_RECOMMEND["maze_state"], **fields}}
    assert_handled(_recommend, json.dumps(document).encode(), CLEAN_ERRORS)


def test_the_seed_body_is_a_valid_request() -> None:
    request = parse_body(ActRequest, SEEDS[0], MAX_VALUES)
    assert OBSERVATION_SPACE.contains(OBSERVATION.decode(request.observation, "observation"))
    recommend = parse_body(RecommendRequest, json.dumps(_RECOMMEND).encode(), MAX_VALUES)
    assert CUTTING_STATE.decode(recommend.maze_state, "maze_state").inventory == [(4, 3), (2, 3)]
