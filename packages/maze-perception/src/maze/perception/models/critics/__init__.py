"""Critic composers: state critics V(s) and state-action critics Q(s, a)."""

from maze.perception.models.critics.base_state_action_critic_composer import BaseStateActionCriticComposer
from maze.perception.models.critics.base_state_critic_composer import BaseStateCriticComposer
from maze.perception.models.critics.critic_composer_interface import CriticComposerInterface
from maze.perception.models.critics.delta_state_critic_composer import DeltaStateCriticComposer
from maze.perception.models.critics.shared_state_action_critic_composer import SharedStateActionCriticComposer
from maze.perception.models.critics.shared_state_critic_composer import SharedStateCriticComposer
from maze.perception.models.critics.step_state_action_critic_composer import (
    StateActionCriticComposer,
    StepStateActionCriticComposer,
)
from maze.perception.models.critics.step_state_critic_composer import StateCriticComposer, StepStateCriticComposer

__all__ = [
    "BaseStateActionCriticComposer",
    "BaseStateCriticComposer",
    "CriticComposerInterface",
    "DeltaStateCriticComposer",
    "SharedStateActionCriticComposer",
    "SharedStateCriticComposer",
    "StateActionCriticComposer",
    "StateCriticComposer",
    "StepStateActionCriticComposer",
    "StepStateCriticComposer",
]
