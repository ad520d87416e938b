"""Install hints name a command that works while maze is unpublished: the install from the repository's folder."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from maze.env.utils import install_hints
from maze.env.utils.install_hints import pip_install_command

REPOSITORY = Path(__file__).resolve().parents[4]
DISTRIBUTIONS = sorted(path.name for path in (REPOSITORY / "packages").iterdir() if (path / "pyproject.toml").is_file())


def installed_folder(command: str) -> Path:
    """The folder a ``pip install [-c FILE] FOLDER[extras]`` command installs (relative: from the repository root)."""
    words = shlex.split(command.split(" (from the root", 1)[0])
    assert words[:2] == ["pip", "install"], command
    assert words[2] == "-c" and (REPOSITORY / words[3]).is_file(), command  # the constraints file
    return REPOSITORY / re.sub(r"\[[\w,]+\]$", "", words[4])


@pytest.fixture(params=["checkout", "wheel"])
def installed_from(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Hints as they read where maze-env was installed from this checkout, and from a wheel."""
    install_hints.source_checkout.cache_clear()
    if request.param == "wheel":
        monkeypatch.setattr(install_hints, "source_checkout", lambda: None)
    else:
        monkeypatch.setattr(install_hints, "source_checkout", lambda: REPOSITORY)
    return request.param


@pytest.mark.parametrize("distribution", DISTRIBUTIONS)
def test_every_distributions_hint_names_its_existing_folder(distribution: str, installed_from: str) -> None:
    command = pip_install_command(f"{distribution}[extra]")
    assert installed_folder(command) == REPOSITORY / "packages" / distribution
    assert command.endswith("(from the root of the maze repository)") == (installed_from == "wheel")
    assert f"pip install {distribution}" not in command  # not published


def test_the_checkout_is_read_from_the_installations_direct_url(monkeypatch: pytest.MonkeyPatch) -> None:
    class Distribution:
        def __init__(self, text: str) -> None:
            self.text = text

        def read_text(self, name: str) -> str:
            assert name == "direct_url.json"
            return self.text

    install_hints.source_checkout.cache_clear()
    folder = REPOSITORY / "packages" / "maze-env"
    for text, expected in [
        (json.dumps({"url": folder.as_uri(), "dir_info": {"editable": True}}), REPOSITORY),
        (json.dumps({"url": (REPOSITORY / "dist" / "maze_env-0.1.0-py3-none-any.whl").as_uri()}), None),
        (json.dumps({"url": "https://example.org/maze_env.whl"}), None),
        ("not json", None),
    ]:
        monkeypatch.setattr(install_hints.metadata, "distribution", lambda name, text=text: Distribution(text))
        install_hints.source_checkout.cache_clear()
        assert install_hints.source_checkout() == expected, text
    install_hints.source_checkout.cache_clear()
