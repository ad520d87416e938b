"""Action probability distributions and the DistributionMapper that picks one per action head.

Every distribution is built from logits ``[*batch, *logits_shape]`` (any leading batch
dims, e.g. ``[B]`` or ``[T, B]``) and returns ``log_prob``/``entropy``/``kl`` of shape
``[*batch]``; see :mod:`maze.distributions.base`.
"""

from importlib.metadata import version as _version

from maze.distributions.base import ProbabilityDistribution, TorchProbabilityDistribution
from maze.distributions.bernoulli import BernoulliProbabilityDistribution
from maze.distributions.beta import BetaProbabilityDistribution
from maze.distributions.categorical import CategoricalProbabilityDistribution
from maze.distributions.dict_distribution import DictProbabilityDistribution
from maze.distributions.distribution_mapper import DEFAULT_DISTRIBUTIONS, DistributionMapper, DistributionMapperConfig
from maze.distributions.gaussian import DiagonalGaussianProbabilityDistribution
from maze.distributions.multi_categorical import MultiCategoricalProbabilityDistribution
from maze.distributions.squashed_gaussian import SquashedGaussianProbabilityDistribution
from maze.distributions.utils import atanh, tensor_clamp

__version__ = _version("maze-distributions")

__all__ = [
    "__version__",
    "ProbabilityDistribution",
    "TorchProbabilityDistribution",
    "CategoricalProbabilityDistribution",
    "MultiCategoricalProbabilityDistribution",
    "BernoulliProbabilityDistribution",
    "DiagonalGaussianProbabilityDistribution",
    "BetaProbabilityDistribution",
    "SquashedGaussianProbabilityDistribution",
    "DictProbabilityDistribution",
    "DistributionMapper",
    "DistributionMapperConfig",
    "DEFAULT_DISTRIBUTIONS",
    "atanh",
    "tensor_clamp",
]
