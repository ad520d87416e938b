"""Temporary names that say who writes them, and which leftovers count as stale."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from maze.env.utils import files
from maze.env.utils.files import atomic_write_bytes, write_new_file
from maze.env.utils.temp_files import in_progress, is_stale, remove_stale_temps, temp_name, writer_tag


def test_a_temporary_name_is_hidden_and_names_this_process_and_host() -> None:
    name = temp_name("checkpoint-3")
    assert name.startswith(f".checkpoint-3.{writer_tag()}.") and name.endswith(".tmp")
    assert writer_tag().startswith(f"p{os.getpid()}@") and temp_name("x", ".old").endswith(".old")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs a process that has ended")
def test_leftovers_of_ended_processes_and_old_unnamed_ones_are_stale(tmp_path: Path) -> None:
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    ended = tmp_path / temp_name("a").replace(f".p{os.getpid()}@", f".p{pid}@")
    mine, being_written = tmp_path / temp_name("b"), tmp_path / temp_name("c")
    other_host = tmp_path / ".d.p1@some-other-host.ab12.tmp"
    unnamed_old, unnamed_new = tmp_path / ".e.xyz.tmp", tmp_path / ".f.xyz.tmp"
    for path in (ended, mine, being_written, other_host, unnamed_old, unnamed_new):
        path.write_bytes(b"")
    os.utime(unnamed_old, (time.time() - 7200,) * 2)
    (tmp_path / "kept.tmp").write_bytes(b"not hidden: not ours")
    with in_progress(being_written):
        removed = remove_stale_temps(tmp_path)
    assert sorted(path.name for path in removed) == sorted(path.name for path in (ended, mine, unnamed_old))
    assert not is_stale(other_host) and is_stale(other_host, now=time.time() + 7200)


def test_atomic_writes_stage_under_a_name_that_names_the_writer(tmp_path: Path, monkeypatch) -> None:
    staged = []
    replace = os.replace

    def recording_replace(source, target) -> None:
        staged.append(Path(source).name)
        replace(source, target)

    monkeypatch.setattr(files.os, "replace", recording_replace)
    atomic_write_bytes(tmp_path / "state_dict.pt", b"weights")
    assert staged[0].startswith(f".state_dict.pt.{writer_tag()}.") and staged[0].endswith(".tmp")
    assert (tmp_path / "state_dict.pt").read_bytes() == b"weights"


def test_write_new_file_refuses_an_existing_file(tmp_path: Path) -> None:
    write_new_file(tmp_path / "a", b"x" * 100_000)
    assert (tmp_path / "a").read_bytes() == b"x" * 100_000
    with pytest.raises(FileExistsError):
        write_new_file(tmp_path / "a", b"y")
