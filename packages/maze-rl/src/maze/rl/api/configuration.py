"""How RunContext turns its arguments into the config of a ``maze-run`` job.

:class:`ConfigurationAuditor` checks the arguments (one :class:`InvalidSpecificationError`
naming the argument); :class:`ConfigurationLoader` composes the root config with Hydra,
like the command line, and puts dicts and built objects in their places:

* a name (``algorithm="a2c"``) selects a config group option (``algorithm=a2c`` on the
  command line), so specializations such as ``algorithm_runner`` follow;
* a dict replaces the node of the argument (a dict ``algorithm`` is merged over the
  default algorithm instead);
* an object (an env factory, a composer, an algorithm config dataclass) replaces the node
  in the job config handed to the runner; the logged config names its type;
* ``overrides`` maps config keys to values: plain values go through Hydra as command-line
  overrides (``{"algorithm.lr": 0.001}``, ``{"+experiment": "cartpole_ppo_fast"}``), dicts
  and objects replace the node after composition.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Union

from maze.env.utils.suggestions import close_matches
from maze.rl.api.utils import InvalidSpecificationError, RunMode
from maze.rl.hydra_config import hydra_override, read_hydra_config
from omegaconf import DictConfig, OmegaConf, open_dict

__all__ = ["ConfigurationAuditor", "ConfigurationLoader", "LoadedConfiguration", "RunSpecification"]

CUSTOM_CHOICE = "custom"
"""Name of a group in the run directory name when it was given as a dict or object."""

_PLAIN = (str, int, float, bool, type(None))


@dataclass
class RunSpecification:
    """The arguments of a RunContext (see :class:`~maze.rl.api.run_context.RunContext`)."""

    env: Any = None
    wrappers: Any = None
    model: Any = None
    policy: Any = None
    critic: Any = None
    algorithm: Any = None
    runner: Any = None
    overrides: Mapping[str, Any] = field(default_factory=dict)
    configuration: Union[str, RunMode] = RunMode.TRAINING
    config_module: str = "maze.conf"

    @property
    def mode(self) -> RunMode:
        """The run mode of ``configuration``."""
        return RunMode(self.configuration)

    def arguments(self) -> dict[str, Any]:
        """The group arguments that were given (not None), by name."""
        names = ("env", "wrappers", "model", "policy", "critic", "algorithm", "runner")
        return {name: getattr(self, name) for name in names if getattr(self, name) is not None}


def _is_plain(value: Any) -> bool:
    """True for values with a command-line form: scalars and lists/dicts of them."""
    if isinstance(value, _PLAIN):
        return True
    if isinstance(value, Mapping):
        return all(isinstance(key, str) and _is_plain(item) for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return all(_is_plain(item) for item in value)
    return False


def _is_env_instance(value: Any) -> bool:
    return not isinstance(value, type) and hasattr(value, "step") and hasattr(value, "reset")


class ConfigurationAuditor:
    """Checks RunContext arguments for kinds that cannot work, before anything is composed."""

    TRAINING_ONLY = ("algorithm", "critic")

    def audit(self, spec: RunSpecification) -> None:
        """Checks the arguments of ``spec``.

        Raises:
            InvalidSpecificationError: Naming the first bad argument and what to pass instead.
        """
        try:
            mode = spec.mode
        except ValueError:
            options = ", ".join(repr(mode.value) for mode in RunMode)
            raise InvalidSpecificationError(
                f"configuration={spec.configuration!r} is not a run mode; use one of {options}"
            ) from None
        if isinstance(spec.algorithm, str) and spec.algorithm.lower().startswith("rllib"):
            raise InvalidSpecificationError(
                f"algorithm={spec.algorithm!r}: RLlib runs are CLI-only: "
                f"maze-run -cn conf_rllib rllib/algorithm={spec.algorithm.lower().removeprefix('rllib').strip('-_/') or 'ppo'} "
                "... (maze-rllib, see its README); the trained policy loads back into Python with "
                "AgentDeployment.from_run_dir(<run dir>) or RunContext(configuration='rollout', policy='torch_policy', "
                "overrides={'input_dir': <run dir>})"
            )
        if spec.env is not None and _is_env_instance(spec.env):
            raise InvalidSpecificationError(
                f"env: got an env instance ({type(spec.env).__name__}), but RunContext needs an env factory (every "
                "worker and evaluator builds its own env). Pass a callable, e.g. env=lambda: GymMazeEnv('CartPole-v1'), "
                "a config dict with _target_ or an env config name such as 'gym_env'"
            )
        if spec.runner is not None and not isinstance(spec.runner, (str, Mapping)):
            raise InvalidSpecificationError(
                f"runner: expected a runner config name (e.g. 'dev' or 'local') or a dict, got {type(spec.runner).__name__}"
            )
        if spec.wrappers is not None and not isinstance(spec.wrappers, (str, Mapping)):
            raise InvalidSpecificationError(
                "wrappers: expected a wrappers config name (e.g. 'vector_obs') or a dict {wrapper class: arguments}, "
                f"got {type(spec.wrappers).__name__}"
            )
        if mode is RunMode.ROLLOUT:
            for name in self.TRAINING_ONLY:
                if getattr(spec, name) is not None:
                    raise InvalidSpecificationError(
                        f"{name}: is a training argument, but configuration='rollout'; drop it or use "
                        "configuration='train'"
                    )
        elif isinstance(spec.policy, str):
            raise InvalidSpecificationError(
                f"policy={spec.policy!r}: policy names are rollout policies (configuration='rollout'). In training, "
                "pass the policy composer as a dict with _target_ or as a composer instance, or pick a model= config"
            )
        self._audit_algorithm(spec.algorithm)
        if not isinstance(spec.overrides, Mapping) or not all(isinstance(key, str) for key in spec.overrides):
            raise InvalidSpecificationError(
                f"overrides: expected a dict of config keys to values, e.g. {{'algorithm.lr': 0.001}}, got {spec.overrides!r}"
            )
        for name, value in spec.arguments().items():
            if isinstance(value, Mapping) and isinstance(value.get("_target_"), str):
                self._audit_target(name, value["_target_"])

    @staticmethod
    def _audit_algorithm(algorithm: Any) -> None:
        if algorithm is None or isinstance(algorithm, (str, Mapping)):
            return
        from maze.train.core.config import AlgorithmConfig

        if not isinstance(algorithm, AlgorithmConfig):
            raise InvalidSpecificationError(
                f"algorithm: expected an algorithm name (e.g. 'ppo'), a dict of algorithm keys or an "
                f"AlgorithmConfig instance (e.g. PPOAlgorithmConfig(...)), got {type(algorithm).__name__}"
            )

    @staticmethod
    def _audit_target(name: str, target: str) -> None:
        from maze.env.errors import ConfigurationError
        from maze.env.utils.factory import resolve_target

        try:
            resolve_target(target)
        except ConfigurationError as error:
            raise InvalidSpecificationError(f"{name}: {error}") from None


@dataclass
class LoadedConfiguration:
    """The composed config of a RunContext.

    Attributes:
        config: The resolved job config (plain data; built objects in their places).
        loggable: The same with objects named by type (for ``.hydra/config.yaml`` and logs).
        overrides: The command-line overrides Hydra composed the config from.
        run_dir: The run directory the root config's ``hydra.run.dir`` names (relative to the cwd).
        choices: Chosen option of every config group (``algorithm``, ``runner``, ...).
    """

    config: dict[str, Any]
    loggable: dict[str, Any]
    overrides: list[str]
    run_dir: Path
    choices: dict[str, Optional[str]]


class ConfigurationLoader:
    """Composes the config of a (audited) RunContext specification; see the module docs.

    Args:
        spec: The RunContext arguments.
    """

    def __init__(self, spec: RunSpecification) -> None:
        self.spec = spec
        self.mode = spec.mode

    def node_of(self, name: str) -> str:
        """The config key an argument sets: ``policy`` and ``critic`` are parts of ``model`` in training."""
        if self.mode is RunMode.TRAINING and name in ("policy", "critic"):
            return f"model.{name}"
        return name

    def load(self) -> LoadedConfiguration:
        """Composes the config.

        Raises:
            InvalidSpecificationError: For unknown options or keys (with Hydra's list of options
                and the closest match) and algorithm configs of no known algorithm.
        """
        from maze.env.utils.loggable_config import loggable_config
        from maze.rl.run import prepare_config

        overrides, replacements = self._split()
        cfg = self._compose(overrides)
        self._audit_targets(cfg)
        objects: dict[str, Any] = {}
        for key, value in replacements.items():
            if _is_plain(value):
                self._replace(cfg, key, value)
            else:
                self._replace(cfg, key, None)
                objects[key] = value
        choices = cfg.hydra.runtime.choices
        for name, value in self.spec.arguments().items():  # groups whose node was replaced (algorithm keeps its name)
            if not isinstance(value, str) and name in choices and name != "algorithm":
                choices[name] = CUSTOM_CHOICE
        run_dir = self._run_dir(cfg)
        choices = OmegaConf.to_container(choices)
        with open_dict(cfg):
            del cfg["hydra"]
        prepare_config(cfg, os.getcwd())
        config = OmegaConf.to_container(cfg, resolve=True)
        for key, value in objects.items():
            _set_path(config, key, value)
        return LoadedConfiguration(config, loggable_config(config), overrides, run_dir, choices)

    # --- pieces ----------------------------------------------------------------------------

    def _split(self) -> tuple[list[str], dict[str, Any]]:
        """Command-line overrides (names, plain values) and node replacements (dicts, objects)."""
        overrides: list[str] = []
        replacements: dict[str, Any] = {}
        for name, value in self.spec.arguments().items():
            if isinstance(value, str):
                overrides.append(hydra_override(name, value))
            elif name == "algorithm":
                name_of_config, values = self._algorithm_values(value)
                if name_of_config is not None:
                    overrides.append(hydra_override("algorithm", name_of_config))
                replacements.update({f"algorithm.{key}": item for key, item in values.items()})
            else:
                replacements[self.node_of(name)] = value
        for key, value in self.spec.overrides.items():
            if _is_plain(value) and not isinstance(value, Mapping):
                overrides.append(hydra_override(key, value))
            else:
                replacements[key.lstrip("+")] = value
        return overrides, replacements

    def _algorithm_values(self, algorithm: Any) -> tuple[Optional[str], dict[str, Any]]:
        """The algorithm option to select and the keys to set, for a dict or an AlgorithmConfig instance."""
        if isinstance(algorithm, Mapping):
            return None, dict(algorithm)
        values = {item.name: getattr(algorithm, item.name) for item in dataclasses.fields(algorithm)}
        return self._algorithm_name_of(type(algorithm)), values

    def _algorithm_name_of(self, config_class: type) -> str:
        """The ``algorithm`` option whose trainer (``runner.trainer_class``) takes ``config_class``."""
        from maze.env.utils.factory import resolve_target

        runner = [hydra_override("runner", self.spec.runner)] if isinstance(self.spec.runner, str) else []
        known = []
        for algorithm in group_options(self.spec.config_module, "algorithm"):
            cfg = read_hydra_config(
                self.spec.config_module, self.mode.config_name, [hydra_override("algorithm", algorithm), *runner]
            )
            trainer = OmegaConf.select(cfg, "runner.trainer_class")
            if not isinstance(trainer, str):
                continue
            known.append(algorithm)
            if getattr(resolve_target(trainer), "config_class", None) is config_class:
                return algorithm
        raise InvalidSpecificationError(
            f"algorithm: no algorithm config takes a {config_class.__name__} (known: {', '.join(known)}); pass the "
            "config class of one of them, or the algorithm's name"
        )

    def _compose(self, overrides: Sequence[str]) -> DictConfig:
        from maze.rl.config_errors import describe_config_error, is_config_error

        try:
            return read_hydra_config(
                self.spec.config_module, self.mode.config_name, overrides, return_hydra_config=True
            )
        except Exception as error:
            if not is_config_error(error):
                raise
            message = describe_config_error(error)
            group = str(getattr(error, "missing_cfg_file", "") or "").rpartition("/")[0]
            if group in self.spec.arguments():
                message = (
                    f"{group}={self.spec.arguments()[group]!r}: {message}\nConfig options of other packages "
                    "(e.g. their models) are available once that package is installed"
                )
            raise InvalidSpecificationError(message) from None

    def _audit_targets(self, cfg: DictConfig) -> None:
        """Imports the ``_target_`` of every argument's node, so a missing package is named up front."""
        for name in self.spec.arguments():
            node = OmegaConf.select(cfg, self.node_of(name), default=None)
            target = node.get("_target_") if isinstance(node, DictConfig) else None
            if isinstance(target, str):
                ConfigurationAuditor._audit_target(name, target)

    @staticmethod
    def _replace(cfg: DictConfig, key: str, value: Any) -> None:
        """Sets ``key`` (dotted) to ``value``, replacing the node; its parent must exist."""
        parent_key, _, leaf = key.rpartition(".")
        parent = OmegaConf.select(cfg, parent_key) if parent_key else cfg
        if not isinstance(parent, DictConfig):
            close = close_matches(parent_key, _all_keys(OmegaConf.to_container(cfg)))
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise InvalidSpecificationError(f"overrides: the config has no {parent_key!r} for key {key!r}.{hint}")
        with open_dict(parent):
            parent[leaf] = value

    @staticmethod
    def _run_dir(cfg: DictConfig) -> Path:
        """The resolved ``hydra.run.dir`` pattern (with ``custom`` for groups given as dicts/objects)."""
        from hydra.core.hydra_config import HydraConfig

        HydraConfig.instance().set_config(cfg)
        return Path(str(cfg.hydra.run.dir))


def group_options(config_module: str, group: str) -> list[str]:
    """The options of a config group of a root config module (with the search path's groups)."""
    from hydra import initialize_config_module
    from hydra.core.global_hydra import GlobalHydra

    with initialize_config_module(config_module, version_base="1.3"):
        return sorted(GlobalHydra.instance().config_loader().get_group_options(group))


def _all_keys(node: Any, prefix: str = "") -> list[str]:
    """Every dotted key of a plain nested dict."""
    keys = []
    if isinstance(node, Mapping):
        for key, value in node.items():
            keys.append(f"{prefix}{key}")
            keys.extend(_all_keys(value, f"{prefix}{key}."))
    return keys


def _set_path(config: dict[str, Any], key: str, value: Any) -> None:
    parts = key.split(".")
    node = config
    for part in parts[:-1]:
        node = node[part]
    node[parts[-1]] = value
