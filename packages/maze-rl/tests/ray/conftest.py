"""maze-rl's Ray tests (``nox -s ray``): they share the session's Ray with maze-rollout's Ray tests.

The plugin ray_session (packages/maze-rollout/tests/ray, put on the import path here) starts the
local Ray and the simulated cluster once for both folders; the ``ray`` session runs them in one
pytest call. Jobs are composed in the test process by ray_runs.py, or run as ``maze-run``
subprocesses by run_output.py (both also used by maze-rllib's tests).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "maze-rollout" / "tests" / "ray"))  # ray_session

pytest_plugins = ["ray_session"]
