"""Side-by-side measurement helpers: interleaved rounds, medians, paired ratios, memory, result files."""

from __future__ import annotations

import json
import os
import platform
import re
import statistics
import time
import traceback
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

RESULTS_DIR = Path(__file__).resolve().parent / "results"

MEMORY_NOTE = (
    "Peak RSS growth: how much one run of the workload grows the resident set at its peak, measured in a forked "
    "child per case that starts from the same state (what the process held before, such as imports and objects "
    "built outside the workload, is not counted)."
)
"""How the memory columns of the in-process suites are measured (:func:`peak_rss_growth`)."""


def cpu_model() -> str:
    """The processor's model name (Linux: ``/proc/cpuinfo``; elsewhere what :mod:`platform` knows).

    Results name it because they depend on it: besides speed, matrix kernels round differently
    on different instruction sets, so a learning run of one seed takes another course.
    """
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.partition(":")[2].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def machine() -> str:
    """The processor architecture and model and the Python build (the ``Machine:`` line of every result)."""
    return f"{platform.machine()}, {cpu_model()}, {platform.python_implementation()} {platform.python_version()}"


@dataclass
class Row:
    """One line of a results table: a measured case against its peer."""

    case: str
    peer: str
    rate: float
    peer_rate: float
    ratio: float
    max_ratio: float | None
    peak_rss_growth_mib: float | None = None
    peer_peak_rss_growth_mib: float | None = None

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


def peak_rss_growth(cases: dict[str, Callable[[], float]]) -> dict[str, float]:
    """How much each case's workload grows the resident set at its peak: one run per case, each in a forked child.

    Every child starts as a copy of this process, resets its peak-RSS mark, runs the workload once
    and reports ``VmHWM`` minus its RSS before the run (Linux ``/proc``). So each case is measured
    from the same state, and what the process held before (imports, envs built outside the
    workload) is not counted; processes the workload starts are not counted either.

    Args:
        cases: Name -> function that runs a fixed workload (as for :func:`interleaved_rates`).

    Returns:
        MiB per case.
    """
    return {name: _forked_peak_growth(run) for name, run in cases.items()}


def _forked_peak_growth(run: Callable[[], float]) -> float:
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: measure, report through the pipe, leave without running any exit handlers
        try:
            os.close(read_end)
            before = _status_mib("VmRSS")
            with open("/proc/self/clear_refs", "w", encoding="ascii") as clear_refs:
                clear_refs.write("5")  # resets VmHWM to the current RSS
            run()
            os.write(write_end, repr(_status_mib("VmHWM") - before).encode())
            os._exit(0)
        except BaseException:
            traceback.print_exc()
        os._exit(1)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        reported = pipe.read()
    _, status = os.waitpid(pid, 0)
    if status != 0 or not reported:
        raise RuntimeError(f"the memory measurement child failed (wait status {status})")
    return float(reported)


def _status_mib(field: str) -> float:
    """A ``kB`` field of ``/proc/self/status`` (``VmRSS``, ``VmHWM``) in MiB."""
    with open("/proc/self/status", encoding="ascii") as status:
        return int(re.search(rf"^{field}:\s+(\d+) kB", status.read(), re.MULTILINE).group(1)) / 1024


def timed_rate(work: Callable[[], int]) -> float:
    """Runs ``work`` (which returns how many units it did) and returns units per second."""
    start = time.perf_counter()
    units = work()
    return units / (time.perf_counter() - start)


def paired_row(
    rates: dict[str, list[float]],
    case: str,
    peer: str,
    max_ratio: float | None,
    memory: dict[str, float] | None = None,
) -> Row:
    """Compares a case with its peer round by round: the ratio is the median of peer/case rates.

    ``memory`` (from :func:`peak_rss_growth`) adds both workloads' peak RSS growth to the row.
    """
    ratios = [peer_rate / rate for rate, peer_rate in zip(rates[case], rates[peer], strict=True)]
    return Row(
        case=case,
        peer=peer,
        rate=statistics.median(rates[case]),
        peer_rate=statistics.median(rates[peer]),
        ratio=statistics.median(ratios),
        max_ratio=max_ratio,
        peak_rss_growth_mib=None if memory is None else memory[case],
        peer_peak_rss_growth_mib=None if memory is None else memory[peer],
    )


def markdown_table(rows: list[Row]) -> str:
    """The rows as a markdown table (cost ratio = peer rate / case rate; memory columns when measured)."""
    with_memory = any(row.peak_rss_growth_mib is not None for row in rows)
    memory_header = " peak RSS growth (MiB) | peer peak RSS growth (MiB) |" if with_memory else ""
    lines = [
        f"| case | rate (/s) | peer | peer rate (/s) | cost ratio | target | met |{memory_header}",
        "|---|---:|---|---:|---:|---|---|" + ("---:|---:|" if with_memory else ""),
    ]
    for row in rows:
        met = "yes" if row.passed else "**no**"
        target = "—" if row.max_ratio is None else f"≤ {row.max_ratio:g}×"
        memory = f" {_mib(row.peak_rss_growth_mib)} | {_mib(row.peer_peak_rss_growth_mib)} |" if with_memory else ""
        lines.append(
            f"| {row.case} | {row.rate:,.0f} | {row.peer} | {row.peer_rate:,.0f} | {row.ratio:.2f}× | {target} | {met} |"
            + memory
        )
    return "\n".join(lines)


def _mib(value: float | None) -> str:
    return "—" if value is None else f"{value:,.1f}"


def write_results(name: str, title: str, rows: list[Row], notes: str) -> Path:
    """Writes ``results/<name>.json`` and ``results/<name>.md`` and returns the markdown path."""
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    where = machine()
    payload = {"benchmark": name, "machine": where, "rows": [asdict(row) | {"met": row.passed} for row in rows]}
    (RESULTS_DIR / f"{name}.json").write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    markdown = f"### {title}\n\n{markdown_table(rows)}\n\n{notes}\n\nMachine: {where}.\n"
    path = RESULTS_DIR / f"{name}.md"
    path.write_text(markdown, encoding="utf-8")
    return path
