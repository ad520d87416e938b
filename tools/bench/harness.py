"""Side-by-side measurement helpers: interleaved rounds, medians, paired ratios, result files."""

from __future__ import annotations

import json
import platform
import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

RESULTS_DIR = Path(__file__).resolve().parent / "results"


@dataclass
class Row:
    """One line of a results table: a measured case against its peer."""

    case: str
    peer: str
    rate: float
    peer_rate: float
    ratio: float
    max_ratio: float | None

    @property
    def passed(self) -> bool:
        """True when the cost ratio is within the target (always, when there is none)."""
        return self.max_ratio is None or self.ratio <= self.max_ratio


def interleaved_rates(cases: dict[str, Callable[[], float]], rounds: int) -> dict[str, list[float]]:
    """Runs every case once per round, in turn, so machine noise hits all cases alike.

    Args:
        cases: Name -> function that runs a fixed workload and returns its rate.
        rounds: How many times each case runs.

    Returns:
        The rates per case, one per round.
    """
    rates: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(rounds):
        for name, run in cases.items():
            rates[name].append(run())
    return rates


def timed_rate(work: Callable[[], int]) -> float:
    """Runs ``work`` (which returns how many units it did) and returns units per second."""
    start = time.perf_counter()
    units = work()
    return units / (time.perf_counter() - start)


def paired_row(rates: dict[str, list[float]], case: str, peer: str, max_ratio: float | None) -> Row:
    """Compares a case with its peer round by round: the ratio is the median of peer/case rates."""
    ratios = [peer_rate / rate for rate, peer_rate in zip(rates[case], rates[peer], strict=True)]
    return Row(
        case=case,
        peer=peer,
        rate=statistics.median(rates[case]),
        peer_rate=statistics.median(rates[peer]),
        ratio=statistics.median(ratios),
        max_ratio=max_ratio,
    )


def markdown_table(rows: list[Row]) -> str:
    """The rows as a markdown table (cost ratio = peer rate / case rate)."""
    lines = [
        "| case | rate (/s) | peer | peer rate (/s) | cost ratio | target | met |",
        "|---|---:|---|---:|---:|---|---|",
    ]
    for row in rows:
        met = "yes" if row.passed else "**no**"
        target = "—" if row.max_ratio is None else f"≤ {row.max_ratio:g}×"
        lines.append(
            f"| {row.case} | {row.rate:,.0f} | {row.peer} | {row.peer_rate:,.0f} | {row.ratio:.2f}× | {target} | {met} |"
        )
    return "\n".join(lines)


def write_results(name: str, title: str, rows: list[Row], notes: str) -> Path:
    """Writes ``results/<name>.json`` and ``results/<name>.md`` and returns the markdown path."""
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    machine = f"{platform.machine()}, {platform.python_implementation()} {platform.python_version()}"
    payload = {"benchmark": name, "machine": machine, "rows": [asdict(row) | {"met": row.passed} for row in rows]}
    (RESULTS_DIR / f"{name}.json").write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    markdown = f"### {title}\n\n{markdown_table(rows)}\n\n{notes}\n\nMachine: {machine}.\n"
    path = RESULTS_DIR / f"{name}.md"
    path.write_text(markdown, encoding="utf-8")
    return path
