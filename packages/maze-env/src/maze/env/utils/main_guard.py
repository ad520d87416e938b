"""The check that a script does not start worker processes at module level without ``if __name__ == "__main__":``.

With the ``spawn`` and ``forkserver`` start methods every new process re-imports the main
module (as ``__mp_main__``) before it runs its target. A script that starts workers at
module level, outside ``if __name__ == "__main__":``, starts them again on that import;
Python then fails in the child ("An attempt has been made to start a new process before
the current process has finished its bootstrapping phase"), the child dies, and the parent
only sees dead workers. Components that start worker processes call
:func:`check_main_guard` first, so the script fails at once with one error naming it.

The rule mirrors what the child re-imports (``multiprocessing.spawn.get_preparation_data``):
the main module counts when it has a ``__spec__`` name other than ``__main__`` /
``*.__main__`` (``python -m pkg.module``) or, without a spec, a ``__file__`` (``python
script.py``, console scripts). ``python -c``, the REPL and notebook kernels have neither,
so nothing is re-imported and nothing is checked. The call must come from the main module's
top-level code (its ``<module>`` frame is on the current call stack) at a line outside the
body of an ``if __name__ == "__main__":`` block (found by parsing the script's source). A
process that is itself being bootstrapped is never checked (Python's own error applies there).
"""

from __future__ import annotations

import ast
import multiprocessing
import os
import sys
from types import ModuleType
from typing import Optional

from maze.env.errors import ConfigurationError

__all__ = ["check_main_guard", "reimport_note", "unguarded_main_script"]

REIMPORTING_START_METHODS = ("spawn", "forkserver")
"""Start methods whose new processes re-import the main module."""


def check_main_guard(start_method: str, starter: str, alternative: Optional[str] = None) -> None:
    """Raises if worker processes started now would start again when each worker re-imports the main script.

    Call it before starting any process (fork server included).

    Args:
        start_method: The multiprocessing start method of the workers (``fork`` is never checked).
        starter: What starts the workers, for the message (e.g. ``"SubprocVectorEnv"``).
        alternative: Another fix for the message where the starter offers one
            (e.g. ``"start_method='fork'"``).

    Raises:
        ConfigurationError: The call comes from the main script's module-level code outside
            ``if __name__ == "__main__":`` (the message names the script and the fix).
    """
    script = unguarded_main_script(start_method, sys.modules.get("__main__"))
    if script is None:
        return
    other_fix = f" (or use {alternative})" if alternative else ""
    raise ConfigurationError(
        f"{script} starts worker processes ({starter}, start method {start_method}) at module level without `if "
        '__name__ == "__main__":`; every worker re-imports the script and would run that code again. Put the code '
        f'that starts them under `if __name__ == "__main__":`{other_fix}'
    )


def reimport_note(start_method: str) -> str:
    """A sentence for errors about workers that died on start-up: they first re-import the main script.

    Args:
        start_method: The multiprocessing start method of the workers.

    Returns:
        The sentence (starting with a space) when the workers re-import a ``.py`` main script,
        else ``""`` (``fork``, console scripts such as ``maze-run``, ``python -c``, notebooks).
    """
    main = sys.modules.get("__main__")
    if start_method not in REIMPORTING_START_METHODS or main is None:
        return ""
    path = _reimported_path(main)
    if path is None or not path.endswith(".py"):
        return ""
    return (
        f" Each worker first re-imports {path} (start method {start_method}): code there outside "
        '`if __name__ == "__main__":` runs in every worker and, if it fails, ends the worker like this.'
    )


def unguarded_main_script(start_method: str, main: Optional[ModuleType]) -> Optional[str]:
    """The path of the main script if processes started now would re-run the calling code, else None.

    Args:
        start_method: The multiprocessing start method of the workers.
        main: The main module (``sys.modules["__main__"]``).

    Returns:
        The script's path when the call stack holds ``main``'s top-level frame at a line
        outside an ``if __name__ == "__main__":`` body; None otherwise (or when the
        script's source cannot be read or parsed).
    """
    if start_method not in REIMPORTING_START_METHODS or main is None:
        return None
    if getattr(multiprocessing.current_process(), "_inheriting", False):
        return None
    path = _reimported_path(main)
    if path is None:
        return None
    line = _top_level_line(main)
    if line is None:
        return None
    try:
        with open(path, "rb") as file:
            tree = ast.parse(file.read(), filename=path)
    except (OSError, SyntaxError, ValueError):
        return None
    return None if _inside_main_guard(tree, line) else path


def _reimported_path(main: ModuleType) -> Optional[str]:
    """The file a new spawn/forkserver process would import as ``__mp_main__`` (None: nothing is imported)."""
    spec_name = getattr(getattr(main, "__spec__", None), "name", None)
    if spec_name is not None and (spec_name == "__main__" or spec_name.endswith(".__main__")):
        return None
    path = getattr(main, "__file__", None)
    return os.path.normpath(os.path.abspath(path)) if isinstance(path, str) else None


def _top_level_line(main: ModuleType) -> Optional[int]:
    """The line the main module's top-level code is executing, if its frame is on the current call stack."""
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_globals is main.__dict__ and frame.f_code.co_name == "<module>":
            return frame.f_lineno
        frame = frame.f_back
    return None


def _inside_main_guard(tree: ast.Module, line: int) -> bool:
    """Whether ``line`` lies in the branch of an ``if __name__ == "__main__":`` (or ``!=`` ... ``else:``) that runs as main."""
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            branch = _main_branch(node)
            if any(statement.lineno <= line <= (statement.end_lineno or statement.lineno) for statement in branch):
                return True
    return False


def _main_branch(node: ast.If) -> list[ast.stmt]:
    """The statements of ``node`` that run only in the main process (empty if ``node`` is no ``__name__`` test)."""
    test = node.test
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Eq, ast.NotEq))):
        return []
    operands = [test.left, test.comparators[0]]
    names = [operand for operand in operands if isinstance(operand, ast.Name) and operand.id == "__name__"]
    constants = [operand for operand in operands if isinstance(operand, ast.Constant) and operand.value == "__main__"]
    if not (names and constants):
        return []
    return node.body if isinstance(test.ops[0], ast.Eq) else node.orelse
