"""DistributionMapper: defaults, rule precedence, config spellings, errors, logits shapes."""

from typing import Any

import numpy as np
import pytest
import torch
from gymnasium import spaces
from maze.distributions import (
    BernoulliProbabilityDistribution,
    BetaProbabilityDistribution,
    CategoricalProbabilityDistribution,
    DiagonalGaussianProbabilityDistribution,
    DictProbabilityDistribution,
    DistributionMapper,
    MultiCategoricalProbabilityDistribution,
    SquashedGaussianProbabilityDistribution,
)
from maze.env.errors import ConfigurationError
from maze.env.testing.fake_envs import build_dummy_maze_env, build_multi_step_env
from omegaconf import OmegaConf

torch.set_num_threads(1)

BETA = "maze.distributions.beta.BetaProbabilityDistribution"
SQUASHED = "maze.distributions.squashed_gaussian.SquashedGaussianProbabilityDistribution"

ACTION_SPACE = spaces.Dict(
    {
        "discrete": spaces.Discrete(3),
        "multi": spaces.MultiDiscrete([2, 5]),
        "binary": spaces.MultiBinary(4),
        "box": spaces.Box(-1.0, 1.0, shape=(3,)),
        "special_action": spaces.Box(0.0, 2.0, shape=(2,)),
    }
)


class CustomCategoricalProbabilityDistribution(CategoricalProbabilityDistribution):
    """A user distribution, referenced by its dotted path in the tests."""


def classes(mapper: DistributionMapper) -> dict[str, type]:
    return {head: mapper.distribution_class(head) for head in ACTION_SPACE.spaces}


def test_docs_example_4_discrete_head() -> None:
    torch.manual_seed(0)
    mapper = DistributionMapper(
        action_space=spaces.Dict({"my_action": spaces.Discrete(2)}), distribution_mapper_config={}
    )
    assert mapper.required_logits_shape("my_action") == (2,)
    net = torch.nn.Sequential(torch.nn.Linear(4, 16), torch.nn.Tanh(), torch.nn.Linear(16, 2))
    dist = mapper.logits_dict_to_distribution({"my_action": net(torch.randn(4))}, temperature=1.0)
    action = dist.sample()
    assert isinstance(dist, DictProbabilityDistribution) and set(action) == {"my_action"}
    assert action["my_action"].shape == () and action["my_action"].item() in (0, 1)


def test_default_distribution_per_space_class_and_logits_shapes() -> None:
    mapper = DistributionMapper(ACTION_SPACE, [])
    assert classes(mapper) == {
        "discrete": CategoricalProbabilityDistribution,
        "multi": MultiCategoricalProbabilityDistribution,
        "binary": BernoulliProbabilityDistribution,
        "box": DiagonalGaussianProbabilityDistribution,
        "special_action": DiagonalGaussianProbabilityDistribution,
    }
    shapes = {head: mapper.required_logits_shape(head) for head in ACTION_SPACE.spaces}
    assert shapes == {"discrete": (3,), "multi": (7,), "binary": (4,), "box": (6,), "special_action": (4,)}
    assert "box: DiagonalGaussianProbabilityDistribution" in repr(mapper)


def test_precedence_class_default_then_class_rule_then_head_rule() -> None:
    config = [
        {"action_space": "gymnasium.spaces.Box", "distribution": BETA},
        {"action_head": "special_action", "distribution": SQUASHED},
    ]
    mapper = DistributionMapper(ACTION_SPACE, config)
    assert mapper.distribution_class("box") is BetaProbabilityDistribution
    assert mapper.distribution_class("special_action") is SquashedGaussianProbabilityDistribution
    assert mapper.distribution_class("discrete") is CategoricalProbabilityDistribution
    # a head rule wins even when it is listed before the class rule; among class rules the later wins
    reordered = [config[1], {"action_space": "Box", "distribution": SQUASHED}, config[0]]
    mapper = DistributionMapper(ACTION_SPACE, reordered)
    assert mapper.distribution_class("box") is BetaProbabilityDistribution
    assert mapper.distribution_class("special_action") is SquashedGaussianProbabilityDistribution


