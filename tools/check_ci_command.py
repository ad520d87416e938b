"""Checks that .ci/run runs exactly the test command of the README's quick start.

The README's ``## Quick start`` section holds one fenced block with two commands: the
first runs the main job, the second runs the whole test suite. CI must run the second
one verbatim, so a green CI proves what the README promises.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def quick_start_commands(readme: str) -> list[str]:
    """Returns the command lines of the first fenced block under ``## Quick start``."""
    section = readme.split("## Quick start", 1)[1]
    block = re.search(r"```(?:bash|sh)?\n(.*?)```", section, re.DOTALL)
    if block is None:
        raise SystemExit("README.md: no fenced code block under '## Quick start'")
    return [line.strip() for line in block.group(1).splitlines() if line.strip() and not line.startswith("#")]


def main() -> int:
    commands = quick_start_commands((ROOT / "README.md").read_text(encoding="utf-8"))
    if len(commands) != 2:
        print(f"README.md: the quick start must hold exactly two commands, found {len(commands)}: {commands}")
        return 1
    ci_lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()]
    if commands[1] not in ci_lines:
        print(f".ci/run does not run the README's test command verbatim:\n  {commands[1]}")
        return 1
    print(f"CI runs the README's test command: {commands[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
