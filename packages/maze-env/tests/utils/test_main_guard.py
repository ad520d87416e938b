"""check_main_guard: one clear error for a script that starts spawn/forkserver workers at module level unguarded."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType
from typing import Any, Optional

import pytest
from maze.env.errors import ConfigurationError
from maze.env.utils.main_guard import check_main_guard, reimport_note, unguarded_main_script

GUARD = 'if __name__ == "__main__":'


def run_as_main(tmp_path: Path, source: str, spec_name: Optional[str] = None, with_file: bool = True) -> Any:
    """Runs ``source`` as the top-level code of a fake main module; returns the value it stores in ``result``."""
    path = tmp_path / "script.py"
    path.write_text(textwrap.dedent(source))
    main = ModuleType("__main__")
    if with_file:
        main.__file__ = str(path)
    main.__spec__ = None if spec_name is None else type("Spec", (), {"name": spec_name})()
    main.__dict__["probe"] = lambda method="forkserver": unguarded_main_script(method, main)
    exec(compile(path.read_text(), str(path), "exec"), main.__dict__)  # noqa: S102 - the test's own script
    return main.__dict__["result"]


UNGUARDED = "result = probe()\n"
GUARDED = f"result = None\n{GUARD}\n    print('main')\n    result = probe()\n"
GUARD_BELOW = f"result = probe()\n{GUARD}\n    print('main')\n"
NOT_EQUAL_ELSE = "if __name__ != '__main__':\n    result = 'child'\nelse:\n    result = probe()\n"


@pytest.mark.parametrize(
    ("source", "flagged"),
    [(UNGUARDED, True), (GUARDED, False), (GUARD_BELOW, True), (NOT_EQUAL_ELSE, False)],
    ids=["unguarded", "guarded", "guard-below-the-call", "not-equal-else"],
)
def test_the_call_site_decides_whether_the_script_is_guarded(tmp_path: Path, source: str, flagged: bool) -> None:
    assert run_as_main(tmp_path, source) == (str(tmp_path / "script.py") if flagged else None)


def test_fork_no_file_and_package_main_modules_are_never_flagged(tmp_path: Path) -> None:
    assert run_as_main(tmp_path, "result = probe('fork')\n") is None
    assert run_as_main(tmp_path, UNGUARDED, with_file=False) is None  # python -c, REPL, notebook kernels
    assert run_as_main(tmp_path, UNGUARDED, spec_name="pkg.__main__") is None  # python -m pkg: not re-imported
    assert run_as_main(tmp_path, UNGUARDED, spec_name="pkg.module") == str(tmp_path / "script.py")  # python -m


def test_a_call_outside_the_main_modules_top_level_code_is_not_flagged(tmp_path: Path) -> None:
    main = ModuleType("__main__")
    main.__file__ = str(tmp_path / "script.py")
    (tmp_path / "script.py").write_text("print('no guard')\n")
    assert unguarded_main_script("spawn", main) is None  # this test's frames are not the module's top level


def test_the_error_names_the_script_the_starter_and_the_fix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    main = ModuleType("__main__")
    main.__file__ = str(tmp_path / "script.py")
    main.__dict__["check"] = check_main_guard
    (tmp_path / "script.py").write_text("check('spawn', 'Starter', alternative='start_method=fork')\n")
    monkeypatch.setitem(sys.modules, "__main__", main)
    with pytest.raises(ConfigurationError) as error:
        exec(
            compile("check('spawn', 'Starter', alternative='start_method=fork')\n", main.__file__, "exec"),
            main.__dict__,
        )  # noqa: S102
    message = str(error.value)
    assert message.startswith(f"{tmp_path / 'script.py'} starts worker processes (Starter, start method spawn)")
    assert message.endswith(f"Put the code that starts them under `{GUARD}` (or use start_method=fork)")


SCRIPT = """
from functools import partial
from maze.env import GymMazeEnv
from maze.env.vector.subproc import SubprocVectorEnv
print("top-level code ran")
{start}
"""
START = "with SubprocVectorEnv([partial(GymMazeEnv, 'CartPole-v1')] * 2, start_method='spawn') as envs:\n    print(envs.n_envs, 'envs')"


def run_script(tmp_path: Path, guarded: bool) -> subprocess.CompletedProcess:
    start = f"{GUARD}\n" + textwrap.indent(START, "    ") if guarded else START
    script = tmp_path / ("guarded.py" if guarded else "unguarded.py")
    script.write_text(SCRIPT.format(start=start))
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, cwd=tmp_path)


def test_an_unguarded_script_fails_at_once_with_one_error_and_a_guarded_one_runs(tmp_path: Path) -> None:
    unguarded = run_script(tmp_path, guarded=False)
    assert unguarded.returncode == 1
    assert unguarded.stdout == "top-level code ran\n"  # no worker started, so nothing ran twice
    assert unguarded.stderr.count("Traceback") == 1 and "bootstrapping phase" not in unguarded.stderr
    assert (
        unguarded.stderr.strip()
        .splitlines()[-1]
        .startswith(
            f"maze.env.errors.ConfigurationError: {tmp_path / 'unguarded.py'} starts worker processes (SubprocVectorEnv, "
            "start method spawn) at module level without"
        )
    )
    guarded = run_script(tmp_path, guarded=True)
    assert guarded.returncode == 0, guarded.stderr
    assert guarded.stdout.splitlines()[-1] == "2 envs"


def test_workers_dying_on_start_up_name_the_re_imported_script(tmp_path: Path) -> None:
    start = f"{GUARD}\n" + textwrap.indent(START, "    ")
    failing = (
        'import multiprocessing\nif multiprocessing.current_process().name != "MainProcess":\n    raise ValueError("x")'
    )
    script = tmp_path / "side_effect.py"
    script.write_text(SCRIPT.format(start=f"{failing}\n{start}"))
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert result.returncode == 1
    assert (
        result.stderr.strip()
        .splitlines()[-1]
        .endswith(
            f"died during init() (exit code 1); look for a crash or an os._exit in that env, or a process that killed "
            f"it. Each worker first re-imports {script} (start method spawn): code there outside `{GUARD}` runs in every "
            "worker and, if it fails, ends the worker like this."
        )
    )
    assert reimport_note("fork") == ""
