"""Run the READMEs' documented commands with their documented budgets and record their wall times.

Each scenario is a command exactly as a README writes it (``tests/integration/test_readme_commands.py``
checks that the text is in the README); ``<...>`` run directories are replaced by the run
directories of the scenarios that produce them, and a ``maze-run`` without a run directory gets
``hydra.run.dir=outputs/<scenario>``. The commands run one after another in a scratch directory,
the way a user runs them (fresh processes, start-up, evaluations and exit included), from the
active environment's ``maze-run`` and ``python``.

Usage: ``python tools/time_readme_commands.py [--only NAME ...] [--out tools/readme_command_times.json]``.
The JSON holds per scenario the wall time, the CPU time of the command's process tree (as far as
its processes were waited for), the 1-minute load average before and after and the figures the
command printed (:data:`PRINTED`, e.g. its evaluations' mean returns). The READMEs quote them with
markers such as ``<!-- fig: tools/readme_command_times.json .0f <scenario>/wall_s -->``, so
``python tools/check_readme_figures.py --fix`` rewrites them after a new run.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "tools" / "readme_command_times.json"


@dataclass(frozen=True)
class Scenario:
    """One documented command.

    Attributes:
        name: Key of the scenario in the results (and its run directory, ``outputs/<name>``).
        readme: The README (relative to the repository root) that documents ``command``.
        command: The command as the README writes it.
        run_dirs: ``<placeholder>`` of the command -> the scenario whose run directory it names.
        workdir: Folder of the repository copied into the scratch directory and run in
            (``examples/your_own_env``), or ``None`` for the scratch directory itself.
    """

    name: str
    readme: str
    command: str
    run_dirs: tuple[tuple[str, str], ...] = ()
    workdir: str | None = None


LUNAR_VECTOR = "env.name=LunarLander-v3 model=vector_obs wrappers=vector_obs"
SCENARIOS = (
    Scenario(
        "quick-start",
        "README.md",
        "maze-run -cn conf_train env.name=CartPole-v1 algorithm=ppo model=vector_obs critic=template_state"
        " +experiment=cartpole_ppo_fast algorithm.target_reward=475",
    ),
    Scenario(
        "imitation-record",
        "README.md",
        "maze-run env.name=LunarLander-v3 policy=lunar_lander_heuristics runner.n_episodes=200",
    ),
    Scenario(
        "imitation-bc",
        "README.md",
        f"maze-run -cn conf_train {LUNAR_VECTOR} algorithm=bc algorithm.n_epochs=20"
        " runner.dataset.input_data=<rollout run dir>/trajectory_data",
        (("<rollout run dir>", "imitation-record"),),
    ),
    Scenario(
        "imitation-rollout",
        "README.md",
        f"maze-run {LUNAR_VECTOR} policy=torch_policy input_dir=<bc run dir>",
        (("<bc run dir>", "imitation-bc"),),
    ),
    Scenario(
        "imitation-finetune",
        "README.md",
        "maze-run -cn conf_train env.name=LunarLander-v3 model=vector_obs critic=template_state wrappers=vector_obs"
        " algorithm=ppo algorithm.n_epochs=6 algorithm.critic_burn_in_epochs=2 algorithm.lr=0.00002 input_dir=<bc run dir>",
        (("<bc run dir>", "imitation-bc"),),
    ),
    Scenario(
        "es-3",
        "packages/maze-rl/README.md",
        "maze-run -cn conf_train env.name=CartPole-v1 algorithm=es model=vector_obs algorithm.n_epochs=3",
    ),
    Scenario(
        "ppo-defaults",
        "packages/maze-rl/README.md",
        "maze-run -cn conf_train env.name=CartPole-v1 algorithm=ppo model=vector_obs critic=template_state"
        " algorithm.target_reward=475 algorithm.n_epochs=20",
    ),
    Scenario(
        "a2c-5",
        "packages/maze-rl/README.md",
        "maze-run -cn conf_train algorithm=a2c model=vector_obs critic=template_state runner=dev algorithm.n_epochs=5",
    ),
    Scenario(
        "a2c-resume",
        "packages/maze-rl/README.md",
        "maze-run -cn conf_train algorithm=a2c model=vector_obs critic=template_state runner=dev algorithm.n_epochs=10"
        " input_dir=outputs/<run dir>",
        (("outputs/<run dir>", "a2c-5"),),
    ),
    Scenario("ppo-wrappers", "packages/maze-rl/README.md", "maze-run -cn conf_train +experiment=cartpole_ppo_wrappers"),
    Scenario(
        "rollout-random",
        "packages/maze-rl/README.md",
        "maze-run env.name=CartPole-v1 policy=random_policy runner.n_episodes=10",
    ),
    Scenario(
        "rollout-trained",
        "packages/maze-rl/README.md",
        "maze-run env.name=CartPole-v1 model=vector_obs policy=torch_policy input_dir=outputs/<run dir>",
        (("outputs/<run dir>", "quick-start"),),
    ),
    Scenario(
        "sac-pendulum",
        "packages/maze-rl/README.md",
        "maze-run -cn conf_train env.name=Pendulum-v1 algorithm=sac model=vector_obs critic=template_state_action"
        " algorithm.target_reward=-200 algorithm.n_epochs=20",
    ),
    Scenario(
        "sac-pendulum-rl-zoo",
        "packages/maze-rl/README.md",
        "maze-run -cn conf_train env.name=Pendulum-v1 algorithm=sac model=vector_obs critic=template_state_action"
        " +experiment=pendulum_sac",
    ),
    Scenario(
        "sac-cartpole",
        "packages/maze-rl/README.md",
        "maze-run -cn conf_train env.name=CartPole-v1 algorithm=sac model=vector_obs critic=template_state_action"
        " +experiment=cartpole_sac",
    ),
    Scenario(
        "sacfd-record",
        "packages/maze-rl/README.md",
        "maze-run env.name=LunarLander-v3 policy=lunar_lander_heuristics runner.n_episodes=100",
    ),
    Scenario(
        "sacfd",
        "packages/maze-rl/README.md",
        "maze-run -cn conf_train env.name=LunarLander-v3 algorithm=sacfd model=flatten_concat"
        " critic=flatten_concat_state_action algorithm.n_epochs=10"
        " runner.initial_demonstration_trajectories.input_data=<rollout run dir>/trajectory_data",
        (("<rollout run dir>", "sacfd-record"),),
    ),
    Scenario(
        "compare-runs",
        "packages/maze-viz/README.md",
        "maze-compare-runs outputs/a/<run> outputs/b/<run> --metric eval_BaseEnvEvents/reward/mean --labels A B --out cmp.pdf",
        (("outputs/a/<run>", "a2c-5"), ("outputs/b/<run>", "a2c-resume")),
    ),
    *(
        Scenario(f"your-own-env-{index}", "README.md", command, workdir="examples/your_own_env")
        for index, command in enumerate(
            (
                'python -c "from maze.env.testing import check_env; from sorting import make_sorting_env;'
                ' check_env(make_sorting_env())"',
                "maze-run -cd conf -cn conf_sorting_rollout runner=sequential runner.n_episodes=10"
                " hydra.run.dir=outputs/random-rollout",
                "maze-run -cd conf -cn conf_sorting hydra.run.dir=outputs/sorting-ppo",
                "maze-run -cd conf -cn conf_sorting_rollout policy=torch_policy input_dir=outputs/sorting-ppo"
                " runner.n_processes=2 runner.n_episodes=10 hydra.run.dir=outputs/sorting-rollout",
                "python deploy.py outputs/sorting-ppo",
            )
        )
    ),
    *(
        Scenario(f"hierarchical-{index}", "examples/hierarchical/README.md", command, workdir="examples/hierarchical")
        for index, command in enumerate(
            (
                "maze-run -cd conf env=courier runner=sequential runner.n_episodes=50 hydra.run.dir=outputs/random-rollout",
                "maze-run -cd conf -cn conf_courier hydra.run.dir=outputs/courier-ppo",
                "maze-run -cd conf env=courier policy=torch_policy input_dir=outputs/courier-ppo runner.n_episodes=20"
                " hydra.run.dir=outputs/courier-rollout",
            )
        )
    ),
)
"""The timed commands, in the order a user runs them (later ones read earlier ones' run directories)."""


def scenario_command(scenario: Scenario) -> list[str]:
    """The argument list that runs ``scenario``: placeholders filled, a run directory of its own."""
    text = scenario.command
    for placeholder, producer in scenario.run_dirs:
        text = text.replace(placeholder, f"outputs/{producer}")
    args = shlex.split(text)
    if args[0] == "maze-run" and not any(arg.startswith("hydra.run.dir=") for arg in args):
        args.append(f"hydra.run.dir=outputs/{scenario.name}")
    beside_python = Path(sys.executable).parent / args[0]  # the active environment's maze-run and python
    executable = str(beside_python) if beside_python.exists() else shutil.which(args[0]) or args[0]
    return [executable, *args[1:]]


STATISTIC = re.compile(
    r"^\s*\d+\|(?P<prefix>eval|rollout_stats)\s+(?P<topic>\S+)\s+(?P<event>\S+)\s+(?P<key>\S+)\s+\|\s+(?P<value>-?[\d.]+)\s*$"
)
PRINTED = {
    ("eval", "BaseEnvEvents", "reward", "mean"): "eval_reward_means",
    ("eval", "ImitationEvents", "discrete_accuracy", "0/action"): "eval_accuracies",
    ("rollout_stats", "BaseEnvEvents", "reward", "mean"): "rollout_reward_means",
    ("rollout_stats", "BaseEnvEvents", "kpi", "mean/sort_accuracy"): "rollout_sort_accuracies",
}
"""Statistics rows of the console tables kept in the results: (prefix, topic, event, key) -> results key."""


def printed_statistics(stdout: str) -> dict[str, list[float]]:
    """The values of the :data:`PRINTED` rows the command printed, in order (e.g. one evaluation per epoch)."""
    values: dict[str, list[float]] = {}
    for line in stdout.splitlines():
        row = STATISTIC.match(line)
        name = row and PRINTED.get((row["prefix"], row["topic"], row["event"], row["key"]))
        if name:
            values.setdefault(name, []).append(float(row["value"]))
    return values


def children_cpu_seconds() -> float:
    """User + system CPU seconds of this process's waited-for children so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_scenario(scenario: Scenario, scratch: Path) -> dict[str, object]:
    """Run one scenario in ``scratch`` (or its copied workdir) and measure it."""
    cwd = scratch / Path(scenario.workdir).name if scenario.workdir else scratch
    if scenario.workdir and not cwd.exists():
        shutil.copytree(ROOT / scenario.workdir, cwd, ignore=shutil.ignore_patterns("outputs", "__pycache__"))
    command = scenario_command(scenario)
    load_before, cpu_before, start = os.getloadavg()[0], children_cpu_seconds(), time.perf_counter()
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - start
    (scratch / f"{scenario.name}.log").write_text(result.stdout + result.stderr)
    return {
        "readme": scenario.readme,
        "command": scenario.command,
        "returncode": result.returncode,
        "wall_s": round(wall, 2),
        "cpu_s": round(children_cpu_seconds() - cpu_before, 2),
        "load_before": round(load_before, 2),
        "load_after": round(os.getloadavg()[0], 2),
        "last_line": (result.stdout.strip().splitlines() or [""])[-1][:300],
        **printed_statistics(result.stdout),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--only",
        nargs="*",
        help="scenario names (default: all); the producers of their <run dir>s run too, but scenarios sharing a workdir read each other's outputs: name them all",
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="results JSON (merged into an existing one)")
    args = parser.parse_args(argv)
    names = {scenario.name for scenario in SCENARIOS}
    unknown = set(args.only or ()) - names
    if unknown:
        print(f"Error: unknown scenarios {sorted(unknown)}; known: {sorted(names)}", file=sys.stderr)
        return 1
    wanted = set(args.only or names)
    for scenario in SCENARIOS:  # a scenario's producers run first, in the order of SCENARIOS
        if scenario.name in wanted:
            wanted |= {producer for _, producer in scenario.run_dirs}
    results = json.loads(args.out.read_text()) if args.out.is_file() else {}
    with tempfile.TemporaryDirectory(prefix="readme-commands-") as scratch:
        for scenario in SCENARIOS:
            if scenario.name not in wanted:
                continue
            results[scenario.name] = run_scenario(scenario, Path(scratch))
            row = results[scenario.name]
            print(
                f"{scenario.name}: rc {row['returncode']}, {row['wall_s']} s wall, {row['cpu_s']} s CPU, "
                f"load {row['load_before']}..{row['load_after']}",
                flush=True,
            )
            if row["returncode"] != 0:
                print((Path(scratch) / f"{scenario.name}.log").read_text()[-3000:], file=sys.stderr)
                return 1
    results["_machine"] = f"{platform.machine()}, {os.cpu_count()} CPUs, CPython {platform.python_version()}"
    args.out.write_text(json.dumps(results, indent=2, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
