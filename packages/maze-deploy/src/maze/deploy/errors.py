"""Errors of agent deployments. Each message names the problem and how to fix it."""

from __future__ import annotations

from maze.env.errors import MazeError

__all__ = [
    "DeploymentError",
    "DeploymentOrderError",
    "ConcurrentUseError",
    "InvalidRewardError",
    "ObservationOutsideSpaceError",
    "PolicyExecutionError",
    "WrapperStackError",
]


class DeploymentError(MazeError):
    """Base of every error an :class:`~maze.deploy.agent_deployment.AgentDeployment` raises while acting."""


class DeploymentOrderError(DeploymentError, RuntimeError):
    """``act``/``close``/``reset`` called out of the order of an episode (e.g. ``close`` twice)."""


class ConcurrentUseError(DeploymentError, RuntimeError):
    """A second thread called into a deployment while another thread was inside it."""


class InvalidRewardError(DeploymentError, ValueError):
    """``act``/``close`` got a reward that is not a finite number (a string, None, NaN, inf)."""


class ObservationOutsideSpaceError(DeploymentError, ValueError):
    """An observation handed in, or the one the wrapper stack made of a MazeState, lies outside its space."""


class PolicyExecutionError(DeploymentError, RuntimeError):
    """The policy raised while computing an action (the policy's exception is the ``__cause__``)."""


class WrapperStackError(DeploymentError, RuntimeError):
    """The wrapper stack failed on a MazeState, or changed actions in a way deployment cannot reproduce."""