@pytest.mark.parametrize(
    "space_value", ["gym.spaces.Box", "gymnasium.spaces.Box", "gymnasium.spaces.box.Box", "Box", spaces.Box]
)
def test_space_class_spellings_including_legacy_gym(space_value: Any) -> None:
    mapper = DistributionMapper(ACTION_SPACE, [{"action_space": space_value, "distribution": BETA}])
    assert mapper.distribution_class("box") is BetaProbabilityDistribution


@pytest.mark.parametrize(
    "distribution",
    [
        "SquashedGaussianProbabilityDistribution",
        SQUASHED,
        SquashedGaussianProbabilityDistribution,
    ],
)
def test_distribution_spellings(distribution: Any) -> None:
    mapper = DistributionMapper(ACTION_SPACE, [{"action_head": "box", "distribution": distribution}])
    assert mapper.distribution_class("box") is SquashedGaussianProbabilityDistribution


def test_custom_distribution_by_dotted_path_and_omegaconf_config() -> None:
    path = f"{__name__}.CustomCategoricalProbabilityDistribution"
    config = OmegaConf.create([{"action_space": "gym.spaces.Discrete", "distribution": path}])
    mapper = DistributionMapper(ACTION_SPACE, config)
    assert mapper.distribution_class("discrete") is CustomCategoricalProbabilityDistribution
    dist = mapper.action_head_distribution("discrete", torch.zeros(3))
    assert isinstance(dist, CustomCategoricalProbabilityDistribution)


def test_logits_dict_to_distribution_with_batch_and_time_dims() -> None:
    torch.manual_seed(1)
    mapper = DistributionMapper(ACTION_SPACE, [{"action_space": "gym.spaces.Box", "distribution": BETA}])
    for batch in ((8,), (5, 8)):
        logits = {head: torch.randn(*batch, *mapper.required_logits_shape(head)) for head in ACTION_SPACE.spaces}
        dist = mapper.logits_dict_to_distribution(logits, temperature=0.7)
        actions = dist.sample()
        assert dist.log_prob(actions).shape == batch and dist.entropy().shape == batch
        for index in np.ndindex(*batch):
            assert ACTION_SPACE.contains(
                {head: value[index].numpy().astype(ACTION_SPACE[head].dtype) for head, value in actions.items()}
            )
        for head, head_dist in dist.distribution_dict.items():
            assert head_dist.temperature == 0.7 and isinstance(head_dist, mapper.distribution_class(head))


def test_unknown_action_head_lists_the_valid_heads() -> None:
    with pytest.raises(
        ConfigurationError, match=r"action head 'boxx'.*valid heads: \['binary', 'box', .*Did you mean 'box'"
    ):
        DistributionMapper(ACTION_SPACE, [{"action_head": "boxx", "distribution": BETA}])


def test_unknown_space_class_and_distribution_name_the_culprit() -> None:
    with pytest.raises(ConfigurationError, match=r"distribution_mapper_config\[0\]\.action_space.*'Boxx'"):
        DistributionMapper(ACTION_SPACE, [{"action_space": "gym.spaces.Boxx", "distribution": BETA}])
    with pytest.raises(ConfigurationError, match=r"distribution_mapper_config\[1\]\.distribution.*BetaDistribution"):
        DistributionMapper(
            ACTION_SPACE,
            [
                {"action_head": "box", "distribution": BETA},
                {"action_head": "box", "distribution": "maze.distributions.beta.BetaDistribution"},
            ],
        )
    with pytest.raises(ConfigurationError, match=r"action_space must name a subclass of gymnasium.*Space"):
        DistributionMapper(
            ACTION_SPACE, [{"action_space": "maze.distributions.DistributionMapper", "distribution": BETA}]
        )
    with pytest.raises(ConfigurationError, match=r"distribution must name a subclass of .*ProbabilityDistribution"):
        DistributionMapper(ACTION_SPACE, [{"action_head": "box", "distribution": "gymnasium.spaces.Box"}])


