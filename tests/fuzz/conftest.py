"""Fuzzing beyond the packages (``nox -s fuzz``): the harness of maze-env's fuzz targets serves here too.

packages/maze-env/tests/fuzz (put on the import path here) holds the plugin fuzz_session (the
session's address-space cap and hypothesis profile) and the helpers in fuzzing.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "packages" / "maze-env" / "tests" / "fuzz"))

pytest_plugins = ["fuzz_session"]
