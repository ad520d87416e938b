"""Maps the heads of a dict action space to probability distributions.

Config rules (``distribution_mapper_config``, a list; ``[]``, ``{}`` or ``None`` keep the
defaults), in YAML::

    distribution_mapper_config:
      - action_space: gymnasium.spaces.Box      # every Box head ...
        distribution: maze.distributions.beta.BetaProbabilityDistribution
      - action_head: special_action             # ... except this one
        distribution: SquashedGaussianProbabilityDistribution

Each head starts with the default of its space class (:data:`DEFAULT_DISTRIBUTIONS`).
Then the ``action_space`` rules apply top-down to every head whose space is an instance of
the named class, and after them the ``action_head`` rules apply top-down, so a head rule
always beats a class rule and, among rules of one kind, the later one wins. Space classes
are given as classes or dotted paths (``gymnasium.spaces.Box``; legacy ``gym.spaces.Box``
and short ``Box`` are accepted); distributions as classes, dotted paths or the short names
exported by :mod:`maze.distributions`. Custom distributions subclass
:class:`~maze.distributions.base.ProbabilityDistribution`, accept ``(logits,
action_space, temperature)`` and implement ``required_logits_shape(action_space)``.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any, NamedTuple, Optional, Union

import torch
from gymnasium import spaces
from maze.distributions.base import ProbabilityDistribution
from maze.distributions.bernoulli import BernoulliProbabilityDistribution
from maze.distributions.categorical import CategoricalProbabilityDistribution
from maze.distributions.dict_distribution import DictProbabilityDistribution
from maze.distributions.gaussian import DiagonalGaussianProbabilityDistribution
from maze.distributions.multi_categorical import MultiCategoricalProbabilityDistribution
from maze.env.errors import ConfigurationError
from maze.env.utils.factory import resolve_target, to_plain_config
from maze.env.utils.suggestions import close_matches

__all__ = ["DEFAULT_DISTRIBUTIONS", "DistributionMapper", "DistributionMapperConfig"]

DistributionMapperConfig = Optional[Union[Sequence[Mapping[str, Any]], Mapping[str, Any]]]
"""A list of ``{action_space|action_head: ..., distribution: ...}`` rules (``{}``/``None``: none)."""

DEFAULT_DISTRIBUTIONS: dict[type[spaces.Space], type[ProbabilityDistribution]] = {
    spaces.Discrete: CategoricalProbabilityDistribution,
    spaces.MultiDiscrete: MultiCategoricalProbabilityDistribution,
    spaces.MultiBinary: BernoulliProbabilityDistribution,
    spaces.Box: DiagonalGaussianProbabilityDistribution,
}
"""The distribution of each action space class when no rule says otherwise."""


class _Rule(NamedTuple):
    """One parsed config rule: exactly one of ``space_class`` and ``action_head`` is set."""

    index: int
    space_class: Optional[type[spaces.Space]]
    action_head: Optional[str]
    distribution: type[ProbabilityDistribution]


class DistributionMapper:
    """Picks a probability distribution for every head of a flat dict action space.

    For structured envs build one mapper per sub-step with :meth:`for_sub_steps`.

    Args:
        action_space: A flat ``gymnasium.spaces.Dict`` of action heads.
        distribution_mapper_config: Rules, see the module doc.
        other_action_heads: Heads of other sub-steps of the same env: ``action_head`` rules
            naming them are ignored here instead of raising.

    Raises:
        ConfigurationError: For a malformed rule, an unknown action head, space class or
            distribution, or a distribution that does not support a head's space.
    """

    def __init__(
        self,
        action_space: spaces.Dict,
        distribution_mapper_config: DistributionMapperConfig = (),
        *,
        other_action_heads: Collection[str] = (),
    ) -> None:
        self.action_space = _check_action_space(action_space)
        self.distribution_mapper_config = _plain_rules(distribution_mapper_config)
        rules = [_parse_rule(index, rule) for index, rule in enumerate(self.distribution_mapper_config)]
        heads = list(self.action_space.spaces)
        for rule in rules:
            if (
                rule.action_head is not None
                and rule.action_head not in heads
                and rule.action_head not in other_action_heads
            ):
                close = close_matches(rule.action_head, heads)
                hint = f" Did you mean {close[0]!r}?" if close else ""
                raise ConfigurationError(
                    f"distribution_mapper_config[{rule.index}] names the action head {rule.action_head!r}, which the "
                    f"action space does not have; valid heads: {heads}.{hint}"
                )
        self._distributions = {head: self._pick(head, space, rules) for head, space in self.action_space.spaces.items()}
        self._logits_shapes = {head: self._logits_shape(head) for head in heads}

    @classmethod
    def for_sub_steps(
        cls, action_spaces_dict: Mapping[Any, spaces.Dict], distribution_mapper_config: DistributionMapperConfig = ()
    ) -> dict[Any, DistributionMapper]:
        """One mapper per sub-step of a structured env, all from the same rules.

        An ``action_head`` rule must name a head of at least one sub-step.

        Args:
            action_spaces_dict: Sub-step key -> that sub-step's dict action space.
            distribution_mapper_config: Rules, see the module doc.

        Returns:
            Sub-step key -> DistributionMapper.
        """
        heads = {key: set(_check_action_space(space).spaces) for key, space in action_spaces_dict.items()}
        every_head = set().union(*heads.values())
        return {
            key: cls(space, distribution_mapper_config, other_action_heads=every_head - heads[key])
            for key, space in action_spaces_dict.items()
        }

    def required_logits_shape(self, action_head: str) -> tuple[int, ...]:
        """The trailing logits shape the policy must produce for a head (e.g. ``(n,)`` for ``Discrete(n)``)."""
        return self._logits_shapes[self._check_head(action_head)]

    def distribution_class(self, action_head: str) -> type[ProbabilityDistribution]:
        """The distribution class chosen for a head."""
        return self._distributions[self._check_head(action_head)]

    def action_head_distribution(
        self, action_head: str, logits: torch.Tensor, temperature: float = 1.0
    ) -> ProbabilityDistribution:
        """The distribution of one head.

        Args:
            action_head: Name of the head.
            logits: ``[*batch, *required_logits_shape(action_head)]``.
            temperature: Passed on to the distribution (positive; below 1 sharpens).

        Returns:
            A distribution with batch shape ``[*batch]``.
        """
        distribution = self._distributions[self._check_head(action_head)]
        return distribution(logits=logits, action_space=self.action_space[action_head], temperature=temperature)

    def logits_dict_to_distribution(
        self, logits_dict: Mapping[str, torch.Tensor], temperature: float = 1.0
    ) -> DictProbabilityDistribution:
        """The joint distribution over all heads.

        Args:
            logits_dict: Head -> logits ``[*batch, *required_logits_shape(head)]``; exactly the
                heads of the action space, all with the same ``*batch``.
            temperature: Passed on to every head's distribution.

        Raises:
            KeyError: If ``logits_dict`` lacks a head or has one the action space does not.
        """
        if logits_dict.keys() != self.action_space.spaces.keys():
            raise KeyError(
                f"logits_dict has the heads {sorted(logits_dict)}, but the action space has "
                f"{sorted(self.action_space.spaces)}; the policy must produce logits for exactly these heads"
            )
        return DictProbabilityDistribution(
            {head: self.action_head_distribution(head, logits, temperature) for head, logits in logits_dict.items()}
        )

    def __repr__(self) -> str:
        chosen = ", ".join(f"{head}: {dist.__name__}" for head, dist in self._distributions.items())
        return f"{type(self).__name__}({{{chosen}}})"

    def _pick(self, head: str, space: spaces.Space, rules: list[_Rule]) -> type[ProbabilityDistribution]:
        """The distribution of one head: class default, then class rules, then head rules."""
        chosen = next((DEFAULT_DISTRIBUTIONS[c] for c in type(space).__mro__ if c in DEFAULT_DISTRIBUTIONS), None)
        for rule in rules:
            if rule.space_class is not None and isinstance(space, rule.space_class):
                chosen = rule.distribution
        for rule in rules:
            if rule.action_head == head:
                chosen = rule.distribution
        if chosen is None:
            raise ConfigurationError(
                f"action head {head!r} has a {type(space).__name__} space, which has no default distribution "
                f"(defaults exist for {[c.__name__ for c in DEFAULT_DISTRIBUTIONS]}; nested dict action spaces are not "
                "supported). Add a distribution_mapper_config rule for it with a custom distribution"
            )
        return chosen

    def _logits_shape(self, head: str) -> tuple[int, ...]:
        distribution = self._distributions[head]
        try:
            return tuple(distribution.required_logits_shape(self.action_space[head]))
        except ConfigurationError as error:
            raise ConfigurationError(f"action head {head!r}: {error}") from None

    def _check_head(self, action_head: str) -> str:
        if action_head not in self.action_space.spaces:
            raise KeyError(f"unknown action head {action_head!r}; valid heads: {list(self.action_space.spaces)}")
        return action_head


def _check_action_space(action_space: Any) -> spaces.Dict:
    """Returns a flat ``spaces.Dict`` or raises a ConfigurationError."""
    if not isinstance(action_space, spaces.Dict):
        raise ConfigurationError(
            f"DistributionMapper needs a gymnasium.spaces.Dict action space, got {action_space!r}. Wrap a single "
            "space as spaces.Dict({'action': space})"
        )
    if not action_space.spaces:
        raise ConfigurationError("DistributionMapper needs a dict action space with at least one action head")
    return action_space


def _plain_rules(config: DistributionMapperConfig) -> list[dict[str, Any]]:
    """Turns the config (list, OmegaConf list, ``{}`` or ``None``) into a list of plain dicts."""
    config = to_plain_config(config)
    if config is None or (isinstance(config, Mapping) and not config):
        return []
    if isinstance(config, Mapping) or isinstance(config, str) or not isinstance(config, Sequence):
        raise ConfigurationError(
            f"distribution_mapper_config must be a list of rules like [{{action_space: gymnasium.spaces.Box, "
            f"distribution: ...}}, {{action_head: <name>, distribution: ...}}], got {config!r}"
        )
    for index, rule in enumerate(config):
        if not isinstance(rule, Mapping):
            raise ConfigurationError(f"distribution_mapper_config[{index}] must be a mapping, got {rule!r}")
    return [dict(rule) for rule in config]


def _parse_rule(index: int, rule: dict[str, Any]) -> _Rule:
    """Validates one rule and resolves its space class and distribution."""
    selectors = [key for key in ("action_space", "action_head") if key in rule]
    unknown = sorted(set(rule) - {"action_space", "action_head", "distribution"})
    if unknown or len(selectors) != 1 or "distribution" not in rule:
        raise ConfigurationError(
            f"distribution_mapper_config[{index}] = {rule!r} is malformed: a rule has the key 'distribution' and "
            f"exactly one of 'action_space' and 'action_head'" + (f"; unknown keys: {unknown}" if unknown else "")
        )
    distribution = _resolve_class(
        index, rule["distribution"], ProbabilityDistribution, "distribution", ("maze.distributions",)
    )
    if selectors[0] == "action_head":
        return _Rule(index, None, str(rule["action_head"]), distribution)
    value = rule["action_space"]
    if isinstance(value, str) and value.startswith("gym."):
        value = "gymnasium." + value[len("gym.") :]
    return _Rule(
        index, _resolve_class(index, value, spaces.Space, "action_space", ("gymnasium.spaces",)), None, distribution
    )


def _resolve_class(index: int, value: Any, base: type, key: str, search_modules: Sequence[str]) -> Any:
    """Resolves a class or dotted path and checks that it subclasses ``base``."""
    if isinstance(value, str):
        try:
            value = resolve_target(value, search_modules)
        except ConfigurationError as error:
            raise ConfigurationError(f"distribution_mapper_config[{index}].{key}: {error}") from None
    if not (isinstance(value, type) and issubclass(value, base)):
        raise ConfigurationError(
            f"distribution_mapper_config[{index}].{key} must name a subclass of {base.__module__}.{base.__qualname__}, "
            f"got {value!r}"
        )
    return value
