"""Every Python block of the documentation site runs.

The ```` ```python ```` blocks of a page run in order, in one fresh namespace per page (a later
block may use what an earlier one built, as a reader following the page would), in a temporary
working directory, so run directories and recordings land there. A block that cannot run here
(it needs a cluster, a display or a run directory of yours) is marked on the line before it
with ``<!-- docs-test: skip -->``, which the site does not show.

Run with ``pytest docs/test_code_blocks.py`` (the ``docs`` nox session does, after building
the site); ``-k getting-started`` runs one page.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent
SKIP_MARKER = "<!-- docs-test: skip -->"
FENCE = re.compile(
    r"^(?P<indent>[ \t]*)```(?P<info>[^\n`]*)\n(?P<body>.*?)^(?P=indent)```[ \t]*$", re.DOTALL | re.MULTILINE
)


def python_blocks(text: str) -> list[tuple[int, str]]:
    """``(line, source)`` of every python block of a markdown text that is not marked to skip."""
    blocks = []
    for match in FENCE.finditer(text):
        if match["info"].strip().split(" ")[0] not in ("python", "py"):
            continue
        before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1].strip()
        if before == SKIP_MARKER:
            continue
        indent = len(match["indent"])
        source = "\n".join(line[indent:] for line in match["body"].splitlines())
        blocks.append((text.count("\n", 0, match.start()) + 2, source))
    return blocks


PAGES = sorted(path for path in DOCS.rglob("*.md") if python_blocks(path.read_text(encoding="utf-8")))


def test_the_blocks_are_found() -> None:
    """The pages have blocks, and a marked block is skipped (lines are those of the block's first line)."""
    assert PAGES, "no page with a python block found"
    assert python_blocks("<!-- docs-test: skip -->\n```python\nx = 1\n```\n\n```python\ny = 2\n```\n") == [(7, "y = 2")]


@pytest.mark.parametrize("page", PAGES, ids=[str(page.relative_to(DOCS).with_suffix("")) for page in PAGES])
def test_the_python_blocks_of_a_page_run(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The page's blocks run one after the other in one namespace, in a temporary working directory."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setenv("OMP_NUM_THREADS", os.environ.get("OMP_NUM_THREADS", "1"))
    namespace: dict[str, object] = {"__name__": "__main__"}
    for line, source in python_blocks(page.read_text(encoding="utf-8")):
        code = compile("\n" * (line - 1) + source, str(page), "exec")  # tracebacks name the page's lines
        exec(code, namespace)  # noqa: S102 - the documentation's own examples
