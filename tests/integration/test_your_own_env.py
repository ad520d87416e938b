"""The README's "Your own environment" guide, run as written: its commands, from the example's folder.

The commands are read from the README (between the ``your-own-env-commands`` markers) and run
one by one with ``bash`` in a copy of ``examples/your_own_env/``, with the interpreter's
``bin`` folder first on ``PATH`` (its ``python`` and ``maze-run``) and without ``PYTHONPATH``
or thread variables, as a user's shell would have it. Under ``nox -s integration`` the packages
are the session's non-editable installs (no fresh venv per test: that would cost minutes).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "your_own_env"
COMMANDS = re.compile(r"<!-- your-own-env-commands -->\n```bash\n(.*?)```\n<!-- /your-own-env-commands -->", re.DOTALL)
YAML_BLOCK = re.compile(r"<!-- (file|new-file): (\S+) -->\n```yaml\n(.*?)```", re.DOTALL)
TINY = (
    "algorithm.n_epochs=1 algorithm.epoch_length=1 algorithm.n_rollout_steps=5 algorithm.rollout_evaluator.n_episodes=1 "
    "runner.concurrency=1 runner.progress=off"
)
REWARD_MEAN = re.compile(r"^\s*\d+\|rollout_stats\s+BaseEnvEvents\s+reward\s+mean\s+\|\s*(-?[\d.]+)", re.MULTILINE)
EPOCH_LINE = re.compile(r"^epoch (\d+): (\d+) env steps \((\d+) sub-steps\) in [\d.]+s, \d+ env steps/s$", re.MULTILINE)


def guide_commands() -> list[str]:
    """The command lines of the guide, as the README shows them."""
    found = COMMANDS.search((ROOT / "README.md").read_text(encoding="utf-8"))
    assert found, "README.md has no your-own-env-commands block"
    return [line for line in found.group(1).splitlines() if line.strip()]


def user_shell_env() -> dict[str, str]:
    """A user's environment: the installed scripts first on PATH, no PYTHONPATH, no thread limits."""
    drop = {"PYTHONPATH", "HYDRA_FULL_ERROR", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"}
    env = {key: value for key, value in os.environ.items() if key not in drop}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["MPLBACKEND"] = "Agg"
    return env


def copy_example(target: Path) -> Path:
    """A copy of the example folder without outputs or caches."""
    return Path(shutil.copytree(EXAMPLE, target, ignore=shutil.ignore_patterns("outputs", "__pycache__")))


@pytest.fixture(scope="module")
def guide_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[subprocess.CompletedProcess]]:
    """Every command of the guide, run in turn in a copy of the example (stops at the first failure)."""
    folder = copy_example(tmp_path_factory.mktemp("guide") / "your_own_env")
    results = []
    for command in guide_commands():
        result = subprocess.run(
            ["bash", "-c", command], cwd=folder, env=user_shell_env(), capture_output=True, text=True, timeout=300
        )
        assert result.returncode == 0, (
            f"{command}\nexit {result.returncode}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
        )
        assert "Traceback" not in result.stderr, result.stderr
        results.append(result)
    return folder, results


def test_the_guide_has_the_documented_steps() -> None:
    commands = guide_commands()
    assert [command.split()[0] for command in commands] == ["python", "maze-run", "maze-run", "maze-run", "python"]
    assert not any("PYTHONPATH" in command or re.search(r"(^|[;&|]\s*)cd\s", command) for command in commands)


def test_the_guide_trains_rolls_out_and_deploys_a_better_than_random_agent(guide_run) -> None:
    folder, (check, random_rollout, training, rollout, deployment) = guide_run
    random_reward = float(REWARD_MEAN.search(random_rollout.stdout).group(1))
    trained_reward = float(REWARD_MEAN.search(rollout.stdout).group(1))
    assert random_reward < 8.0, random_rollout.stdout[-2000:]  # masked random sorting: about 4 per episode
    assert trained_reward > 15.0, rollout.stdout[-2000:]  # the best possible is about 20 (+ fast handling)
    assert "sort_accuracy" in rollout.stdout and "SortingEvents" in rollout.stdout
    share = int(re.search(r"sorted correctly \((\d+)%\)", deployment.stdout).group(1))
    assert share >= 65, deployment.stdout

    summary = json.loads((folder / "outputs" / "sorting-ppo" / "training_summary.json").read_text())
    assert summary["sub_steps"] == 2 * summary["env_steps"] > 0  # two sub-steps per env step
    assert summary["best_eval_reward"] > 15.0
    assert f"{summary['env_steps']} env steps ({summary['sub_steps']} sub-steps)" in training.stdout


def test_training_output_to_a_file_has_one_progress_line_per_epoch(guide_run) -> None:
    _, (_, _, training, _, _) = guide_run
    lines = EPOCH_LINE.findall(training.stdout)
    assert [int(epoch) for epoch, _, _ in lines] == list(range(6))
    assert all(int(sub_steps) == 2 * int(steps) for _, steps, sub_steps in lines)
    assert "%|" not in training.stdout + training.stderr  # no bars when the output is no terminal


