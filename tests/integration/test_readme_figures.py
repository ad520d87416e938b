"""tools/check_readme_figures.py: README figures marked as benchmark results match tools/bench/results/."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("check_readme_figures", ROOT / "tools" / "check_readme_figures.py")
check_readme_figures = sys.modules[_spec.name] = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check_readme_figures)

RESULTS_MD = """# Train

| case | rate (/s) | ratio |
|---|---:|---:|
| maze | 29,630 | 0.26× |
| peer | 6,712 | 1.00× |
"""

README = """# Project

PPO solves in <!-- fig: train.json .2f ratios/0/value -->0.26× the peer's time.

<!-- bench-table: train.md -->
| case | rate (/s) | ratio |
|---|---:|---:|
| maze | 29,630 | 0.26× |
"""


@pytest.fixture
def results(tmp_path: Path) -> Path:
    directory = tmp_path / "results"
    directory.mkdir()
    (directory / "train.md").write_text(RESULTS_MD)
    (directory / "train.json").write_text(json.dumps({"ratios": [{"value": 0.2603}]}))
    return directory


def write_readme(tmp_path: Path, text: str) -> Path:
    readme = tmp_path / "README.md"
    readme.write_text(text)
    return readme


def test_figures_that_match_their_results_pass(tmp_path: Path, results: Path) -> None:
    assert check_readme_figures.check_readme(write_readme(tmp_path, README), results) == []


def test_a_drifted_inline_figure_is_reported_and_fixed(tmp_path: Path, results: Path) -> None:
    readme = write_readme(tmp_path, README.replace("-->0.26×", "-->0.31×"))

    drifts = check_readme_figures.check_readme(readme, results)
    assert [(d.line, d.found, d.expected) for d in drifts] == [(3, "0.31", "0.26")]

    check_readme_figures.check_readme(readme, results, fix=True)
    assert readme.read_text() == README


def test_a_drifted_table_row_is_reported_and_fixed(tmp_path: Path, results: Path) -> None:
    readme = write_readme(tmp_path, README.replace("| maze | 29,630 | 0.26× |\n", "| maze | 31,000 | 0.25× |\n"))

    drifts = check_readme_figures.check_readme(readme, results)
    assert [(d.line, d.expected) for d in drifts] == [(8, "| maze | 29,630 | 0.26× |")]

    check_readme_figures.check_readme(readme, results, fix=True)
    assert readme.read_text() == README


LUNAR_MD = """# Lunar

| case | tool | best |
|---|---|---:|
| A2C | maze | 99.2 |
| A2C | sb3 | 81.5 |
"""


def test_rows_whose_first_cell_repeats_are_told_apart_by_the_next_cell(tmp_path: Path, results: Path) -> None:
    (results / "lunar.md").write_text(LUNAR_MD)
    table = "<!-- bench-table: lunar.md -->\n| case | tool | best |\n|---|---|---:|\n"
    readme = write_readme(tmp_path, table + "| A2C | maze | 32.1 |\n| A2C | sb3 | 81.5 |\n")

    drifts = check_readme_figures.check_readme(readme, results)
    assert [(d.line, d.expected) for d in drifts] == [(4, "| A2C | maze | 99.2 |")]

    check_readme_figures.check_readme(readme, results, fix=True)
    assert readme.read_text() == table + "| A2C | maze | 99.2 |\n| A2C | sb3 | 81.5 |\n"


def test_a_row_shown_twice_is_an_error(tmp_path: Path, results: Path) -> None:
    (results / "lunar.md").write_text(LUNAR_MD)
    table = "<!-- bench-table: lunar.md -->\n| case | tool | best |\n|---|---|---:|\n"
    readme = write_readme(tmp_path, table + "| A2C | sb3 | 81.5 |\n| A2C | sb3 | 81.5 |\n")
    with pytest.raises(check_readme_figures.FigureError, match="the row 'A2C \\| sb3' of lunar.md is there twice"):
        check_readme_figures.check_readme(readme, results)


def test_markers_quoted_in_code_are_documentation_not_markers(tmp_path: Path, results: Path) -> None:
    text = "Mark figures with `<!-- fig: train.json .2f ratios/0/value -->` and tables with `<!-- bench-table: train.md -->`."
    assert check_readme_figures.check_readme(write_readme(tmp_path, text), results) == []


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("<!-- fig: nope.json .2f a -->1", "names nope.json, which is not in"),
        ("<!-- fig: train.json .2f ratios/3/value -->1", "train.json has no 'ratios/3/value': '3' not found"),
        (
            "<!-- bench-table: train.md -->\n| other | header |\n|---|---|\n",
            "no table with the header '| other | header |'",
        ),
        ("<!-- bench-table: train.md -->\n\ntext", "a bench-table marker must be followed by a table"),
        (
            "```bash\n# <!-- fig: train.json .2f ratios/0/value -->0.26\n```",
            "a marker inside a code block is shown as text",
        ),
    ],
)
def test_a_marker_that_cannot_be_checked_names_the_problem(
    tmp_path: Path, results: Path, text: str, message: str
) -> None:
    with pytest.raises(check_readme_figures.FigureError, match=message.replace("(", r"\(").replace("|", r"\|")):
        check_readme_figures.check_readme(write_readme(tmp_path, text), results)


def test_the_repository_readmes_match_the_committed_benchmark_results(capsys: pytest.CaptureFixture[str]) -> None:
    assert check_readme_figures.main([]) == 0, capsys.readouterr().err


def test_every_markdown_file_with_markers_is_checked_by_default() -> None:
    tracked = subprocess.run(["git", "ls-files", "*.md"], cwd=ROOT, capture_output=True, text=True, check=True)
    marked = {
        ROOT / name
        for name in tracked.stdout.split()
        if any(
            check_readme_figures.TABLE_MARKER.search(line) or check_readme_figures.FIGURE_MARKER.search(line)
            for line in (ROOT / name).read_text().splitlines()
        )
    }
    assert marked, "no marked README found"
    assert sorted(marked - set(check_readme_figures.default_readmes())) == []
