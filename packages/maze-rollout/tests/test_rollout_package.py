"""The installed distribution exposes its leaf and its version."""

import subprocess
import sys
from importlib.metadata import version

import maze.rollout


def test_leaf_reports_installed_version() -> None:
    assert maze.rollout.__version__ == version("maze-rollout")


def test_leaf_is_installed_not_imported_from_the_source_tree() -> None:
    assert "site-packages" in maze.rollout.__file__


def test_importing_rollout_does_not_import_torch() -> None:
    code = "import sys, maze.rollout; print('torch' in sys.modules)"
    result = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"


def test_every_public_name_resolves_and_running_a_rollout_does_not_import_torch(tmp_path) -> None:
    code = (
        "import sys, maze.rollout as r\n"
        "names = [getattr(r, name) for name in r.__all__]\n"
        "r.SequentialRolloutRunner(n_episodes=2, max_episode_steps=3, record_trajectory=False).run_with("
        "{'_target_': 'maze.env.make_gym_maze_env', 'name': 'CartPole-v1'}, None, {'_target_': 'maze.env.RandomPolicy'})\n"
        "print('torch' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path)
    assert result.stdout.strip().splitlines()[-1] == "False"