def test_a_target_given_on_the_command_line_drops_the_default_groups_keys(tmp_path: Path) -> None:
    folder = copy_example(tmp_path / "your_own_env")
    command = (
        "maze-run -cd conf -cn conf_train algorithm=ppo runner=dev env._target_=sorting.make_sorting_env +env.n_bins=4 "
        "wrappers=sorting algorithm.n_epochs=1 algorithm.epoch_length=1 algorithm.n_rollout_steps=5 "
        "algorithm.rollout_evaluator.n_episodes=1 runner.concurrency=1 runner.progress=off hydra.run.dir=outputs/own"
    )
    result = subprocess.run(
        ["bash", "-c", command], cwd=folder, env=user_shell_env(), capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "dropped env.name, env.render_mode" in result.stdout
    assert not EPOCH_LINE.search(result.stdout)  # runner.progress=off: quiet
    recorded = (folder / "outputs" / "own" / ".hydra" / "config.yaml").read_text()
    assert "n_bins: 4" in recorded and "render_mode" not in recorded


def test_a_kwargs_factory_given_on_the_command_line_trains_without_the_default_groups_keys(tmp_path: Path) -> None:
    """A factory taking ``**kwargs`` that passes them on: the default group's keys are dropped with one note."""
    folder = copy_example(tmp_path / "your_own_env")
    (folder / "kwargs_factory.py").write_text(
        "from sorting import make_sorting_env\n\n\ndef make_env(**kwargs):\n    return make_sorting_env(**kwargs)\n"
    )
    command = (
        "maze-run -cd conf -cn conf_train algorithm=ppo runner=dev env._target_=kwargs_factory.make_env +env.n_bins=4 "
        "wrappers=sorting algorithm.n_epochs=1 algorithm.epoch_length=1 algorithm.n_rollout_steps=5 "
        "algorithm.rollout_evaluator.n_episodes=1 runner.concurrency=1 runner.progress=off hydra.run.dir=outputs/kw"
    )
    result = subprocess.run(
        ["bash", "-c", command], cwd=folder, env=user_shell_env(), capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    notes = [line for line in result.stdout.splitlines() if line.startswith("Note: dropped")]
    assert len(notes) == 1 and notes[0].startswith("Note: dropped env.name, env.render_mode of"), notes
    assert "Traceback" not in result.stderr
    recorded = (folder / "outputs" / "kw" / ".hydra" / "config.yaml").read_text()
    assert "n_bins: 4" in recorded and "render_mode" not in recorded


def test_an_unknown_module_names_where_it_looked(tmp_path: Path) -> None:
    command = "maze-run -cn conf_train algorithm=ppo env._target_=sortng.make_sorting_env hydra.run.dir=outputs/typo"
    result = subprocess.run(
        ["bash", "-c", command], cwd=tmp_path, env=user_shell_env(), capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 1
    assert "no module 'sortng' is installed or on the import path" in result.stderr
    assert repr(str(tmp_path)) in result.stderr  # the start directory is searched first


def example_yaml_blocks() -> list[tuple[str, str, str]]:
    """(kind, path, text) of every YAML block of the example's README that names its file."""
    return YAML_BLOCK.findall((EXAMPLE / "README.md").read_text(encoding="utf-8"))


def test_the_example_readmes_yaml_is_that_of_its_files() -> None:
    blocks = example_yaml_blocks()
    files = {path for kind, path, _ in blocks if kind == "file"}
    assert {"conf/model/sorting.yaml", "conf/wrappers/sorting.yaml"} <= files
    for kind, path, text in blocks:
        if kind == "file":
            assert (EXAMPLE / path).read_text(encoding="utf-8") == text, path
        else:
            assert not (EXAMPLE / path).exists(), f"{path} exists: mark its block as file"


def run_in_copy(tmp_path: Path, command: str, folder: Path | None = None) -> subprocess.CompletedProcess:
    folder = folder or copy_example(tmp_path / "your_own_env")
    return subprocess.run(
        ["bash", "-c", command], cwd=folder, env=user_shell_env(), capture_output=True, text=True, timeout=300
    )


def test_the_readmes_new_wrappers_file_trains_with_its_model(tmp_path: Path) -> None:
    folder = copy_example(tmp_path / "your_own_env")
    for kind, path, text in example_yaml_blocks():
        if kind == "new-file":
            (folder / path).write_text(text, encoding="utf-8")
    result = run_in_copy(
        tmp_path,
        f"maze-run -cd conf -cn conf_sorting wrappers=sorting_normalized model=sorting {TINY} hydra.run.dir=outputs/n",
        folder,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert (folder / "outputs" / "n" / "statistics.npz").is_file()  # the normalization statistics of the run


def test_a_template_model_names_the_keys_it_lacks_and_takes_them_from_the_command_line(tmp_path: Path) -> None:
    """The README's rule: vector_obs maps only `observation`; a dict override maps the env's own keys."""
    folder = copy_example(tmp_path / "your_own_env")
    missing = run_in_copy(tmp_path, f"maze-run -cd conf -cn conf_sorting model=vector_obs {TINY}", folder)
    assert missing.returncode == 1
    assert "observations ['parcel'] have no entry in observation_modality_mapping" in missing.stderr
    readme = (EXAMPLE / "README.md").read_text(encoding="utf-8")
    mapping = "'model.model_builder.observation_modality_mapping={parcel: feature,\n  chosen_bin: feature}'"
    assert mapping in readme
    override = mapping.replace("\n  ", " ")
    mapped = run_in_copy(
        tmp_path,
        f"maze-run -cd conf -cn conf_sorting model=vector_obs {override} {TINY} hydra.run.dir=outputs/m",
        folder,
    )
    assert mapped.returncode == 0, mapped.stdout[-3000:] + mapped.stderr[-3000:]
    flat = run_in_copy(
        tmp_path, f"maze-run -cd conf -cn conf_sorting model=flatten_concat {TINY} hydra.run.dir=outputs/f", folder
    )
    assert flat.returncode == 0, flat.stdout[-3000:] + flat.stderr[-3000:]  # takes any keys
