"""Policy composers."""

from maze.perception.models.policies.base_policy_composer import BasePolicyComposer
from maze.perception.models.policies.probabilistic_policy_composer import ProbabilisticPolicyComposer

__all__ = ["BasePolicyComposer", "ProbabilisticPolicyComposer"]
