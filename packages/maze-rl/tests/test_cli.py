"""The maze-run console script, run as a subprocess with fake runners (tests/support on PYTHONPATH)."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from omegaconf import OmegaConf

SUPPORT = Path(__file__).resolve().parent / "support"
FAKE = "runner._target_=fake_runners.RecordingRunner"


def maze_run_executable() -> str:
    found = shutil.which("maze-run", path=str(Path(sys.executable).parent)) or shutil.which("maze-run")
    assert found, "the maze-run console script is not installed"
    return found


def maze_run_environment() -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key != "HYDRA_FULL_ERROR"}
    env["PYTHONPATH"] = os.pathsep.join([str(SUPPORT), *filter(None, [env.get("PYTHONPATH")])])
    env["OMP_NUM_THREADS"] = "1"
    return env


def maze_run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [maze_run_executable(), *args], cwd=cwd, env=maze_run_environment(), capture_output=True, text=True, timeout=120
    )


def only_run_dir(base: Path) -> Path:
    records = list(base.rglob("runner_record.json"))
    assert len(records) == 1, records
    return records[0].parent


def test_help_lists_groups_options_and_examples(tmp_path: Path) -> None:
    result = maze_run("--help", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    listed = {
        line.split(":", 1)[0].strip(): line.split(":", 1)[1] for line in result.stdout.splitlines() if ": " in line
    }
    assert {"a2c", "bc", "es", "impala", "ppo"} <= set(listed["algorithm"].replace(",", " ").split())
    assert {"a2c", "bc", "es", "impala", "ppo", "sac", "sacfd"} <= set(
        listed["algorithm_runner"].replace(",", " ").split()
    )
    assert {"dev", "local", "parallel", "sequential"} <= set(listed["runner"].replace(",", " ").split())
    for line in ("critic: ", "env: gym_env, tutorial_cutting_2d_basic", "model: "):
        assert line in result.stdout
    assert "maze-run -cn conf_train env.name=CartPole-v1 algorithm=ppo" in result.stdout
    assert not (tmp_path / "outputs").exists()


def test_help_imports_neither_torch_nor_maze_train() -> None:
    code = (
        "import sys; sys.argv = ['maze-run', '-cn', 'conf_train', '--help']\n"
        "from maze.rl.cli import main\n"
        "try:\n    main()\nexcept SystemExit as exit:\n    assert exit.code == 0, exit.code\n"
        "print(sorted(name for name in ('torch', 'maze.train', 'maze.perception') if name in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert result.stdout.strip().splitlines()[-1] == "[]"


def test_run_calls_setup_and_run_in_the_run_dir_and_logs_the_output(tmp_path: Path) -> None:
    (tmp_path / "previous").mkdir()
    result = maze_run(FAKE, "+runner.objective=2.5", "input_dir=previous", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    run_dir = only_run_dir(tmp_path / "outputs")
    assert run_dir.parent.name == "gym_env-flatten_concat-random_policy-auto"
    record = json.loads((run_dir / "runner_record.json").read_text())
    assert record["init_cwd"] == record["setup_cwd"] == record["run_cwd"] == str(run_dir)
    assert record["kwargs"]["n_episodes"] == 50  # the rest of the runner group reaches the constructor
    assert record["config"]["input_dir"] == str(tmp_path / "previous")
    assert record["config"]["env"]["name"] == "CartPole-v1"
    log = (run_dir / "maze_cli.log").read_text()
    assert "recording runner: objective 2.5" in log and "recording runner: objective 2.5" in result.stdout
    assert (run_dir / ".hydra" / "config.yaml").is_file()
    resolved = OmegaConf.load(run_dir / ".hydra" / "config_resolved.yaml")  # the config as it ran
    assert resolved.runner._target_ == "fake_runners.RecordingRunner"
    assert resolved.input_dir == str(tmp_path / "previous") and resolved.runner.n_episodes == 50
    assert "_target_: fake_runners" not in log + result.stdout  # printed only with print_config=true


def test_training_root_names_the_run_dir_after_env_model_algorithm_runner(tmp_path: Path) -> None:
    result = maze_run(
        "-cn", "conf_train", "algorithm=a2c", "runner=dev", FAKE, "log_base_dir=runs", "print_config=true", cwd=tmp_path
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    run_dir = only_run_dir(tmp_path / "runs")
    assert "_target_: fake_runners.RecordingRunner" in result.stdout  # print_config=true: resolved, on the console
    assert "_target_: fake_runners.RecordingRunner" in (run_dir / "maze_cli.log").read_text()
    assert run_dir.parent.name == "gym_env-flatten_concat-a2c-dev"
    record = json.loads((run_dir / "runner_record.json").read_text())
    assert record["kwargs"]["trainer_class"] == "maze.train.trainers.a2c.A2C"
    assert record["config"]["input_dir"] == ""


def test_multirun_makes_one_job_dir_per_value(tmp_path: Path) -> None:
    result = maze_run(FAKE, "+runner.objective=1.0,2.0", "--multirun", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    records = sorted((tmp_path / "outputs" / "sweep").rglob("runner_record.json"))
    assert [record.parent.name for record in records] == ["0", "1"]
    assert len({record.parent.parent for record in records}) == 1  # one sweep directory
    for record, objective in zip(records, ("1.0", "2.0"), strict=True):
        assert json.loads(record.read_text())["config"]["runner"]["objective"] == float(objective)
        assert f"recording runner: objective {objective}" in (record.parent / "maze_cli.log").read_text()


def test_custom_config_dir_and_root(tmp_path: Path) -> None:
    result = maze_run("-cd", str(SUPPORT / "conf"), "-cn", "my_root", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    run_dir = only_run_dir(tmp_path / "custom_outputs")
    assert run_dir.name == "gym_env-vector_obs"
    record = json.loads((run_dir / "runner_record.json").read_text())
    assert record["config"]["model"]["_target_"].endswith("TemplateModelComposer")  # from maze-perception
    assert "recording runner: objective 7.5" in result.stdout


@pytest.mark.parametrize(
    ("override", "expected"),
    [
        ("algorithm=ppoo", ["Available options in 'algorithm'", "\ta2c\n", "\tppo", "Did you mean algorithm=ppo?"]),
        (
            "algorithm.noise_stdev=1",
            [
                "Unknown config key 'algorithm.noise_stdev'",
                "Did you mean 'algorithm.noise_stddev'?",
                "+algorithm.noise_stdev=1",
            ],
        ),
        ("algorithmm.noise_stddev=1", ["Did you mean 'algorithm.noise_stddev'?"]),
    ],
)
def test_config_mistakes_give_one_message_without_traceback(tmp_path: Path, override: str, expected: list[str]) -> None:
    result = maze_run("-cn", "conf_train", override, FAKE, cwd=tmp_path)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    for text in expected:
        assert text in result.stderr
    assert not (tmp_path / "outputs").exists()


@pytest.mark.skipif(
    importlib.util.find_spec("maze.rllib") is not None, reason="maze-rllib is installed (its own session tests it)"
)
def test_conf_rllib_without_maze_rllib_is_one_line_naming_the_package(tmp_path: Path) -> None:
    result = maze_run("-cn", "conf_rllib", "env.name=CartPole-v1", "rllib/algorithm=ppo", cwd=tmp_path)
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        "Error: conf_rllib (and the rllib/... config groups, maze.rllib runners) come with maze-rllib, "
        "which is not installed here: pip install -c "
    )
    assert "packages/maze-rllib" in lines[0] and "pins gymnasium" in lines[0]


def test_maze_errors_of_the_runner_are_one_line(tmp_path: Path) -> None:
    result = maze_run("runner._target_=fake_runners.FailingRunner", cwd=tmp_path)
    assert result.returncode == 1
    message = "Error: the fake runner was told to fail; set runner.kind=ok to succeed"
    assert result.stderr.strip() == message
    log = next((tmp_path / "outputs").rglob("maze_cli.log")).read_text()
    assert "failing runner: set up" in log and message in log


def test_other_errors_of_the_runner_keep_their_traceback(tmp_path: Path) -> None:
    result = maze_run("runner._target_=fake_runners.FailingRunner", "+runner.kind=bug", cwd=tmp_path)
    assert result.returncode == 1
    assert "Traceback" in result.stderr and "RuntimeError: unexpected failure inside the fake runner" in result.stderr
    log = next((tmp_path / "outputs").rglob("maze_cli.log")).read_text()
    assert "RuntimeError: unexpected failure inside the fake runner" in log


def test_a_failed_multirun_job_fails_the_command(tmp_path: Path) -> None:
    result = maze_run("runner._target_=fake_runners.FailingRunner", "+runner.kind=maze,bug", "--multirun", cwd=tmp_path)
    assert result.returncode == 1
    assert "Error: the fake runner was told to fail" in result.stderr
    assert len(list((tmp_path / "outputs" / "sweep").rglob("maze_cli.log"))) == 2


def _default_ctrl_c() -> None:
    """Gives the child the default Ctrl-C handling, also where the tests run with SIGINT ignored.

    A job a non-interactive shell starts in the background (``... &``, as CI scripts may)
    inherits an ignored SIGINT, and Python then keeps ignoring it: Ctrl-C would not reach maze-run.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_ends_a_run_with_one_line_naming_its_outputs(tmp_path: Path) -> None:
    waiting = tmp_path / "meet"  # the runner leaves a file here, then waits for a partner that never comes
    process = subprocess.Popen(
        [maze_run_executable(), "runner._target_=fake_runners.RendezvousRunner", f"+runner.directory={waiting}",
         "+runner.job=0", "+runner.timeout=60", "hydra.run.dir=run"],
        cwd=tmp_path, env=maze_run_environment(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True, preexec_fn=_default_ctrl_c,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while not (waiting.is_dir() and any(waiting.iterdir())):
        assert process.poll() is None and time.monotonic() < deadline, "the run did not start"
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
    stdout, stderr = process.communicate(timeout=60)

    assert process.returncode == 130
    assert f"Interrupted (Ctrl-C). The outputs so far are in {tmp_path / 'run'}" in stdout
    assert "Traceback" not in stdout + stderr


def _console_main_exit(body: str) -> subprocess.CompletedProcess:
    """Runs ``console_main`` in a fresh interpreter after ``body`` (which sets up sys.argv and more)."""
    code = f"import atexit, sys, threading\nfrom maze.rl.cli import console_main\n{body}\nconsole_main()\n"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


def test_console_main_runs_the_exit_handlers_and_keeps_the_exit_status() -> None:
    done = _console_main_exit(
        "atexit.register(lambda: print('exit handler ran', flush=True))\n"
        "sys.argv = ['maze-run', '-cn', 'conf_train', '--help']"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip().endswith("exit handler ran")
    failed = _console_main_exit("sys.argv = ['maze-run', '-cn', 'conf_train', 'algorithm=ppoo']")
    assert failed.returncode == 1 and "Did you mean" in failed.stderr


def test_console_main_waits_for_a_running_non_daemon_thread() -> None:
    done = _console_main_exit(  # the thread is still running when main() is done
        "import time\n"
        "import maze.rl.cli as cli\n"
        "main_done, original_main = threading.Event(), cli.main\n"
        "def main():\n"
        "    try:\n"
        "        original_main()\n"
        "    finally:\n"
        "        main_done.set()\n"
        "cli.main = main\n"
        "threading.Thread(target=lambda: (main_done.wait(), time.sleep(0.3), print('thread finished', flush=True)))"
        ".start()\n"
        "sys.argv = ['maze-run', '-cn', 'conf_train', '--help']"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip().endswith("thread finished")
