"""Check (or regenerate) the benchmark figures quoted in the READMEs against tools/bench/results/.

Two markers, HTML comments that markdown renders invisibly, tie a README figure to the benchmark
result it comes from:

* ``<!-- bench-table: train.md -->`` on the line before a markdown table: the table's header
  must be the header of a table in ``tools/bench/results/train.md`` and every row must be a row
  of that table (a README may show a subset of the rows). ``--fix`` replaces each row by the
  results row with the same first cell.
* ``<!-- fig: train.json .2f ratios/0/value -->0.26×``: the text right after the marker must
  start with the value at that path of ``tools/bench/results/train.json`` (keys and list indices
  separated by ``/``), written with the format spec (``.2f``, ``,.0f``, ...). ``--fix`` writes
  the current value. A file named with a ``/`` is relative to the repository root, e.g. the
  documented commands' wall times of ``tools/time_readme_commands.py``:
  ``<!-- fig: tools/readme_command_times.json .0f quick-start/wall_s -->``.

Usage: ``python tools/check_readme_figures.py [--fix] [README ...]`` (default: README.md,
packages/*/README.md, packages/*/docs/*.md, examples/*/README.md and the documentation site's
pages, docs/**/*.md, where the benchmark tables live). Exits 1 and names file,
line and both values for every drifted figure.
Standard library only, so it runs in the ``lint`` session without the packages installed.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "tools" / "bench" / "results"
TABLE_MARKER = re.compile(r"^\s*<!--\s*bench-table:\s*(?P<file>\S+\.md)\s*-->\s*$")
"""A table marker is a line of its own; a marker quoted in code (`` `<!-- fig: ... -->` ``) is no marker."""
FIGURE_MARKER = re.compile(r"(?<!`)<!--\s*fig:\s*(?P<file>\S+\.json)\s+(?P<spec>\S+)\s+(?P<path>[^>]+?)\s*-->")


class FigureError(Exception):
    """A marker that cannot be checked: unknown results file, path or table header."""


@dataclass(frozen=True)
class Drift:
    """A README figure that differs from its benchmark result."""

    readme: Path
    line: int
    found: str
    expected: str

    def __str__(self) -> str:
        return f"{self.readme}:{self.line}: README has {self.found!r}, the committed result is {self.expected!r}"


def markdown_tables(text: str) -> list[list[str]]:
    """The markdown tables of a text, each as its stripped lines (header, separator, rows)."""
    tables: list[list[str]] = []
    current: list[str] = []
    for line in [*text.splitlines(), ""]:
        if line.strip().startswith("|"):
            current.append(line.strip())
        elif current:
            tables.append(current)
            current = []
    return tables


def leading_cells(row: str, width: int) -> str:
    """The first ``width`` cells of a markdown table row, stripped and joined by `` | ``."""
    return " | ".join(cell.strip() for cell in row.strip().strip("|").split("|")[:width])


def key_width(rows: list[str]) -> int:
    """How many leading cells tell the rows apart: 1 for most tables, 2 where the first repeats (case | tool)."""
    for width in range(1, 4):
        keys = [leading_cells(row, width) for row in rows]
        if len(set(keys)) == len(keys):
            return width
    raise FigureError(f"the results rows are not told apart by their first three cells: {rows[:2]} ...")


def results_table(results: Path, name: str, header: str) -> list[str]:
    """The table of ``results/name`` whose header is ``header``."""
    path = results / name
    if not path.is_file():
        raise FigureError(f"bench-table marker names {name}, which is not in {results}")
    for table in markdown_tables(path.read_text()):
        if table[0] == header:
            return table
    raise FigureError(f"{name} has no table with the header {header!r}: copy the table's header from {path}")


def json_value(results: Path, name: str, path: str) -> float:
    """The number at ``path`` (``/``-separated keys and list indices) of ``results/name``.

    A ``name`` with a ``/`` is relative to the repository root instead (``tools/readme_command_times.json``).
    """
    file = ROOT / name if "/" in name else results / name
    if not file.is_file():
        raise FigureError(f"fig marker names {name}, which is not in {results}")
    value = json.loads(file.read_text())
    for key in path.split("/"):
        try:
            value = value[int(key)] if isinstance(value, list) else value[key]
        except (KeyError, IndexError, ValueError, TypeError):
            raise FigureError(f"{name} has no {path!r}: {key!r} not found") from None
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise FigureError(f"{name} {path!r} is {value!r}, not a number")
    return value


def check_tables(readme: Path, lines: list[str], results: Path, fix: bool) -> list[Drift]:
    """Check (and with ``fix`` rewrite) the rows of every table after a bench-table marker."""
    drifts = []
    for index, line in enumerate(lines):
        marker = TABLE_MARKER.search(line)
        if not marker:
            continue
        start = index + 1
        if start >= len(lines) or not lines[start].strip().startswith("|"):
            raise FigureError(f"{readme}:{index + 1}: a bench-table marker must be followed by a table")
        expected = results_table(results, marker["file"], lines[start].strip())
        width = key_width(expected[2:])
        by_case = {leading_cells(row, width): row for row in expected[2:]}
        seen: set[str] = set()
        row_index = start + 2
        while row_index < len(lines) and lines[row_index].strip().startswith("|"):
            row = lines[row_index].strip()
            key = leading_cells(row, width)
            if key not in by_case:
                raise FigureError(f"{readme}:{row_index + 1}: {marker['file']} has no row {key!r}")
            if key in seen:
                raise FigureError(f"{readme}:{row_index + 1}: the row {key!r} of {marker['file']} is there twice")
            seen.add(key)
            if row != by_case[key]:
                drifts.append(Drift(readme, row_index + 1, row, by_case[key]))
                if fix:
                    lines[row_index] = by_case[key]
            row_index += 1
    return drifts


def check_figures(readme: Path, lines: list[str], results: Path, fix: bool) -> list[Drift]:
    """Check (and with ``fix`` rewrite) the figure right after every fig marker."""
    drifts = []
    for index, line in enumerate(lines):
        for marker in reversed(list(FIGURE_MARKER.finditer(line))):
            expected = format(json_value(results, marker["file"], marker["path"]), marker["spec"])
            after = line[marker.end() :]
            found = re.match(r"[-+−]?[\d,.]*", after).group(0).rstrip(".,")
            if found != expected:
                drifts.append(Drift(readme, index + 1, found, expected))
                if fix:
                    line = line[: marker.end()] + expected + after[len(found) :]
        lines[index] = line
    return drifts


def refuse_markers_in_code(readme: Path, lines: list[str]) -> None:
    """Markers inside a fenced code block would be shown as text: refuse them."""
    in_code = False
    for index, line in enumerate(lines):
        if line.lstrip().startswith("```"):
            in_code = not in_code
        elif in_code and (TABLE_MARKER.search(line) or FIGURE_MARKER.search(line)):
            raise FigureError(
                f"{readme}:{index + 1}: a marker inside a code block is shown as text; quote the figure outside"
            )


def check_readme(readme: Path, results: Path = RESULTS, fix: bool = False) -> list[Drift]:
    """All drifted figures of one README; with ``fix`` the README is rewritten with the current results."""
    text = readme.read_text()
    lines = text.splitlines()
    refuse_markers_in_code(readme, lines)
    drifts = check_tables(readme, lines, results, fix) + check_figures(readme, lines, results, fix)
    if fix and drifts:
        readme.write_text("\n".join(lines) + ("\n" if text.endswith("\n") else ""))
    return drifts


def default_readmes() -> list[Path]:
    """README.md, every package README and guide, every example README and every page of the documentation site."""
    patterns = ("packages/*/README.md", "packages/*/docs/*.md", "examples/*/README.md", "docs/**/*.md")
    return [ROOT / "README.md", *sorted(path for pattern in patterns for path in ROOT.glob(pattern))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("readmes", nargs="*", type=Path, help="READMEs to check (default: all)")
    parser.add_argument("--fix", action="store_true", help="rewrite drifted figures from the committed results")
    parser.add_argument("--results", type=Path, default=RESULTS, help="benchmark results directory")
    args = parser.parse_args(argv)
    try:
        drifts = [
            d for readme in args.readmes or default_readmes() for d in check_readme(readme, args.results, args.fix)
        ]
    except FigureError as error:
        print(f"Error: {error}", file=sys.stderr)
        return 1
    for drift in drifts:
        print(f"{'fixed' if args.fix else 'drifted'}: {drift}", file=sys.stderr)
    return 1 if drifts and not args.fix else 0


if __name__ == "__main__":
    sys.exit(main())
