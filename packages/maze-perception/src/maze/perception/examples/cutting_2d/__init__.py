"""Networks for the Cutting-2D tutorial envs (``maze.env.examples.cutting_2d``).

* :class:`Cutting2DFlatPolicyNet` - the flat env's joint action;
* :class:`Cutting2DSelectionPolicyNet` / :class:`Cutting2DCuttingPolicyNet` - the two
  sub-steps of the structured env, optionally masked with the masked env's
  ``inventory_mask`` / ``cutting_mask`` (``mask_key``);
* :class:`Cutting2DStateValueNet` - the state critic of every (sub-)step.

All are InferenceBlock graphs (graph PDFs can be drawn) that read the observations by
name and take every size from ``obs_shapes``; the model configs are
``conf/model/tutorial_cutting_2d_{flat,struct,struct_masked}.yaml``.
"""

from maze.perception.examples.cutting_2d.actor import (
    Cutting2DCuttingPolicyNet,
    Cutting2DFlatPolicyNet,
    Cutting2DSelectionPolicyNet,
)
from maze.perception.examples.cutting_2d.critic import Cutting2DStateValueNet

__all__ = [
    "Cutting2DCuttingPolicyNet",
    "Cutting2DFlatPolicyNet",
    "Cutting2DSelectionPolicyNet",
    "Cutting2DStateValueNet",
]
