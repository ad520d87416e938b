"""Root configs that users copied from an earlier maze keep working after an upgrade.

``old_root_configs/`` holds maze's root configs as they were before the first root key was
added (``git show`` of the last versions before ``overwrite_run_dir``), renamed as a user
would (``my_train``, ``my_rollout``): they lack every root key added since
(``overwrite_run_dir``, ``tensorboard_figures``, ``trusted_modules``, the run directory guard). Such a copy, added with ``-cd`` as the own-env guide does, must still
train, roll out and deploy; maze's own configs read later root keys with a default.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterator
from importlib.resources import files
from pathlib import Path

import gymnasium
import pytest
from cli_support import SHORT_EPOCHS, assert_success, maze_run_command, maze_run_env, seeds
from maze.deploy import AgentDeployment
from omegaconf import OmegaConf
from test_cli_rollout import reward_rows

OLD_ROOTS = Path(__file__).resolve().parent / "old_root_configs"
ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_CONF = ROOT / "examples" / "your_own_env" / "conf"
INTERPOLATION = re.compile(r"\$\{([^}]*)\}")
TRAINING = (
    "env.name=CartPole-v1",
    "runner=dev",
    "algorithm.n_epochs=2",
    *SHORT_EPOCHS,
    "algorithm.rollout_evaluator.n_episodes=2",
    *seeds(5),
)


def run_in(project: Path, *args: str, run_dir: str) -> subprocess.CompletedProcess:
    """``maze-run -cd conf <args>`` started in ``project`` (as the guide does), writing into ``run_dir``."""
    return subprocess.run(
        maze_run_command("-cd", "conf", *args, run_dir=Path(run_dir)),
        cwd=project,
        env=maze_run_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A user's project whose conf/ holds root configs of an older maze."""
    folder = tmp_path_factory.mktemp("project")
    shutil.copytree(OLD_ROOTS, folder / "conf")
    return folder


def test_an_old_root_config_trains_rolls_out_and_deploys(project: Path) -> None:
    training = run_in(project, "-cn", "my_train", *TRAINING, run_dir="outputs/train")
    assert_success(training)
    recorded = OmegaConf.load(project / "outputs" / "train" / ".hydra" / "config.yaml")
    assert "tensorboard_figures" not in recorded and "overwrite_run_dir" not in recorded  # the old copy ran
    assert (project / "outputs" / "train" / "state_dict.pt").is_file()

    rollout_args = ("env.name=CartPole-v1", "policy=torch_policy", "input_dir=outputs/train", "runner=sequential")
    rollout = run_in(
        project, "-cn", "my_rollout", *rollout_args, "runner.n_episodes=3", *seeds(6), run_dir="outputs/rollout"
    )
    assert_success(rollout)
    assert reward_rows(rollout.stdout)["episode_count"] == 3.0

    agent = AgentDeployment.from_run_dir(project / "outputs" / "train", deterministic=True)
    env = gymnasium.make("CartPole-v1")
    observation, _ = env.reset(seed=7)
    actions = [agent.act(observation)]
    for _ in range(4):
        observation, reward, terminated, truncated, _ = env.step(actions[-1])
        assert not (terminated or truncated)
        actions.append(agent.act(observation, reward))
    agent.close(observation, 1.0, truncated=True)
    assert all(env.action_space.contains(action) for action in actions)


def test_a_missing_root_key_names_the_key_and_the_line_to_add(project: Path) -> None:
    """``input_dir`` is truly required by policy=torch_policy: a root config without it gets told what to add."""
    trimmed = project / "trimmed"
    (trimmed / "conf").mkdir(parents=True)
    config = OmegaConf.load(OLD_ROOTS / "my_rollout.yaml")
    del config["input_dir"]
    OmegaConf.save(config, trimmed / "conf" / "my_rollout.yaml")
    result = run_in(trimmed, "-cn", "my_rollout", "env.name=CartPole-v1", "policy=torch_policy", run_dir="outputs/x")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "Your root config has no 'input_dir'" in result.stderr
    assert "Add the line `input_dir: ''` to it, or inherit maze's root config" in result.stderr
    assert "defaults: [conf_rollout, _self_]" in result.stderr


def group_configs() -> Iterator[Path]:
    """Every YAML file of maze's config trees except the root configs (those define the root keys)."""
    for package in ("maze.conf", "maze.perception.conf"):
        conf = Path(str(files(package)))
        yield from (path for path in conf.rglob("*.yaml") if path.parent != conf)


def interpolations(node: object) -> Iterator[str]:
    """The ``${...}`` expressions in the values of a loaded YAML tree (comments do not count)."""
    if isinstance(node, dict):
        for value in node.values():
            yield from interpolations(value)
    elif isinstance(node, list):
        for value in node:
            yield from interpolations(value)
    elif isinstance(node, str):
        yield from INTERPOLATION.findall(node)


def root_names(path: Path) -> set[str]:
    """The root keys and default groups of a root config."""
    config = OmegaConf.to_container(OmegaConf.load(path), resolve=False)
    groups = {group.split()[-1] for entry in config["defaults"] if isinstance(entry, dict) for group in entry}
    return groups | set(config)


def test_maze_configs_read_later_root_keys_with_a_default() -> None:
    old = root_names(OLD_ROOTS / "my_train.yaml") | root_names(OLD_ROOTS / "my_rollout.yaml")
    bare = {}
    for path in group_configs():
        for expression in interpolations(OmegaConf.to_container(OmegaConf.load(path), resolve=False)):
            name = expression.split(".")[0]
            if ":" not in expression and name and name not in old:  # resolvers (oc.select) bring defaults
                bare.setdefault(str(path), []).append(expression)
    assert not bare, f"root keys added after the old root configs, read without ${{oc.select:key,default}}: {bare}"


def test_the_example_root_configs_inherit_maze_roots(tmp_path: Path) -> None:
    project = Path(
        shutil.copytree(EXAMPLE_CONF.parent, tmp_path / "your_own_env", ignore=shutil.ignore_patterns("outputs"))
    )
    for root, maze_root in (("conf_sorting", "conf_train"), ("conf_sorting_rollout", "conf_rollout")):
        config = OmegaConf.load(EXAMPLE_CONF / f"{root}.yaml")
        assert config.defaults[0] == maze_root and config.defaults[-1] == "_self_"
        composed = run_in(project, "-cn", root, "--cfg", "job", run_dir="outputs/x")
        assert_success(composed)
        job = OmegaConf.create(composed.stdout)
        maze_keys = set(OmegaConf.load(files("maze.conf") / f"{maze_root}.yaml")) - {"defaults", "hydra"}
        assert maze_keys <= set(job), f"{root} lacks {maze_keys - set(job)}"
        assert job.env._target_ == "sorting.make_sorting_env" and "TimeLimitWrapper" in job.wrappers
