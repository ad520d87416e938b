"""Every ``maze-run`` command in the READMEs and the documentation site composes, and every one that trains has a budget.

A training command without a budget (``algorithm.n_epochs``, ``max_env_steps`` or ``max_seconds``,
in the command or in its experiment config) runs until ``patience`` epochs bring no better evaluation, or forever for ES: minutes to hours
for a newcomer who copied it. The commands are composed with Hydra as ``maze-run`` would, without
running them (their runs are covered by the CLI tests and the benchmarks).
"""

from __future__ import annotations

import importlib.util
import re
import shlex
import sys
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

import pytest
from hydra import compose, initialize_config_module
from omegaconf import DictConfig

ROOT = Path(__file__).resolve().parents[2]
READMES = [
    ROOT / "README.md",
    *sorted(ROOT.glob("packages/*/README.md")),
    ROOT / "examples" / "cutting_2d" / "README.md",
    *sorted(ROOT.glob("docs/**/*.md")),  # the documentation site's pages
]
BASH_BLOCK = re.compile(r"```bash\n(.*?)```", re.DOTALL)
MAZE_ROOTS = {
    path.name.removesuffix(".yaml") for path in resources.files("maze.conf").iterdir() if path.name.endswith(".yaml")
}
"""The root configs of maze.conf (conf_train, conf_rollout); other packages' roots are checked by their own tests."""


def documented_commands() -> Iterator[tuple[str, str]]:
    """(where, command) of every complete ``maze-run`` line in the READMEs' bash blocks.

    Lines with ``...`` (fragments) or ``-cd`` (a project's own config folder, run by that
    project's tests) are left out, and so are sweeps (``--multirun``: their budget is the sweeper's)
    and roots that are not maze.conf's (``-cn conf_rllib``).
    """
    for readme in READMES:
        for block in BASH_BLOCK.findall(readme.read_text()):
            for line in block.replace("\\\n", " ").splitlines():
                command = line.split(" #", 1)[0].strip()
                root = re.search(r"\s-cn\s+(\S+)", command)
                complete = command.startswith("maze-run ") and not re.search(r"\.\.\.|\s-cd\s|--multirun", command)
                if complete and (root is None or root.group(1) in MAZE_ROOTS):
                    yield f"{readme.relative_to(ROOT)}: {command}", command


def compose_command(command: str) -> DictConfig:
    """The config ``command`` runs with; overrides naming a ``<placeholder>`` are left out."""
    args = shlex.split(re.sub(r"<[^>]*>", "<placeholder>", command))[1:]
    root = "conf_rollout"
    if "-cn" in args:
        index = args.index("-cn")
        root = args[index + 1]
        del args[index : index + 2]
    return compose(root, [arg for arg in args if "<" not in arg])


COMMANDS = dict(documented_commands())


@pytest.fixture(scope="module", autouse=True)
def maze_conf() -> Iterator[None]:
    """maze's config tree for :func:`compose_command`, set up once."""
    with initialize_config_module(config_module="maze.conf", version_base="1.3"):
        yield


def test_the_readmes_document_training_and_rollout_commands() -> None:
    assert sum("conf_train" in command for command in COMMANDS.values()) >= 10
    assert sum("conf_train" not in command for command in COMMANDS.values()) >= 5


@pytest.mark.parametrize("command", sorted(COMMANDS), ids=range(len(COMMANDS)))
def test_every_documented_command_composes_and_has_a_budget(command: str) -> None:
    cfg = compose_command(COMMANDS[command])
    if "algorithm" in cfg:
        budgets = [cfg.algorithm.get(key) for key in ("n_epochs", "max_env_steps", "max_seconds")]
        assert any(budgets), (
            f"{command}: no n_epochs, max_env_steps or max_seconds, so it trains until patience or forever"
        )
    else:
        assert cfg.runner.n_episodes > 0, command


def test_the_timed_commands_are_the_documented_ones() -> None:
    """tools/time_readme_commands.py times each command as its README writes it."""
    spec = importlib.util.spec_from_file_location("time_readme_commands", ROOT / "tools" / "time_readme_commands.py")
    timing = sys.modules[spec.name] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(timing)
    for scenario in timing.SCENARIOS:
        text = " ".join((ROOT / scenario.readme).read_text().replace("\\\n", " ").split())
        assert scenario.command in text, f"{scenario.name}: not in {scenario.readme}: {scenario.command}"
