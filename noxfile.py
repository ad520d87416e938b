"""One driver for tests, boundary checks, lint, builds and benchmarks.

``nox`` runs the default suite (what CI runs); ``nox -s bench`` runs the benchmarks.
Every install passes ``tools/constraints.txt`` (pins the CPU build of torch) and
installs in-repo packages from their wheels, so tests run against what users install.

Installs are most of the suite's set-up time, so the in-repo wheels are built once per
``nox`` run and shared by every session's venv. pip's bytecode compilation stays on:
``--no-compile`` makes a torch install 12 s shorter, but where ``PYTHONDONTWRITEBYTECODE``
is set (as on our machines) every test process then compiles its imports again, and the
suite's tests ran 1.5-2x longer (integration 7.6 -> 12.2 minutes).

Disk: every session's venv holds its own copy of torch (and Ray, MLflow, ...): the 19 default
sessions' venvs add up to about 19 GiB, more than a CI machine may have free. Under ``CI`` (set by
``.ci/run``) a session therefore deletes its venv when it ends (see :func:`nox_session`), so at most
one session's venv is on disk at a time; a CI run builds every venv afresh anyway.
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import nox

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "tools"))
from packages import PACKAGES, by_name, engine_test_dirs, install_order  # noqa: E402

CONSTRAINTS = ("-c", str(ROOT / "tools" / "constraints.txt"))
PYTHON = "3.11"
PYTEST = ("pytest", "-q", "-p", "no:cacheprovider", "--durations=10")
"""How every session runs pytest: quiet, no cache in the tree, and its ten slowest tests listed (CI's log shows where the time goes)."""
SHARED_SESSION_NAMES = [package.name for package in PACKAGES if package.own_session is None]
"""The packages the ``tests`` and ``integration`` sessions test (the others have a session of their own)."""

nox.options.sessions = [
    "lint",
    "boundaries",
    "tests",
    "examples",
    "service",
    "integration",
    "tracking",
    "ray",
    "rllib",
    "fuzz",
    "docs",
    "build",
]
nox.options.error_on_missing_interpreters = True

FREE_VENVS = bool(os.environ.get("CI"))
"""Whether each session deletes its venv when it ends (CI: see the module docstring)."""


def nox_session(**options: Any) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """``nox.session(**options)`` that, under CI, deletes the session's venv (with its tmp/) when the session ends.

    Whether the session passed or failed: a failed session's venv is no use to a CI run either.
    """

    def register(run_session: Callable[..., None]) -> Callable[..., None]:
        @functools.wraps(run_session)  # keeps the docstring (nox -l) and the parameters (nox.parametrize)
        def run_then_free_venv(session: nox.Session, **parameters: Any) -> None:
            try:
                run_session(session, **parameters)
            finally:
                if FREE_VENVS:
                    shutil.rmtree(session.virtualenv.location, ignore_errors=True)

        return nox.session(**options)(run_then_free_venv)

    return register


_WHEEL_DIR = Path(tempfile.mkdtemp(prefix="maze-nox-wheels-"))
atexit.register(shutil.rmtree, _WHEEL_DIR, True)
_WHEELS: dict[str, Path] = {}
"""The wheels of the in-repo packages built so far in this ``nox`` run (see :func:`wheel`)."""


def wheel(session: nox.Session, name: str, extras: str = "") -> str:
    """The requirement that installs in-repo package ``name`` (with ``extras``, e.g. ``"onnx"``) from its wheel.

    The first session that needs the package builds its wheel with the session's pip; later
    sessions of the same ``nox`` run install the same file. Building is part of installing, so
    ``nox --install-only`` builds the wheels too.
    """
    if name not in _WHEELS:
        out = _WHEEL_DIR / name
        session.run_install("python", "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(by_name(name).path))
        _WHEELS[name] = next(out.glob("*.whl"))
    return f"{_WHEELS[name]}[{extras}]" if extras else str(_WHEELS[name])


def local_requirements(session: nox.Session, *names: str) -> list[str]:
    """The wheels of the named packages and of their in-repo dependencies, dependencies first."""
    requirements: list[str] = []
    for name in names:
        for package in install_order(name):
            requirement = wheel(session, package.name)
            if requirement not in requirements:
                requirements.append(requirement)
    return requirements


def install_packages(session: nox.Session, *names: str, extra: tuple[str, ...] = ()) -> None:
    """Installs the named packages with their in-repo dependencies from their wheels (see :func:`wheel`).

    In a reused venv (``nox -r``) the in-repo wheels are first installed again without their
    dependencies: pip keeps an installed package when a wheel of the same version is offered,
    so the venv would keep the code of an earlier run. The install that follows then adds the
    dependencies the new wheels declare.
    """
    requirements = local_requirements(session, *names)
    if getattr(session.virtualenv, "reuse_existing", False):
        built = {str(path) for path in _WHEELS.values()}
        # requirements are plain wheel paths; an extra may be an in-repo wheel with extras (maze-deploy[onnx])
        extra_wheels = [path for path in (arg.partition("[")[0] for arg in extra) if path in built]
        in_repo = dict.fromkeys([*requirements, *extra_wheels])
        session.install("--no-deps", "--force-reinstall", *in_repo)
    session.install(*CONSTRAINTS, *requirements, *extra)


def run_engine_tests(session: nox.Session, engine: str, env: dict[str, str], top_level: tuple[str, ...] = ()) -> None:
    """Runs the test folders of all packages for engine session ``engine`` in one pytest call, from the root.

    The folders belong to the packages whose code they test (``engine_tests`` in tools/packages.py); one
    pytest call starts the engine once. ``top_level``: folders of the top-level tests/ to run with them.
    The rootdir is the repository's, so test ids name their package.
    """
    folders = [str(path.relative_to(ROOT)) for path in engine_test_dirs(engine)] + list(top_level)
    session.chdir(ROOT)
    session.run(*PYTEST, f"--rootdir={ROOT}", *folders, *session.posargs, env=env)


@nox_session(python=PYTHON)
@nox.parametrize("package", SHARED_SESSION_NAMES, ids=SHARED_SESSION_NAMES)
def tests(session: nox.Session, package: str) -> None:
    """Run one package's tests against a fresh non-editable install of it and its in-repo deps.

    The package's engine test folders (``engine_tests`` in tools/packages.py: Ray, tracking, fuzzing) are left
    out: their sessions (``ray``, ``tracking``, ``fuzz``) install the engine and start it once for all packages.
    """
    spec = by_name(package)
    install_packages(session, package, *spec.test_internal_deps, extra=("pytest", *spec.test_requires))
    package_dir = ROOT / "packages" / package
    session.chdir(package_dir)
    ignored = [f"--ignore={folder}" for _, folder in spec.engine_tests]
    session.run(
        *PYTEST,
        *ignored,
        *session.posargs,
        env={"OMP_NUM_THREADS": "1", "MPLBACKEND": "Agg"},
    )


@nox_session(python=PYTHON)
def integration(session: nox.Session) -> None:
    """Run the cross-package end-to-end tests in tests/integration against all packages."""
    # pandas, ipywidgets: maze-viz's tensorboard and notebook extras (tests/integration/test_viz_training_runs.py);
    # box2d: LunarLander-v3 for the imitation workflow (heuristic recordings, BC, fine-tuning);
    # onnx, onnxscript, onnxruntime: maze-perception's and maze-deploy's onnx extras (test_onnx_deployment.py)
    onnx = ("onnx", "onnxscript", "onnxruntime")
    install_packages(
        session, *SHARED_SESSION_NAMES, extra=("pytest", "pandas", "ipywidgets", "gymnasium[box2d]", *onnx)
    )
    session.chdir(ROOT)
    session.run(*PYTEST, "tests/integration", *session.posargs)


@nox_session(python=PYTHON)
def tracking(session: nox.Session) -> None:
    """Experiment tracking (maze-train's tests/tracking): real MLflow SQLite store and ``mlflow server``, W&B offline.

    maze-train and maze-viz are installed with their tracking extras, so the extras' declarations are tested too.
    """
    extras = (wheel(session, "maze-train", "mlflow,wandb"), wheel(session, "maze-viz", "mlflow,tensorboard"))
    install_packages(session, "maze-rl", extra=("pytest", *extras))
    run_engine_tests(session, "tracking", env={"OMP_NUM_THREADS": "1", "MPLBACKEND": "Agg", "WANDB_MODE": "offline"})


@nox_session(python=PYTHON)
def examples(session: nox.Session) -> None:
    """Execute every runnable example (each example folder carries the test that runs it)."""
    # maze-viz with its notebook extra, nbclient and ipykernel: viewer.ipynb runs in a real Jupyter kernel;
    # maze-rl (with maze-train) and stable-baselines3: the train-from-Python and other-frameworks examples
    install_packages(
        session,
        "maze-env",
        "maze-deploy",
        "maze-viz",
        "maze-rl",
        extra=("pytest", "matplotlib", "ipywidgets", "nbclient", "ipykernel", "stable-baselines3"),
    )
    session.chdir(ROOT)
    # examples/agent_service runs in the session 'service' (a torch-free venv of its own)
    session.run(
        *PYTEST,
        "examples",
        "--ignore=examples/agent_service",
        *session.posargs,
        env={"MPLBACKEND": "Agg"},
    )


@nox_session(python=PYTHON)
def service(session: nox.Session) -> None:
    """The reference agent service (examples/agent_service) in a torch-free venv, driven over loopback.

    The tiny CartPole and Cutting-2D runs it serves are trained and exported first, in a venv of its own (maze-rl and
    maze-perception[onnx]: torch); the session's venv gets only the service's requirements
    (maze-env, maze-rollout, maze-deploy[onnx], fastapi, uvicorn) and the tests' pytest and httpx.
    """
    example = ROOT / "examples" / "agent_service"
    trainer = Path(session.create_tmp()) / "trainer"
    session.run("python", "-m", "venv", "--clear", str(trainer))
    python = str(trainer / "bin" / "python")
    packages = [
        wheel(session, package.name, "onnx" if package.name == "maze-perception" else "")
        for package in install_order("maze-rl")
    ]
    session.run(python, "-m", "pip", "install", "-q", *CONSTRAINTS, *packages, external=True)
    run_dir = Path(session.create_tmp()).resolve() / "tiny_run"
    shutil.rmtree(run_dir, ignore_errors=True)  # a reused venv (nox -r) keeps its tmp: the guard refuses a used run dir
    session.run(python, str(example / "tiny_run.py"), str(run_dir), external=True)
    cutting_dir = run_dir.with_name("tiny_cutting")
    shutil.rmtree(cutting_dir, ignore_errors=True)
    session.run(python, str(example / "tiny_run.py"), str(cutting_dir), "cutting", external=True)
    deploy = wheel(session, "maze-deploy", "onnx")
    install_packages(
        session, "maze-rollout", extra=(deploy, "-r", str(example / "requirements.txt"), "pytest", "httpx")
    )
    session.run(
        "python", "-I", "-c", "import importlib.util as u; assert u.find_spec('torch') is None, 'torch is installed'"
    )
    session.chdir(ROOT)
    env = {
        "MAZE_SERVICE_MODEL_DIR": str(run_dir / "onnx"),
        "MAZE_SERVICE_CUTTING_DIR": str(cutting_dir / "onnx"),
        "OMP_NUM_THREADS": "1",
    }
    session.run(*PYTEST, str(example), *session.posargs, env=env)


@nox_session(python=PYTHON)
def fuzz(session: nox.Session) -> None:
    """Bounded fuzzing (hypothesis) of every loader of untrusted input, in a torch-free venv.

    The trajectory readers (data-only format and legacy pickles) and the run-directory file readers
    (maze-env's tests/fuzz) and the agent service's request parsing (tests/fuzz: the example's code), in
    one pytest call with one address-space cap (the plugin packages/maze-env/tests/fuzz/fuzz_session.py);
    ``MAZE_FUZZ_EXAMPLES`` sets the inputs per target.
    """
    service = ROOT / "examples" / "agent_service" / "requirements.txt"
    install_packages(session, "maze-rollout", "maze-deploy", extra=("pytest", "hypothesis", "-r", str(service)))
    run_engine_tests(session, "fuzz", env={"OMP_NUM_THREADS": "1"}, top_level=("tests/fuzz",))


@nox_session(python=PYTHON)
def boundaries(session: nox.Session) -> None:
    """Prove the dependency graph: static import check, then torch-free packages installed alone."""
    session.run("python", str(ROOT / "tools" / "check_imports.py"))
    for package in PACKAGES:
        if package.torch_free:
            check_torch_free(session, package.name, tuple(f"maze.{leaf}" for leaf in package.leaves))
        for extra, modules in package.torch_free_extras:
            check_torch_free(session, package.name, (*(f"maze.{leaf}" for leaf in package.leaves), *modules), extra)


def check_torch_free(session: nox.Session, name: str, modules: tuple[str, ...], extra: str = "") -> None:
    """Installs package ``name`` (with ``extra``) and its in-repo deps alone; ``modules`` import, and no torch is there."""
    label = f"{name}[{extra}]" if extra else name
    venv = Path(session.create_tmp()) / f"alone-{label}"
    session.run("python", "-m", "venv", "--clear", str(venv))
    python = str(venv / "bin" / "python")
    *deps, package = local_requirements(session, name)
    requirement = wheel(session, name, extra) if extra else package
    session.run(python, "-m", "pip", "install", *CONSTRAINTS, *deps, requirement, external=True, silent=True)
    for module in modules:
        probe = (
            f"import importlib.util, sys, {module}; "
            f"assert 'torch' not in sys.modules, 'importing {module} imported torch'; "
            f"assert importlib.util.find_spec('torch') is None, 'installing {label} installed torch'; "
            f"print('{label}: {module} imports without torch')"
        )
        session.run(python, "-I", "-c", probe, external=True)


@nox_session(python=PYTHON)
def lint(session: nox.Session) -> None:
    """Check formatting and lint rules with ruff, that CI runs the README's test command, and where tests live."""
    session.install("ruff>=0.6")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    session.run("python", str(ROOT / "tools" / "check_ci_command.py"))
    session.run("python", str(ROOT / "tools" / "check_test_layout.py"))  # top-level tests/: cross-package only
    session.run("python", str(ROOT / "tools" / "check_readme_figures.py"))


@nox_session(python=PYTHON)
def ray(session: nox.Session) -> None:
    """Scale-out on Ray: one local 2-CPU Ray and one simulated two-node cluster for the whole session.

    The Ray tests of maze-rollout (rollouts, vector env, cluster) and maze-rl (training jobs with ``runner=ray``,
    HPO, quiet ``maze-run`` runs) run in one pytest call: both folders load the plugin
    packages/maze-rollout/tests/ray/ray_session.py, whose session fixtures start each Ray once.
    maze-rollout and maze-train are installed with their ``ray`` extras, so the extras' declarations are tested too.
    """
    extras = (wheel(session, "maze-rollout", "ray"), wheel(session, "maze-train", "ray"))
    install_packages(session, "maze-rl", extra=("pytest", *extras))
    run_engine_tests(session, "ray", env={"OMP_NUM_THREADS": "1", "MPLBACKEND": "Agg", "RAY_USAGE_STATS_ENABLED": "0"})


@nox_session(python=PYTHON)
def rllib(session: nox.Session) -> None:
    """Maze on RLlib (maze-rllib's tests): maze-rllib with ray[rllib], one local 2-CPU Ray for the whole session."""
    install_packages(session, "maze-rllib", extra=("pytest",))
    run_engine_tests(
        session, "rllib", env={"OMP_NUM_THREADS": "1", "MPLBACKEND": "Agg", "RAY_USAGE_STATS_ENABLED": "0"}
    )


@nox_session(python=PYTHON)
def docs(session: nox.Session) -> None:
    """Build the documentation site (mkdocs.yml, docs/) with warnings as errors and run its Python blocks.

    The API reference is read from the packages' sources (mkdocstrings); the Python blocks of the pages
    (docs/test_code_blocks.py) run against the packages installed from their wheels, as users get them.
    """
    install_packages(
        session,
        "maze-rl",
        "maze-deploy",
        extra=("pytest", "mkdocs>=1.6", "mkdocs-material>=9.5", "mkdocstrings[python]>=0.26"),
    )
    session.chdir(ROOT)
    site = Path(tempfile.mkdtemp(prefix="maze-docs-site-"))
    try:
        session.run("mkdocs", "build", "--strict", "--site-dir", str(site), env={"NO_MKDOCS_2_WARNING": "1"})
    finally:
        shutil.rmtree(site, ignore_errors=True)
    env = {"OMP_NUM_THREADS": "1", "MPLBACKEND": "Agg"}
    session.run(*PYTEST, "docs/test_code_blocks.py", *session.posargs, env=env)


@nox_session(python=PYTHON)
def build(session: nox.Session) -> None:
    """Build a wheel and an sdist of every package into dist/."""
    session.install("build")
    for package in PACKAGES:
        session.run("python", "-m", "build", "--outdir", str(ROOT / "dist"), str(package.path), silent=True)
    session.log(f"built {len(PACKAGES)} packages into {ROOT / 'dist'}")


@nox_session(python=PYTHON, default=False)
def bench(session: nox.Session) -> None:
    """Run the benchmarks side by side with their peers; writes tools/bench/results/.

    maze-rl pulls in every maze package; stable-baselines3 and sb3-contrib (the training
    benchmarks' peers) go only into this venv, constrained so torch stays at the pinned CPU build.
    """
    tracking = wheel(session, "maze-train", "mlflow,wandb,ray")  # the tracking benchmark's loggers; Ray (ray bench)
    serving = ("onnx", "onnxscript", "onnxruntime", "fastapi", "uvicorn", "httpx")  # deploy: ONNX export, agent service
    # maze-rllib: the rllib bench (Maze on RLlib against plain RLlib)
    # the lunar bench's Box2D envs: maze-rllib pins gymnasium 1.2.2, whose box2d extra builds box2d-py from source
    # (swig); the prebuilt wheels maze-env[box2d] takes with gymnasium 1.4 work with it as well
    box2d = ("box2d==2.3.10", "pygame-ce")
    install_packages(
        session, "maze-rl", "maze-rllib", extra=("stable-baselines3", "sb3-contrib", *box2d, tracking, *serving)
    )
    session.chdir(ROOT)
    session.run("python", "-m", "tools.bench", *session.posargs, env={"OMP_NUM_THREADS": "1"})
