"""The ``algorithm_runner`` options of earlier releases (``<algorithm>-<runner>``), kept as deprecated aliases.

Root configs written for an earlier maze (copied, not inherited) list
``optional algorithm_runner: ${algorithm}-${runner}``, one file per algorithm and backend.
Today one file per algorithm (``algorithm_runner/<algorithm>.yaml``) runs on every ``runner``
option. :func:`register_legacy_algorithm_runners` puts the old names into Hydra's config store
(not into ``conf/``), each composing the algorithm's runner (and, for ``ray``, the Ray training
keys of ``training_backend/ray.yaml``); :func:`legacy_algorithm_runner_note` says what to
change. The search-path plugin registers them wherever ``maze.conf`` is on Hydra's search path.
"""

from __future__ import annotations

from typing import Optional

__all__ = ["LEGACY_ALGORITHM_RUNNERS", "legacy_algorithm_runner_note", "register_legacy_algorithm_runners"]

LEGACY_ALGORITHM_RUNNERS: dict[str, tuple[str, ...]] = {
    "a2c": ("dev", "local", "ray"),
    "ppo": ("dev", "local", "ray"),
    "impala": ("dev", "local", "ray"),
    "sac": ("dev", "local", "ray"),
    "sacfd": ("dev", "local"),
    "es": ("dev", "local", "ray"),
    "bc": ("dev", "local"),
}
"""Algorithm -> the runner options it had an ``algorithm_runner/<algorithm>-<runner>.yaml`` for."""


def register_legacy_algorithm_runners() -> None:
    """Stores ``algorithm_runner/<algorithm>-<runner>`` in Hydra's config store (idempotent)."""
    from hydra.core.config_store import ConfigStore

    store = ConfigStore.instance()
    for algorithm, runners in LEGACY_ALGORITHM_RUNNERS.items():
        for runner in runners:
            defaults: list = [{"/training_backend@_here_": "ray"}] if runner == "ray" else []
            defaults += [{"/algorithm_runner@_here_": algorithm}, "_self_"]
            store.store(
                name=f"{algorithm}-{runner}", group="algorithm_runner", package="runner", node={"defaults": defaults}
            )


def legacy_algorithm_runner_note(choice: Optional[str]) -> Optional[str]:
    """The deprecation note for a job whose ``algorithm_runner`` choice is an old name (None for a current one)."""
    if not choice or "-" not in choice:
        return None
    algorithm = choice.split("-", 1)[0]
    return (
        f"Note: algorithm_runner={choice} is the name of an earlier release (one per algorithm and runner); it is "
        f"algorithm_runner={algorithm} now, which runs on every runner option. In your root config, replace "
        "`optional algorithm_runner: ${algorithm}-${runner}` with `optional training_backend: ${runner}` and "
        "`optional algorithm_runner: ${algorithm}` (or inherit conf_train)"
    )
