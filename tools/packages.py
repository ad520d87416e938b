"""The single registry of the monorepo's distributions.

The noxfile, the boundary checks and the release helpers read this module; nothing else
lists packages. Each entry names the package directory, the import leaves it owns, its
in-repo dependencies (direct only; the graph is resolved transitively) and the
third-party top-level modules its source may import on top of what its dependencies
already allow.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Optional

__all__ = [
    "ENGINE_SESSIONS",
    "Package",
    "PACKAGES",
    "REPO_ROOT",
    "allowed_imports",
    "by_name",
    "engine_test_dirs",
    "install_order",
]

REPO_ROOT = Path(__file__).resolve().parent.parent

ENGINE_SESSIONS: dict[str, tuple[str, ...]] = {
    "ray": ("ray",),
    "rllib": ("ray",),
    "tracking": ("mlflow", "pandas", "wandb"),
    "fuzz": ("hypothesis",),
}
"""The nox sessions that test packages' code on an engine or harness, with the modules their tests may import.

A package's engine tests (Ray, RLlib, MLflow/W&B, the fuzzer with its capped address space) live in
its own test tree (``Package.engine_tests``); each such session installs its engine and runs the
folders of all packages in one pytest call, so that the engine starts once per session. The
``tests`` session of a package leaves these folders out: its venv has no engine. Each engine
session's tests may import the modules listed here on top of what their package's tests may import.
"""


@dataclass(frozen=True)
class Package:
    """One installable distribution of the monorepo.

    Attributes:
        name: Distribution name, e.g. ``maze-env``.
        leaves: Leaf packages below the ``maze`` namespace that the distribution owns.
        internal_deps: Names of in-repo distributions this one depends on directly.
        third_party: Top-level third-party modules its source may import.
        torch_free: True when neither the package nor its dependencies may pull in torch.
        optional_third_party: Modules of optional extras; the source may import them only
            inside functions (lazily), so the package works without them.
        test_requires: Extra distributions its tests need (never runtime dependencies).
        test_internal_deps: In-repo distributions its tests need on top of its dependencies
            (e.g. an optional extra's package).
        torch_free_extras: ``(extra, modules)`` pairs: the package with that extra must install
            without torch, and its leaves and these modules import without it (checked by the
            boundaries session like torch-free packages).
        own_session: The nox session that tests the package instead of ``tests`` and ``integration``
            (e.g. a package whose dependencies pin what the other sessions must not get); None: those.
        engine_tests: ``(session, folder)`` pairs: test folders of the package (relative to its
            directory) that the engine session of :data:`ENGINE_SESSIONS` runs instead of ``tests``.
    """

    name: str
    leaves: tuple[str, ...]
    internal_deps: tuple[str, ...] = ()
    third_party: tuple[str, ...] = ()
    torch_free: bool = False
    optional_third_party: tuple[str, ...] = ()
    test_requires: tuple[str, ...] = ()
    test_internal_deps: tuple[str, ...] = ()
    torch_free_extras: tuple[tuple[str, tuple[str, ...]], ...] = ()
    own_session: Optional[str] = None
    engine_tests: tuple[tuple[str, str], ...] = ()

    @property
    def path(self) -> Path:
        """Directory of the package inside the repository."""
        return REPO_ROOT / "packages" / self.name

    @property
    def rel_path(self) -> str:
        """Directory of the package relative to the repository root."""
        return f"packages/{self.name}"


PACKAGES: tuple[Package, ...] = (
    Package(
        "maze-env",
        leaves=("env",),
        third_party=("numpy", "gymnasium", "cloudpickle", "omegaconf", "yaml"),
        torch_free=True,
        optional_third_party=("matplotlib",),  # extra "render": renderers import it lazily
        test_requires=("matplotlib", "gymnasium[box2d]"),  # box2d: the LunarLander heuristic's tests
        engine_tests=(("fuzz", "tests/fuzz"),),  # the trajectory and run-directory readers, fuzzed (hypothesis)
    ),
    Package("maze-distributions", leaves=("distributions",), internal_deps=("maze-env",), third_party=("torch",)),
    Package(
        "maze-perception",
        leaves=("perception",),
        internal_deps=("maze-distributions",),
        optional_third_party=("onnx", "onnxscript", "onnxruntime"),  # extra "onnx": the exporter imports them lazily
        test_requires=("onnx", "onnxscript", "onnxruntime"),
    ),
    Package(
        "maze-rollout",
        leaves=("rollout",),
        internal_deps=("maze-env",),
        torch_free=True,
        # extra "ray": the Ray rollout runner imports it lazily (maze.rollout.ray_cluster)
        optional_third_party=("ray",),
        test_requires=("gymnasium[box2d]", "matplotlib"),  # recorded LunarLander episodes; online rendering
        # Ray rollouts and the Ray vector env; tests/ray/ray_session.py: the session's Ray, shared with maze-rl's
        engine_tests=(("ray", "tests/ray"),),
    ),
    Package(
        "maze-deploy",
        leaves=("deploy",),
        internal_deps=("maze-rollout",),
        optional_third_party=("onnxruntime",),  # extra "onnx": the torch-free OnnxPolicy imports it lazily
        test_internal_deps=("maze-perception",),  # extra "torch": deploying torch policies
        test_requires=("onnx", "onnxscript", "onnxruntime"),  # the tests export policies to deploy them
        torch_free_extras=(("onnx", ("onnxruntime", "maze.deploy.onnx_policy")),),  # OnnxPolicy serves without torch
    ),
    Package(
        "maze-viz",
        leaves=("viz",),
        internal_deps=("maze-env",),
        third_party=("matplotlib",),
        torch_free=True,
        # extras "notebook" (ipywidgets, IPython), "tensorboard" (tensorboard, pandas), "mlflow" (mlflow, pandas): lazily
        optional_third_party=("ipywidgets", "IPython", "tensorboard", "pandas", "mlflow"),
        test_requires=("ipywidgets", "tensorboard", "pandas"),
    ),
    Package(
        "maze-train",
        leaves=("train",),
        internal_deps=("maze-perception", "maze-rollout", "maze-viz"),
        third_party=("tensorboard", "tqdm"),
        # extras "mlflow" (mlflow, pandas: the logged model's predict), "wandb": the tracking process imports them;
        # "ray": the Ray runners (lazily)
        optional_third_party=("mlflow", "pandas", "wandb", "ray"),
        engine_tests=(("tracking", "tests/tracking"),),  # MLflow (store and server) and W&B offline
    ),
    Package(
        "maze-rl",
        leaves=("rl", "conf"),
        internal_deps=("maze-train", "maze-deploy"),
        third_party=("hydra",),
        optional_third_party=("nevergrad", "optuna"),  # extras "nevergrad", "optuna": the HPO sweepers
        test_requires=("nevergrad", "optuna"),
        # training jobs composed from maze.conf with runner=ray, HPO on Ray, quiet maze-run runs on Ray
        engine_tests=(("ray", "tests/ray"),),
    ),
    Package(
        "maze-rllib",
        leaves=("rllib",),
        internal_deps=("maze-env", "maze-distributions", "maze-perception", "maze-rollout", "maze-train", "maze-rl"),
        third_party=("ray",),
        # ray[rllib] pins gymnasium: tested in its own session (all its tests, one Ray per session)
        own_session="rllib",
        engine_tests=(("rllib", "tests"),),
    ),
)

_BY_NAME = {package.name: package for package in PACKAGES}


def by_name(name: str) -> Package:
    """Returns the registered package called ``name``.

    Raises:
        KeyError: With the list of known packages when ``name`` is not registered.
    """
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown package {name!r}; registered: {', '.join(_BY_NAME)}") from None


def install_order(name: str) -> list[Package]:
    """Returns ``name`` and all its in-repo dependencies, dependencies first."""
    ordered: list[Package] = []

    def visit(package: Package) -> None:
        for dep in package.internal_deps:
            visit(by_name(dep))
        if package not in ordered:
            ordered.append(package)

    visit(by_name(name))
    return ordered


def allowed_imports(name: str) -> tuple[set[str], set[str]]:
    """Returns the maze leaves and third-party modules that package ``name`` may import.

    A package may import its own leaves, the leaves of every package below it in the graph
    and the third-party modules declared by itself or by those packages.
    """
    leaves: set[str] = set()
    third_party: set[str] = set()
    for package in install_order(name):
        leaves.update(package.leaves)
        third_party.update(package.third_party)
    return leaves, third_party


def engine_test_dirs(session: str) -> list[Path]:
    """The test folders that engine session ``session`` runs, in registry order (dependencies first).

    Raises:
        KeyError: When ``session`` is not an engine session of :data:`ENGINE_SESSIONS`.
    """
    if session not in ENGINE_SESSIONS:
        raise KeyError(f"unknown engine session {session!r}; known: {', '.join(ENGINE_SESSIONS)}")
    return [package.path / folder for package in PACKAGES for name, folder in package.engine_tests if name == session]
