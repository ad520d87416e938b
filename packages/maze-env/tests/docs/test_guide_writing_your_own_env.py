"""The guide docs/writing_your_own_env.md, run as written: its snippets, its wrapper list, its commands."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from types import ModuleType

import maze.env.wrappers
import pytest
from maze.env import clear_global_state

PACKAGE = Path(__file__).resolve().parents[2]
GUIDE = PACKAGE / "docs" / "writing_your_own_env.md"
EXAMPLE_README = PACKAGE.parents[1] / "examples" / "thermostat" / "README.md"
PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```$", re.DOTALL | re.MULTILINE)
COMMANDS = re.compile(r"<!-- thermostat-commands -->\n```bash\n(.*?)```\n<!-- /thermostat-commands -->", re.DOTALL)
BASES = {"Wrapper", "ObservationWrapper", "ActionWrapper", "RewardWrapper", "WrapperFactory"}


def guide_text() -> str:
    return GUIDE.read_text(encoding="utf-8")


def test_the_snippets_run_in_order(capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = PYTHON_BLOCK.findall(guide_text())
    assert len(blocks) >= 8, "the guide lost its snippets"
    module = ModuleType("writing_your_own_env")  # a real module: dataclasses look their module up
    monkeypatch.setitem(sys.modules, module.__name__, module)
    try:
        for index, block in enumerate(blocks):
            exec(compile(block, f"{GUIDE.name}, python block {index + 1}", "exec"), module.__dict__)  # noqa: S102
    finally:
        clear_global_state()
    printed = capsys.readouterr().out
    assert "check_env: ShopEnv passed (gymnasium's env checker" in printed
    assert "check_env: MazeEnv passed (gymnasium's space checks of sub-steps ['order', 'price']" in printed
    assert re.search(r"shop\s+ShopEvents\s+sold\s+mean_episode_total", printed)  # the table the guide describes
    assert re.search(r"shop\s+BaseEnvEvents\s+kpi\s+mean/service_level", printed)
    assert "DeliveryEvents.delivered is fired with the attributes ['cost', 'units']" in printed


def test_the_wrapper_table_lists_every_built_in_wrapper() -> None:
    table = "\n".join(line for line in guide_text().splitlines() if line.startswith("| `"))
    listed = set(re.findall(r"`(\w+Wrapper)`", table))
    built_in = set(maze.env.wrappers.__all__) - BASES
    assert built_in - listed == set(), "wrappers missing from the guide's table"
    assert listed - built_in == set(), "the guide's table names wrappers that do not exist"


def test_the_commands_are_those_the_thermostat_example_runs() -> None:
    guide, example = COMMANDS.search(guide_text()), COMMANDS.search(EXAMPLE_README.read_text(encoding="utf-8"))
    assert guide and example, "a thermostat-commands block is missing"
    assert guide.group(1) == example.group(1)  # examples/thermostat/test_thermostat.py runs them


def test_the_maze_env_readme_links_the_guide() -> None:
    assert "docs/writing_your_own_env.md" in (PACKAGE / "README.md").read_text(encoding="utf-8")
