"""Writes the crafted legacy-pickle corpus (``corpus/legacy_pickles``) of maze-env's fuzz targets.

Run ``python packages/maze-env/tests/fuzz/write_corpus.py`` from the repository root.

Inputs the fuzzer finds are added to the corpus folders by hand, named after what they do.
"""

from __future__ import annotations

from fuzzing import CORPUS
from maze.env.testing.crafted_pickles import MEMORY_ATTACKS, dumps, structured_dtype_array


def main() -> None:
    """Writes every memory attack and a structured-dtype episode state as ``<name>.pkl``."""
    folder = CORPUS / "legacy_pickles"
    folder.mkdir(parents=True, exist_ok=True)
    for name, attack in MEMORY_ATTACKS.items():
        (folder / f"{name}.pkl").write_bytes(attack.pickle(protocol=4))
    (folder / "structured_dtype.pkl").write_bytes(dumps({"maze_state": structured_dtype_array()}, protocol=4))


if __name__ == "__main__":
    main()