@pytest.mark.parametrize(
    "rule",
    [
        {"action_space": "Box"},
        {"action_space": "Box", "action_head": "box", "distribution": BETA},
        {"action_head": "box", "distribution": BETA, "temperature": 2},
    ],
)
def test_malformed_rules_are_rejected(rule: dict) -> None:
    with pytest.raises(ConfigurationError, match=r"distribution_mapper_config\[0\] = .* is malformed"):
        DistributionMapper(ACTION_SPACE, [rule])


def test_incompatible_distribution_names_the_head() -> None:
    with pytest.raises(ConfigurationError, match=r"action head 'discrete': BetaProbabilityDistribution supports Box"):
        DistributionMapper(ACTION_SPACE, [{"action_head": "discrete", "distribution": BETA}])
    unbounded = spaces.Dict({"a": spaces.Box(-np.inf, np.inf, (2,))})
    with pytest.raises(ConfigurationError, match=r"action head 'a': SquashedGaussian.*needs a bounded Box"):
        DistributionMapper(unbounded, [{"action_space": "gym.spaces.Box", "distribution": SQUASHED}])


def test_bad_action_spaces_and_configs() -> None:
    with pytest.raises(ConfigurationError, match="needs a gymnasium.spaces.Dict"):
        DistributionMapper(spaces.Discrete(3), [])  # type: ignore[arg-type]
    nested = spaces.Dict({"outer": spaces.Dict({"inner": spaces.Discrete(2)})})
    with pytest.raises(
        ConfigurationError, match="'outer' has a Dict space.*nested dict action spaces are not supported"
    ):
        DistributionMapper(nested, [])
    with pytest.raises(ConfigurationError, match="must be a list of rules"):
        DistributionMapper(ACTION_SPACE, {"action_space": "Box", "distribution": BETA})


def test_lookup_errors() -> None:
    mapper = DistributionMapper(ACTION_SPACE, None)
    with pytest.raises(KeyError, match="unknown action head 'nope'; valid heads"):
        mapper.required_logits_shape("nope")
    logits = {head: torch.zeros(mapper.required_logits_shape(head)) for head in ACTION_SPACE.spaces}
    with pytest.raises(KeyError, match="logits_dict has the heads"):
        mapper.logits_dict_to_distribution({**logits, "extra": torch.zeros(2)})
    with pytest.raises(KeyError, match="logits_dict has the heads"):
        mapper.logits_dict_to_distribution({"discrete": logits["discrete"]})


def test_one_mapper_per_sub_step_of_a_structured_env() -> None:
    env = build_multi_step_env()
    config = [
        {"action_space": "gym.spaces.Box", "distribution": BETA},
        {"action_head": "position", "distribution": SQUASHED},
    ]
    mappers = DistributionMapper.for_sub_steps(env.action_spaces_dict, config)
    assert set(mappers) == set(env.action_spaces_dict)
    assert [
        mappers[key].distribution_class(head) for key in mappers for head in env.action_spaces_dict[key].spaces
    ] == [
        CategoricalProbabilityDistribution,
        SquashedGaussianProbabilityDistribution,
    ]
    with pytest.raises(ConfigurationError, match="action head 'missing'"):
        DistributionMapper.for_sub_steps(env.action_spaces_dict, [{"action_head": "missing", "distribution": BETA}])
    first_key = next(iter(env.action_spaces_dict))
    with pytest.raises(ConfigurationError, match="action head 'position'"):
        DistributionMapper(env.action_spaces_dict[first_key], config)


def test_dummy_env_actions_sampled_from_the_mapper_are_valid_env_actions() -> None:
    torch.manual_seed(2)
    env = build_dummy_maze_env()
    env.reset(seed=0)
    mapper = DistributionMapper(env.action_space, [{"action_space": "gym.spaces.Box", "distribution": SQUASHED}])
    logits = {head: torch.randn(mapper.required_logits_shape(head)) for head in env.action_space.spaces}
    for _ in range(5):
        action = {head: value.numpy() for head, value in mapper.logits_dict_to_distribution(logits).sample().items()}
        action = {head: value.astype(env.action_space[head].dtype) for head, value in action.items()}
        assert env.action_space.contains(action)
        env.step(action)
