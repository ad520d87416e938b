"""Pytest plugin of the ``fuzz`` nox session: a capped address space and a bounded hypothesis profile.

The session runs maze-env's fuzz targets (here) and the top-level tests/fuzz (the agent service
example's request parsing) in one pytest call; the conftest.py of each names this module in
``pytest_plugins``. ``MAZE_FUZZ_EXAMPLES`` sets the examples per target (default 1500: the session's tests take about a
minute on two cores); raise it for a longer hunt.
"""

from __future__ import annotations

import os
import resource

from hypothesis import HealthCheck, settings

_HEADROOM = 2 * 2**30
"""Address space the tests may take beyond what the interpreter holds at start-up."""


def _address_space() -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        return next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmSize"))


def pytest_configure() -> None:
    """Caps the address space, so an allocation past a budget fails fast instead of exhausting the machine."""
    resource.setrlimit(resource.RLIMIT_AS, (_address_space() + _HEADROOM, resource.RLIM_INFINITY))


settings.register_profile(
    "fuzz",
    max_examples=int(os.environ.get("MAZE_FUZZ_EXAMPLES", "1500")),
    deadline=2000,  # ms per input: a hang fails here
    derandomize=os.environ.get("CI") == "true",  # CI: the same inputs every run
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    database=None,
)
settings.load_profile("fuzz")
