"""Suggestions for mistyped names: the valid names closest to one, ignoring case ("did you mean").

Every "did you mean" hint of maze (unknown ``_target_`` s and arguments, wrapper arguments,
config keys and options) picks its suggestions here, so ``algorithm=PPO`` finds ``ppo`` and
``Name=`` finds ``name`` alike.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = ["close_matches"]


def close_matches(word: str, candidates: Iterable[str], limit: int = 1) -> list[str]:
    """The candidates closest to ``word``, best first; case does not count.

    Similarity is :func:`difflib.get_close_matches`' ratio (at least 0.6) of the case-folded
    spellings. Candidates that differ from each other only in case are equally close; they
    come in the order of ``candidates``.

    Args:
        word: What the user typed (a class name, an argument, a config key or option).
        candidates: The valid names.
        limit: At most this many suggestions.

    Returns:
        Up to ``limit`` candidates, spelled as in ``candidates``; empty when nothing is close.
    """
    by_folded: dict[str, list[str]] = {}
    for candidate in candidates:
        spellings = by_folded.setdefault(candidate.casefold(), [])
        if candidate not in spellings:
            spellings.append(candidate)
    folded_matches = difflib.get_close_matches(word.casefold(), list(by_folded), n=limit)
    return [spelling for folded in folded_matches for spelling in by_folded[folded]][:limit]
