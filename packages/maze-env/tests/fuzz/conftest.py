"""maze-env's fuzz targets (``nox -s fuzz``): the session's address-space cap and hypothesis profile (fuzz_session)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # fuzz_session, fuzzing (also under --import-mode=importlib)

pytest_plugins = ["fuzz_session"]
