"""maze-rollout's Ray tests (``nox -s ray``): the session's Ray from the plugin ray_session, the test envs by value."""

from __future__ import annotations

import ray.cloudpickle
import ray_test_envs

pytest_plugins = ["ray_session"]

ray.cloudpickle.register_pickle_by_value(ray_test_envs)  # the actors get the test envs by value (not installed there)
